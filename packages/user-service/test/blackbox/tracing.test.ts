/**
 * Traces of the reference server (`TRACING=true`) with the real OpenTelemetry SDK registered as an
 * operator's set-up would (in-memory exporter, AsyncLocalStorage context, W3C propagator): the
 * service runs in this process (the SDK must share its globals) and is called over a real socket.
 * A request yields a SERVER span named by its route; a product call goes to a fake catalogue on
 * loopback with `X-Request-Id` and the trace context: the client span's with tracing on, the
 * caller's as it came with tracing off. And the built service started as an operator starts it,
 * `node --import` a register module with Node's HTTP instrumentation: its span gets the route.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/domain/config/app-config.js';
import { createService, type Service } from '../../src/server.js';
import { http, removeDir, startServer, type RunningServer } from '../helpers/server.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
const exporter = new InMemorySpanExporter();

/** What the fake catalogue received, per call. */
const received: IncomingHttpHeaders[] = [];

function startCatalogue(): Promise<Server> {
  const server = createServer((req, res) => {
    received.push(req.headers);
    const body = JSON.stringify({ id: 1, name: 'Traced Laptop', price: 3 });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('TRACING (in-process service, real sockets, the real SDK)', () => {
  let catalogue: Server;
  const services: Array<{ service: Service; dataDir: string; url: string }> = [];

  async function start(tracing: boolean): Promise<string> {
    const dataDir = mkdtempSync(join(tmpdir(), 'user-service-tracing-'));
    const config = await loadConfig({
      DATA_DIR: dataDir,
      SEED: 'none',
      STORAGE: 'memory',
      PORT: '0',
      LOG_REQUESTS: 'false',
      TRACING: String(tracing),
      PRODUCT_CATALOG_URL: `http://127.0.0.1:${(catalogue.address() as AddressInfo).port}`,
    });
    const service = await createService(config, { log: null });
    const { port } = await service.listen();
    const url = `http://127.0.0.1:${port}`;
    services.push({ service, dataDir, url });
    return url;
  }

  beforeAll(async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    catalogue = await startCatalogue();
  });
  afterEach(() => {
    exporter.reset();
    received.length = 0;
  });
  afterAll(async () => {
    for (const { service, dataDir } of services) {
      expect((await service.close()).exitCode).toBe(0);
      rmSync(dataDir, { recursive: true, force: true });
    }
    await new Promise((resolve) => catalogue?.close(resolve));
    trace.disable();
    propagation.disable();
    context.disable();
  });

  it('a request yields a SERVER span named GET /api/users/{id}, continuing the traceparent', async () => {
    const url = await start(true);
    const created = await http(url, 'POST', '/api/users', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'span@example.com', firstName: 'Span', lastName: 'Test' }),
    });
    expect(created.status).toBe(201);
    const id = (created.json() as { id: number }).id;
    const r = await http(url, 'GET', `/api/users/${id}`, { headers: { traceparent: TRACEPARENT } });
    expect(r.status).toBe(200);
    await expect.poll(() => exporter.getFinishedSpans().filter((s) => s.name === 'GET /api/users/{id}').length).toBe(1);
    const span = exporter.getFinishedSpans().find((s) => s.name === 'GET /api/users/{id}')!;
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.attributes).toMatchObject({
      'http.route': '/api/users/{id}',
      'http.response.status_code': 200,
      'url.path': `/api/users/${id}`,
    });
    expect(exporter.getFinishedSpans().some((s) => s.name === 'POST /api/users')).toBe(true);
  });

  it('the catalogue call is a CLIENT span under the server span and the catalogue gets its traceparent and the request id', async () => {
    const url = await start(true);
    const r = await http(url, 'GET', '/api/products/1', { headers: { traceparent: TRACEPARENT, 'x-request-id': 'req-42' } });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ id: 1, name: 'Traced Laptop', price: 3 });
    // The spans of this request's trace (the service may serve itself other requests meanwhile).
    const traced = () => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === TRACE_ID);
    await expect.poll(() => traced().map((s) => s.name)).toEqual(['GET', 'GET /api/products/{id}']);
    const server = traced().find((s) => s.kind === SpanKind.SERVER)!;
    const client = traced().find((s) => s.kind === SpanKind.CLIENT)!;
    expect(server.name).toBe('GET /api/products/{id}');
    expect(client.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(client.attributes['url.full']).toMatch(/\/products\/1$/);
    expect(received).toHaveLength(1);
    expect(received[0]!.traceparent).toBe(`00-${TRACE_ID}-${client.spanContext().spanId}-01`);
    expect(received[0]!['x-request-id']).toBe('req-42');
  });

  it('with TRACING=false no span is made and the catalogue gets the traceparent as it came, and the generated request id', async () => {
    const url = await start(false);
    const r = await http(url, 'GET', '/api/products/1', { headers: { traceparent: TRACEPARENT, tracestate: 'vendor=1' } });
    expect(r.status).toBe(200);
    expect(received).toHaveLength(1);
    expect(received[0]!.traceparent).toBe(TRACEPARENT);
    expect(received[0]!.tracestate).toBe('vendor=1');
    expect(received[0]!['x-request-id']).toBe(r.headers['x-request-id']);
    expect(received[0]!['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe('TRACING=true in the built service started with node --import an OpenTelemetry register module', () => {
  let server: RunningServer;
  let spansFile: string;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'user-service-spans-'));
    spansFile = join(dir, 'spans.jsonl');
    const register = fileURLToPath(new URL('./fixtures/otel-register.mjs', import.meta.url));
    server = await startServer({ env: { TRACING: 'true', SEED: 'none', SPANS_FILE: spansFile, NODE_OPTIONS: `--import=${register}` } });
  });
  afterAll(async () => {
    if (server !== undefined) {
      expect(await server.stop('SIGTERM')).toBe(0);
      removeDir(server.dataDir);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  /** The spans written so far, one per line. */
  const spans = (): Array<{ name: string; kind: number; scope: string; traceId: string; attributes: Record<string, unknown> }> =>
    existsSync(spansFile)
      ? readFileSync(spansFile, 'utf8')
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as { name: string; kind: number; scope: string; traceId: string; attributes: Record<string, unknown> })
      : [];

  it("the HTTP instrumentation's server span is named GET /api/users/{id}, and no second span is made", async () => {
    const created = await http(server.url, 'POST', '/api/users', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'child@example.com', firstName: 'Child', lastName: 'Process' }),
    });
    expect(created.status).toBe(201);
    const id = (created.json() as { id: number }).id;
    expect((await http(server.url, 'GET', `/api/users/${id}`, { headers: { traceparent: TRACEPARENT } })).status).toBe(200);
    await expect
      .poll(
        () =>
          spans()
            .filter((s) => s.traceId === TRACE_ID)
            .map((s) => s.name),
        { timeout: 5000 },
      )
      .toEqual(['GET /api/users/{id}']);
    const [span] = spans().filter((s) => s.traceId === TRACE_ID);
    expect(span!.scope).toBe('@opentelemetry/instrumentation-http');
    expect(span!.kind).toBe(SpanKind.SERVER);
    expect(span!.attributes['http.route']).toBe('/api/users/{id}');
  });
});
