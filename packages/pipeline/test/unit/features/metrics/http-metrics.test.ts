/**
 * HttpMetricsFeature: OpenTelemetry's HTTP server metrics, labelled by the route template (base
 * path included, never the raw path), method (unknown ones as `_OTHER`), status, scheme and error
 * type; recorded into the library's MetricsRegistry in-process and over a real socket, and into a
 * real OpenTelemetry Meter (the SDK with an in-memory exporter, collection forced).
 */
import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import type { Meter } from '@opentelemetry/api';
import {
  Application,
  type ApplicationOptions,
  Entity,
  GET,
  HttpMetricsFeature,
  metricsResource,
  MetricsRegistry,
  Path,
  PathParam,
  POST,
  ServiceUnavailableError,
  type MetricsMeter,
} from '../../../../src/index.js';
import { readExposition, sampleValue, type Sample } from '../../../helpers/prometheus-text.js';

@Path('/items')
class Items {
  @GET()
  @Path('/{id}')
  get(@PathParam('id') id: string): { id: string } {
    if (id === 'boom') throw new TypeError('a bug');
    if (id === 'busy') throw new ServiceUnavailableError('try later');
    return { id };
  }

  @POST()
  create(@Entity() body: { name: string }): { name: string } {
    return body;
  }
}

const apps: Application[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close(1000)));
});

function app(meter: MetricsMeter, ...resources: NonNullable<ApplicationOptions['resources']>): Application {
  const a = new Application({
    basePath: '/api',
    resources: [Items, ...resources],
    providers: [new HttpMetricsFeature({ meter })],
    logger: () => undefined,
  });
  apps.push(a);
  return a;
}

const DURATION = 'http_server_request_duration_seconds';

function counts(samples: readonly Sample[]): string[] {
  return samples
    .filter((s) => s.name === `${DURATION}_count`)
    .map((s) =>
      [
        s.labels.http_request_method,
        s.labels.http_route ?? '-',
        s.labels.http_response_status_code,
        s.labels.error_type ?? '-',
        s.value,
      ].join(' '),
    );
}

describe('HttpMetricsFeature with a MetricsRegistry', () => {
  it('records duration, sizes and active requests by route template, method, status and error type, in-process', async () => {
    const registry = new MetricsRegistry();
    const a = app(registry);
    expect((await a.inject('/api/items/1')).status).toBe(200);
    expect((await a.inject('/api/items/2')).status).toBe(200);
    await a.inject({ method: 'POST', url: '/api/items', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' });
    expect((await a.inject('/api/items/boom')).status).toBe(500);
    expect((await a.inject('/api/items/busy')).status).toBe(503);
    expect((await a.inject('/api/nowhere/3')).status).toBe(404);
    await a.inject({ method: 'PURGE', url: '/api/items/1' });
    const { families, samples } = readExposition(registry.expose());
    expect(families.map((f) => `${f.name} ${f.type}`)).toEqual([
      `${DURATION} HISTOGRAM`,
      'http_server_active_requests GAUGE',
      'http_server_request_body_size_bytes HISTOGRAM',
      'http_server_response_body_size_bytes HISTOGRAM',
    ]);
    expect(counts(samples)).toEqual([
      'GET /api/items/{id} 200 - 2',
      'POST /api/items 200 - 1',
      'GET /api/items/{id} 500 TypeError 1',
      'GET /api/items/{id} 503 503 1',
      'GET - 404 - 1',
      expect.stringMatching(/^_OTHER - \d{3} - 1$/),
    ]);
    // Every series names the scheme; no series carries a raw path.
    expect(samples.every((s) => s.name === 'http_server_active_requests' || s.labels.url_scheme === 'http')).toBe(true);
    expect(samples.some((s) => Object.values(s.labels).some((v) => /\/items\/(1|2|boom|busy)|nowhere/.test(v)))).toBe(false);
    // Everything finished: nothing in flight.
    expect(samples.filter((s) => s.name === 'http_server_active_requests').map((s) => [s.labels.http_request_method, s.value])).toEqual([
      ['GET', 0],
      ['POST', 0],
      ['_OTHER', 0],
    ]);
    const post = { http_request_method: 'POST', http_route: '/api/items' };
    expect(sampleValue(samples, 'http_server_request_body_size_bytes_sum', post)).toBe(12);
    expect(sampleValue(samples, 'http_server_response_body_size_bytes_sum', post)).toBe(Buffer.byteLength('{"name":"x"}'));
    const ok = { http_route: '/api/items/{id}', http_response_status_code: '200' };
    expect(sampleValue(samples, 'http_server_response_body_size_bytes_sum', ok)).toBe(2 * Buffer.byteLength('{"id":"1"}'));
    // No request body on a GET: no body-size sample for it.
    expect(() => sampleValue(samples, 'http_server_request_body_size_bytes_count', ok)).toThrow(/^0 samples/);
    // The conventions' buckets, in seconds.
    expect(
      samples.filter((s) => s.name === `${DURATION}_bucket` && s.labels.http_response_status_code === '404').map((s) => s.labels.le),
    ).toEqual(['0.005', '0.01', '0.025', '0.05', '0.075', '0.1', '0.25', '0.5', '0.75', '1', '2.5', '5', '7.5', '10', '+Inf']);
  });

  it('counts a request as active while the method runs', async () => {
    const registry = new MetricsRegistry();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    @Path('/slow')
    class Slow {
      @GET() async wait(): Promise<string> {
        entered();
        await gate;
        return 'done';
      }
    }
    const a = app(registry, Slow);
    const pending = a.inject('/api/slow');
    await inside;
    const active = (): number =>
      sampleValue(readExposition(registry.expose()).samples, 'http_server_active_requests', { http_request_method: 'GET' });
    expect(active()).toBe(1);
    release();
    expect(String((await pending).body)).toBe('done');
    expect(active()).toBe(0);
  });

  it('serves the registry at /api/metrics over a real socket, with the scrapes themselves recorded', async () => {
    const registry = new MetricsRegistry();
    const a = app(registry, metricsResource(registry));
    const { port } = await a.listen(0);
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/api/items/7`)).status).toBe(200);
    const first = await fetch(`${base}/api/metrics`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(first.headers.get('cache-control')).toBe('no-store');
    const { samples } = readExposition(await first.text());
    expect(sampleValue(samples, `${DURATION}_count`, { http_route: '/api/items/{id}', http_request_method: 'GET' })).toBe(1);
    // The scrape was in flight while it rendered itself.
    expect(sampleValue(samples, 'http_server_active_requests', { http_request_method: 'GET' })).toBe(1);
    const second = readExposition(await (await fetch(`${base}/api/metrics`)).text()).samples;
    expect(sampleValue(second, `${DURATION}_count`, { http_route: '/api/metrics' })).toBe(1);
  });

  it('refuses options it does not know, and a meter that cannot create instruments', () => {
    expect(() => new HttpMetricsFeature({ meter: new MetricsRegistry(), buckets: [1] } as never)).toThrow(
      'HttpMetricsFeature: unknown option buckets; the options are meter and knownMethods',
    );
    expect(() => new HttpMetricsFeature({} as never)).toThrow(/option meter must create instruments/);
    expect(() => new HttpMetricsFeature({ meter: new MetricsRegistry(), knownMethods: 'GET' as never })).toThrow(
      /knownMethods must be an array/,
    );
  });

  it('records methods outside knownMethods as _OTHER', async () => {
    const registry = new MetricsRegistry();
    const a = new Application({ resources: [Items], providers: [new HttpMetricsFeature({ meter: registry, knownMethods: ['POST'] })] });
    apps.push(a);
    await a.inject('/items/1');
    expect(counts(readExposition(registry.expose()).samples)).toEqual(['_OTHER /items/{id} 200 - 1']);
  });
});

describe('HttpMetricsFeature with an OpenTelemetry Meter (the real SDK)', () => {
  it('records the same instruments, attributes and buckets through the SDK', async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    // The interval is never waited for: forceFlush() collects and exports on demand.
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    const provider = new MeterProvider({ readers: [reader] });
    const meter: Meter = provider.getMeter('http-metrics-test');
    const a = app(meter);
    await a.inject('/api/items/1');
    await a.inject('/api/items/boom');
    await a.inject({ method: 'POST', url: '/api/items', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' });
    await reader.forceFlush();
    const metrics = exporter.getMetrics().at(-1)!.scopeMetrics[0]!.metrics;
    expect(metrics.map((m) => [m.descriptor.name, m.descriptor.unit])).toEqual([
      ['http.server.request.duration', 's'],
      ['http.server.active_requests', '{request}'],
      ['http.server.request.body.size', 'By'],
      ['http.server.response.body.size', 'By'],
    ]);
    const duration = metrics[0]!;
    expect(duration.dataPointType).toBe(DataPointType.HISTOGRAM);
    const points = duration.dataPoints.map((p) => ({
      attributes: p.attributes,
      value: p.value as { count: number; buckets: { boundaries: number[] } },
    }));
    expect(points.map((p) => [p.attributes, p.value.count])).toEqual([
      [{ 'http.request.method': 'GET', 'url.scheme': 'http', 'http.route': '/api/items/{id}', 'http.response.status_code': 200 }, 1],
      [
        {
          'http.request.method': 'GET',
          'url.scheme': 'http',
          'http.route': '/api/items/{id}',
          'http.response.status_code': 500,
          'error.type': 'TypeError',
        },
        1,
      ],
      [{ 'http.request.method': 'POST', 'url.scheme': 'http', 'http.route': '/api/items', 'http.response.status_code': 200 }, 1],
    ]);
    expect(points[0]!.value.buckets.boundaries).toEqual([0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]);
    const active = metrics[1]!;
    expect(active.dataPoints.map((p) => [p.attributes, p.value])).toEqual([
      [{ 'http.request.method': 'GET', 'url.scheme': 'http' }, 0],
      [{ 'http.request.method': 'POST', 'url.scheme': 'http' }, 0],
    ]);
    const requestSizes = metrics[2]!.dataPoints.map((p) => (p.value as { sum: number }).sum);
    expect(requestSizes).toEqual([12]);
    await provider.shutdown();
  });
});
