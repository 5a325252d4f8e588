import diagnostics_channel from 'node:diagnostics_channel';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL_NAMES } from '@jaxrs-node/pipeline';
import { createApp, NO_ROUTE, PipelineMetrics, type MetricsSnapshot, type RouteStats } from '../src/14-observability/app.js';
import { listen, send, type Reply, type Running } from './helpers/http.js';

const trace = (r: { headers: Record<string, string | string[] | undefined> }): string[] =>
  String(r.headers['x-pipeline-trace']).split(', ');
const anySubscribers = (): boolean => Object.values(CHANNEL_NAMES).some((name) => diagnostics_channel.hasSubscribers(name));
const RESPONSE_HALF = ['response-filter:ResponseHeadersFilter', 'writer:JsonWriter'];

/** Durations vary; everything else in a route's counters is exact. */
function withoutTimes(s: RouteStats | undefined): Omit<RouteStats, 'totalMs' | 'maxMs' | 'methodMs'> {
  expect(s).toBeDefined();
  for (const ms of [s!.totalMs, s!.maxMs, s!.methodMs]) {
    expect(Number.isFinite(ms)).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(0);
  }
  expect(s!.maxMs).toBeLessThanOrEqual(s!.totalMs);
  const { totalMs: _t, maxMs: _m, methodMs: _x, ...rest } = s!;
  return rest;
}

describe('14 observability: diagnostics_channel metrics and X-Pipeline-Trace', () => {
  let server: Running;
  let metrics: PipelineMetrics;
  const log: string[] = [];

  beforeAll(async () => {
    // Nothing subscribes until the metrics exist: the pipeline would publish nothing at all.
    expect(anySubscribers()).toBe(false);
    metrics = new PipelineMetrics({ accessLog: (line) => log.push(line) });
    expect(Object.values(CHANNEL_NAMES).filter((n) => diagnostics_channel.hasSubscribers(n))).toEqual([
      CHANNEL_NAMES.start,
      CHANNEL_NAMES.methodStart,
      CHANNEL_NAMES.methodEnd,
      CHANNEL_NAMES.error,
      CHANNEL_NAMES.mapped,
      CHANNEL_NAMES.finish,
    ]);
    server = await listen(createApp({ metrics }));
  });
  afterAll(async () => {
    metrics.close();
    await server.close();
  });

  it('a known sequence of requests gives exact per-route counters', async () => {
    const statuses: number[] = [];
    const go = async (path: string, init?: Parameters<typeof send>[2]): Promise<Reply> => {
      const r = await send(server.url, path, init);
      statuses.push(r.status);
      return r;
    };
    await go('/api/orders/1');
    await go('/api/orders/1');
    await go('/api/orders/2'); // NotFoundError from the method
    await go('/api/orders/1/fail'); // PaymentDeclinedError → mapper → 402
    await go('/nowhere'); // no route at all
    await go('/api/orders', { method: 'POST', body: { item: 'tea', quantity: 2 } });
    await go('/api/orders', { method: 'POST', body: { item: '', quantity: 0 } }); // validation 400
    expect(statuses).toEqual([200, 200, 404, 402, 404, 201, 400]);

    // The finish event is published before the response leaves, so no waiting is needed.
    const snap = (await go('/api/metrics')).json();
    expect(snap.inFlight).toBe(1); // the metrics request itself
    expect(Object.keys(snap.routes).sort()).toEqual([
      '(no route)',
      'GET /api/orders/{id}',
      'GET /api/orders/{id}/fail',
      'POST /api/orders',
    ]);
    expect(withoutTimes(snap.routes['GET /api/orders/{id}'])).toEqual({
      count: 3,
      statuses: { '2xx': 2, '4xx': 1 },
      methodFailures: 1,
      errors: 1,
      mapped: { 'NotFoundError 404': 1 },
    });
    expect(withoutTimes(snap.routes['GET /api/orders/{id}/fail'])).toEqual({
      count: 1,
      statuses: { '4xx': 1 },
      methodFailures: 1,
      errors: 1,
      mapped: { 'PaymentDeclinedError 402': 1 },
    });
    // No route: the error came from matching, no method ran.
    expect(withoutTimes(snap.routes[NO_ROUTE])).toEqual({
      count: 1,
      statuses: { '4xx': 1 },
      methodFailures: 0,
      errors: 1,
      mapped: { 'NotFoundError 404': 1 },
    });
    // The invalid body failed validation, before the method: no method failure.
    expect(withoutTimes(snap.routes['POST /api/orders'])).toEqual({
      count: 2,
      statuses: { '2xx': 1, '4xx': 1 },
      methodFailures: 0,
      errors: 1,
      mapped: { 'ValidationError 400': 1 },
    });
    expect(snap.routes['GET /api/orders/{id}'].methodMs).toBeLessThanOrEqual(snap.routes['GET /api/orders/{id}'].totalMs);

    // The metrics request is counted once it has finished.
    const again = (await go('/api/metrics')).json();
    expect(withoutTimes(again.routes['GET /api/metrics'])).toEqual({
      count: 1,
      statuses: { '2xx': 1 },
      methodFailures: 0,
      errors: 0,
      mapped: {},
    });
    expect(again.inFlight).toBe(1);

    // The access log: one line per finished request, in order, with its duration.
    expect(log.slice(0, 7).map((l) => l.replace(/ \d+\.\d{2}ms$/, ' <ms>'))).toEqual([
      'GET /api/orders/1 200 <ms>',
      'GET /api/orders/1 200 <ms>',
      'GET /api/orders/2 404 <ms>',
      'GET /api/orders/1/fail 402 <ms>',
      'GET /nowhere 404 <ms>',
      'POST /api/orders 201 <ms>',
      'POST /api/orders 400 <ms>',
    ]);
  });

  it('X-Pipeline-Trace lists the components that ran, in order', async () => {
    const ok = await send(server.url, '/api/orders/1', { headers: { 'x-request-id': 'req-42' } });
    expect(ok.status).toBe(200);
    expect(ok.headers['x-request-id']).toBe('req-42');
    expect(trace(ok)).toEqual(['request-filter:RequestIdFilter', 'method:OrdersResource.get', ...RESPONSE_HALF]);

    const declined = await send(server.url, '/api/orders/7/fail');
    expect(declined.status).toBe(402);
    expect(declined.json()).toEqual({ error: 'payment_declined', orderId: 7 });
    expect(trace(declined)).toEqual([
      'request-filter:RequestIdFilter',
      'method:OrdersResource.fail',
      'mapper:PaymentDeclinedMapper',
      ...RESPONSE_HALF,
    ]);

    const missing = await send(server.url, '/api/orders/99');
    expect(missing.status).toBe(404);
    expect(trace(missing)).toEqual(['request-filter:RequestIdFilter', 'method:OrdersResource.get', 'mapper:default', ...RESPONSE_HALF]);

    // No route: post-matching filters never ran, the global response filter still did.
    const nowhere = await send(server.url, '/nowhere');
    expect(nowhere.status).toBe(404);
    expect(nowhere.headers['x-request-id']).toBeUndefined();
    expect(nowhere.headers['cache-control']).toBe('no-store');
    expect(trace(nowhere)).toEqual(['mapper:default', ...RESPONSE_HALF]);

    const created = await send(server.url, '/api/orders', { method: 'POST', body: { item: 'tea', quantity: 1 } });
    expect(created.status).toBe(201);
    expect(trace(created)).toEqual([
      'request-filter:RequestIdFilter',
      'reader:JsonReader',
      'validation',
      'method:OrdersResource.create',
      ...RESPONSE_HALF,
    ]);
  });
});

describe('14 observability: in-process and unsubscribing', () => {
  let metrics: PipelineMetrics | undefined;
  afterEach(() => {
    metrics?.close();
    metrics = undefined;
  });

  it('inject(): the same trace and counters without a socket', async () => {
    metrics = new PipelineMetrics();
    const app = createApp({ metrics });
    const r = await app.inject('/api/orders/1/fail');
    expect(r.status).toBe(402);
    expect(trace(r)).toEqual([
      'request-filter:RequestIdFilter',
      'method:OrdersResource.fail',
      'mapper:PaymentDeclinedMapper',
      ...RESPONSE_HALF,
    ]);
    expect(withoutTimes(metrics.snapshot().routes['GET /api/orders/{id}/fail'])).toEqual({
      count: 1,
      statuses: { '4xx': 1 },
      methodFailures: 1,
      errors: 1,
      mapped: { 'PaymentDeclinedError 402': 1 },
    });
    expect(metrics.snapshot().inFlight).toBe(0);
  });

  it('close() unsubscribes: nothing is published or counted any more', async () => {
    metrics = new PipelineMetrics();
    const app = createApp({ metrics });
    await app.inject('/api/orders/1');
    expect(metrics.snapshot().routes['GET /api/orders/{id}']?.count).toBe(1);
    metrics.close();
    expect(anySubscribers()).toBe(false);
    const r = await app.inject('/api/orders/1');
    expect(r.status).toBe(200);
    expect(metrics.snapshot().routes['GET /api/orders/{id}']?.count).toBe(1);
    // The resource still answers from the (now frozen) counters.
    expect((await app.inject('/api/metrics')).json<MetricsSnapshot>().routes['GET /api/orders/{id}']?.count).toBe(1);
  });

  it('tracing: false sends no trace header', async () => {
    metrics = new PipelineMetrics();
    const r = await createApp({ metrics, tracing: false }).inject('/api/orders/1');
    expect(r.status).toBe(200);
    expect(r.headers['x-pipeline-trace']).toBeUndefined();
  });
});
