import diagnostics_channel from 'node:diagnostics_channel';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL_NAMES } from '@jaxrs-node/pipeline';
import { createApp, NO_ROUTE, PipelineMetrics, type MetricsSnapshot, type RouteStats } from '../src/14-observability/app.js';
import { listen, send, type Reply, type Running } from './helpers/http.js';

const trace = (r: { headers: Record<string, string | string[] | undefined> }): string[] =>
  String(r.headers['x-pipeline-trace']).split(', ');
const anySubscribers = (): boolean => Object.values(CHANNEL_NAMES).some((name) => diagnostics_channel.hasSubscribers(name));
const RESPONSE_HALF = ['response-filter:ResponseHeadersFilter', 'writer:JsonWriter'];

type Untimed = Omit<RouteStats, 'totalMs' | 'maxMs' | 'methodMs'>;

/**
 * A route's counters without its durations, which vary. What holds whatever the machine's speed
 * is checked here, for routes whose every request was timed (it started after the subscription).
 */
function withoutTimes(s: RouteStats): Untimed {
  const { totalMs, maxMs, methodMs, ...rest } = s;
  for (const ms of [totalMs, maxMs, methodMs]) expect(Number.isFinite(ms)).toBe(true);
  // A request through the pipeline takes microseconds at least, the snapshot's resolution.
  expect(maxMs).toBeGreaterThan(0);
  // The total is a sum: equal to the maximum for one request, more than it for several.
  if (s.count === 1) expect(totalMs).toBe(maxMs);
  else expect(totalMs).toBeGreaterThan(maxMs);
  // The method runs inside its request, so its time is a part of the request's time.
  expect(methodMs).toBeGreaterThanOrEqual(0);
  expect(methodMs).toBeLessThanOrEqual(totalMs);
  return rest;
}

/** Every route of a snapshot through {@link withoutTimes}: a route nobody expected shows up too. */
const untimed = (routes: Record<string, RouteStats>): Record<string, Untimed> =>
  Object.fromEntries(Object.entries(routes).map(([key, s]) => [key, withoutTimes(s)]));

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
    // Either is undefined if beforeAll failed before making it: that failure is the one to see.
    metrics?.close();
    await server?.close();
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
    const snap = (await go('/api/metrics')).json<MetricsSnapshot>();
    expect(snap.inFlight).toBe(1); // the metrics request itself
    const expected: Record<string, Untimed> = {
      'GET /api/orders/{id}': {
        count: 3,
        statuses: { '2xx': 2, '4xx': 1 },
        methodFailures: 1,
        errors: 1,
        mapped: { 'NotFoundError 404': 1 },
      },
      'GET /api/orders/{id}/fail': {
        count: 1,
        statuses: { '4xx': 1 },
        methodFailures: 1,
        errors: 1,
        mapped: { 'PaymentDeclinedError 402': 1 },
      },
      // No route: the error came from matching, no method ran.
      [NO_ROUTE]: { count: 1, statuses: { '4xx': 1 }, methodFailures: 0, errors: 1, mapped: { 'NotFoundError 404': 1 } },
      // The invalid body failed validation, before the method: no method failure.
      'POST /api/orders': {
        count: 2,
        statuses: { '2xx': 1, '4xx': 1 },
        methodFailures: 0,
        errors: 1,
        mapped: { 'ValidationError 400': 1 },
      },
    };
    // Not yet 'GET /api/metrics': the snapshot was taken inside its own, unfinished request.
    expect(untimed(snap.routes)).toEqual(expected);
    expect(snap.routes[NO_ROUTE]?.methodMs).toBe(0);

    // The metrics request is counted once it has finished; nothing else changed.
    const again = (await go('/api/metrics')).json<MetricsSnapshot>();
    expect(untimed(again.routes)).toEqual({
      ...expected,
      'GET /api/metrics': { count: 1, statuses: { '2xx': 1 }, methodFailures: 0, errors: 0, mapped: {} },
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
    expect(untimed(metrics.snapshot().routes)).toEqual({
      'GET /api/orders/{id}/fail': {
        count: 1,
        statuses: { '4xx': 1 },
        methodFailures: 1,
        errors: 1,
        mapped: { 'PaymentDeclinedError 402': 1 },
      },
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
