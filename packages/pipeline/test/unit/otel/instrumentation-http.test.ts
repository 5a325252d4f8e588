/**
 * `TracingFeature` beside Node's HTTP instrumentation (`@opentelemetry/instrumentation-http`),
 * as an operator's `NodeSDK` with auto-instrumentations sets it up: the instrumentation makes the
 * SERVER span (it patches `http.Server.prototype.emit`), and the feature must not make a second;
 * it names that span `{method} {route}` and sets `http.route`, for plain and streamed answers, and
 * the method's spans are its children.
 *
 * The instrumentation patches `node:http` when the module is next required (require-in-the-middle):
 * vitest loaded it long before, so the test requires it once after registering; the patch is on
 * the shared `Server.prototype`, which the server that `listen()` creates uses. Unpatched at the end.
 */
import 'reflect-metadata';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { SpanKind, trace } from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Application, GET, Path, PathParam } from '../../../src/index.js';
import { TracingFeature } from '../../../src/features/otel/index.js';
import { exporter, PARENT_ID, provider, registerSdk, TRACE_ID, TRACEPARENT } from './sdk.js';

@Path('/orders')
class Orders {
  @GET('{id}') async get(@PathParam('id') id: string): Promise<{ id: string }> {
    await new Promise((r) => setImmediate(r));
    trace.getTracer('test').startActiveSpan('load order', (span) => span.end());
    return { id };
  }

  @GET('{id}/lines') lines(): Readable {
    return Readable.from(['a\n', 'b\n']);
  }
}

let unregister: () => void = () => undefined;
let unpatch: () => void = () => undefined;
beforeAll(() => {
  unregister = registerSdk();
  unpatch = registerInstrumentations({ tracerProvider: provider, instrumentations: [new HttpInstrumentation()] });
  createRequire(import.meta.url)('node:http');
});
afterAll(() => {
  unpatch();
  unregister();
});

let app: Application | undefined;
afterEach(async () => {
  await app?.close(1000);
  exporter.reset();
});

async function serve(): Promise<number> {
  app = new Application({ resources: [Orders], providers: [new TracingFeature()], logger: () => undefined });
  return (await app.listen(0, '127.0.0.1')).port;
}

describe('TracingFeature with @opentelemetry/instrumentation-http', () => {
  it('the instrumentation is really in place (http.Server.prototype.emit is wrapped)', () => {
    const http = createRequire(import.meta.url)('node:http') as { Server: { prototype: { emit: { __wrapped?: boolean } } } };
    expect(http.Server.prototype.emit.__wrapped).toBe(true);
  });

  it("names the instrumentation's server span by the route and starts no second one", async () => {
    const port = await serve();
    const res = await fetch(`http://127.0.0.1:${port}/orders/12`, { headers: { traceparent: TRACEPARENT } });
    expect(await res.json()).toEqual({ id: '12' });
    await expect.poll(() => exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER).length).toBe(1);
    const servers = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER);
    expect(servers).toHaveLength(1);
    const server = servers[0]!;
    expect(server.instrumentationScope.name).toBe('@opentelemetry/instrumentation-http');
    expect(server.name).toBe('GET /orders/{id}');
    expect(server.attributes['http.route']).toBe('/orders/{id}');
    expect(server.attributes['http.response.status_code']).toBe(200);
    expect(server.spanContext().traceId).toBe(TRACE_ID);
    expect(server.parentSpanContext?.spanId).toBe(PARENT_ID);
    const child = exporter.getFinishedSpans().find((s) => s.name === 'load order')!;
    expect(child.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
  });

  it('names it before the response finishes, for a streamed answer too', async () => {
    const port = await serve();
    const res = await fetch(`http://127.0.0.1:${port}/orders/3/lines`);
    expect(await res.text()).toBe('a\nb\n');
    await expect.poll(() => exporter.getFinishedSpans().length).toBe(1);
    const [server] = exporter.getFinishedSpans();
    expect(server!.name).toBe('GET /orders/{id}/lines');
    expect(server!.attributes['http.route']).toBe('/orders/{id}/lines');
  });

  it('leaves an unmatched request named by its method', async () => {
    const port = await serve();
    expect((await fetch(`http://127.0.0.1:${port}/nowhere`)).status).toBe(404);
    await expect.poll(() => exporter.getFinishedSpans().length).toBe(1);
    const [server] = exporter.getFinishedSpans();
    expect(server!.name).toBe('GET');
    expect(server!.attributes['http.route']).toBeUndefined();
  });
});
