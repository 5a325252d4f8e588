/**
 * The real OpenTelemetry SDK for the tracing tests: an in-memory exporter behind a simple
 * processor, the AsyncLocalStorage context manager and the W3C Trace Context propagator,
 * registered as the globals an application's `NodeSDK.start()` would register.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

export const exporter = new InMemorySpanExporter();
export const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

export function registerSdk(): () => void {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return () => {
    trace.disable();
    propagation.disable();
    context.disable();
  };
}

/** The finished spans named `name` (exactly one expected). */
export function spanNamed(name: string): ReadableSpan {
  const found = exporter.getFinishedSpans().filter((s) => s.name === name);
  if (found.length !== 1)
    throw new Error(
      `expected one span named ${name}, got ${exporter
        .getFinishedSpans()
        .map((s) => s.name)
        .join(', ')}`,
    );
  return found[0]!;
}

export const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
export const PARENT_ID = '00f067aa0ba902b7';
export const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;
