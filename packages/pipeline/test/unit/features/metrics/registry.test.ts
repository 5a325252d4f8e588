/**
 * MetricsRegistry and its Prometheus text exposition (format 0.0.4): the exact text, names as
 * OpenTelemetry's Prometheus compatibility specification converts them, escaping, cumulative
 * buckets; and the same text read back by an independent parser (parse-prometheus-text-format,
 * a port of prom2json and of the Python client's parser).
 */
import { describe, expect, it } from 'vitest';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { MetricsRegistry, PROMETHEUS_CONTENT_TYPE } from '../../../../src/index.js';
import { labelName, prometheusName } from '../../../../src/features/metrics/prometheus-names.js';
import { readExposition, sampleValue } from '../../../helpers/prometheus-text.js';

const NO_LABELS = Object.freeze({});

describe('MetricsRegistry exposition', () => {
  it('renders counters, up-down counters, gauges and histograms in the text format 0.0.4, exactly', () => {
    const r = new MetricsRegistry();
    const jobs = r.createCounter('jobs.done', { description: 'Jobs finished.', unit: '{job}' });
    jobs.add(2, { 'job.kind': 'export' });
    jobs.add(1.5, { 'job.kind': 'export' });
    jobs.add(1, { 'job.kind': 'import' });
    const queue = r.createUpDownCounter('queue.length', { description: 'Items waiting.' });
    queue.add(3);
    queue.add(-1);
    const temp = r.createGauge('room.temperature', { unit: 'Cel' });
    temp.record(21.5, { room: 'a' });
    temp.record(19, { room: 'a' });
    const latency = r.createHistogram('store.commit.duration', {
      description: 'Commit latency.',
      unit: 's',
      advice: { explicitBucketBoundaries: [0.01, 0.1, 1] },
    });
    for (const v of [0.005, 0.01, 0.05, 2]) latency.record(v, { op: 'put' });
    expect(r.expose()).toBe(
      [
        '# HELP jobs_done_total Jobs finished.',
        '# TYPE jobs_done_total counter',
        'jobs_done_total{job_kind="export"} 3.5',
        'jobs_done_total{job_kind="import"} 1',
        '# HELP queue_length Items waiting.',
        '# TYPE queue_length gauge',
        'queue_length 2',
        '# TYPE room_temperature_celsius gauge',
        'room_temperature_celsius{room="a"} 19',
        '# HELP store_commit_duration_seconds Commit latency.',
        '# TYPE store_commit_duration_seconds histogram',
        'store_commit_duration_seconds_bucket{op="put",le="0.01"} 2',
        'store_commit_duration_seconds_bucket{op="put",le="0.1"} 3',
        'store_commit_duration_seconds_bucket{op="put",le="1"} 3',
        'store_commit_duration_seconds_bucket{op="put",le="+Inf"} 4',
        'store_commit_duration_seconds_sum{op="put"} 2.065',
        'store_commit_duration_seconds_count{op="put"} 4',
        '',
      ].join('\n'),
    );
    expect(PROMETHEUS_CONTENT_TYPE).toBe('text/plain; version=0.0.4; charset=utf-8');
  });

  it('escapes label values (backslash, double quote, line feed) and HELP text (backslash, line feed)', () => {
    const r = new MetricsRegistry();
    r.createCounter('odd', { description: 'A \\ "quoted"\nhelp' }).add(1, { path: 'C:\\DIR\\"F"\nx', n: 7, ok: true });
    const text = r.expose();
    expect(text).toBe(
      [
        '# HELP odd_total A \\\\ "quoted"\\nhelp',
        '# TYPE odd_total counter',
        'odd_total{n="7",ok="true",path="C:\\\\DIR\\\\\\"F\\"\\nx"} 1',
        '',
      ].join('\n'),
    );
    const [family] = parsePrometheusTextFormat(text);
    expect(family!.help).toBe('A \\ "quoted"\nhelp');
    expect(family!.metrics[0]!.labels).toEqual({ n: '7', ok: 'true', path: 'C:\\DIR\\"F"\nx' });
  });

  it('is read back by an independent parser: types, labels, cumulative buckets, sum and count', () => {
    const r = new MetricsRegistry();
    const h = r.createHistogram('http.server.request.duration', { unit: 's', advice: { explicitBucketBoundaries: [0.1, 1] } });
    h.record(0.05, { 'http.route': '/users/{id}', 'http.response.status_code': 200 });
    h.record(0.5, { 'http.route': '/users/{id}', 'http.response.status_code': 200 });
    h.record(5, { 'http.route': '/users/{id}', 'http.response.status_code': 200 });
    h.record(0.2, { 'http.response.status_code': 404 });
    r.createUpDownCounter('http.server.active_requests', { unit: '{request}' }).add(1, { 'http.request.method': 'GET' });
    const { families, samples } = readExposition(r.expose());
    expect(families.map((f) => [f.name, f.type])).toEqual([
      ['http_server_request_duration_seconds', 'HISTOGRAM'],
      ['http_server_active_requests', 'GAUGE'],
    ]);
    const route = { http_route: '/users/{id}', http_response_status_code: '200' };
    const name = 'http_server_request_duration_seconds';
    expect(['0.1', '1', '+Inf'].map((le) => sampleValue(samples, `${name}_bucket`, { ...route, le }))).toEqual([1, 2, 3]);
    expect(sampleValue(samples, `${name}_sum`, route)).toBeCloseTo(5.55);
    expect(sampleValue(samples, `${name}_count`, route)).toBe(3);
    const notFound = { http_response_status_code: '404' };
    expect(['0.1', '1', '+Inf'].map((le) => sampleValue(samples, `${name}_bucket`, { ...notFound, le }))).toEqual([0, 1, 1]);
    expect(samples.filter((s) => s.name === `${name}_bucket`).map((s) => Object.keys(s.labels).length)).toEqual([3, 3, 3, 2, 2, 2]);
    expect(sampleValue(samples, 'http_server_active_requests', { http_request_method: 'GET' })).toBe(1);
  });

  it('finds the series of a frozen attribute object by identity, and a mutable one by its values each time', () => {
    const r = new MetricsRegistry();
    const c = r.createCounter('c');
    const frozen = Object.freeze({ a: 'x' });
    c.add(1, frozen);
    c.add(1, frozen);
    const mutable: Record<string, string> = { a: 'x' };
    c.add(1, mutable);
    mutable.a = 'y';
    c.add(1, mutable);
    c.add(1, { a: 'x', skipped: undefined });
    expect(r.expose()).toContain('c_total{a="x"} 4\nc_total{a="y"} 1\n');
    // Two frozen objects in turn: each keeps its own series.
    const other = Object.freeze({ a: 'z' });
    for (const attrs of [frozen, other, other, frozen, NO_LABELS, frozen]) c.add(1, attrs);
    expect(r.expose()).toBe('# TYPE c_total counter\nc_total{a="x"} 7\nc_total{a="y"} 1\nc_total{a="z"} 2\nc_total 1\n');
  });

  it('drops what an instrument cannot take (negative or non-finite counts, NaN) instead of throwing', () => {
    const r = new MetricsRegistry();
    const c = r.createCounter('c');
    c.add(-1);
    c.add(Number.NaN);
    c.add(Infinity);
    c.add(2);
    const h = r.createHistogram('h', { advice: { explicitBucketBoundaries: [1] } });
    h.record(-0.5);
    h.record(Number.NaN);
    h.record(1);
    const u = r.createUpDownCounter('u');
    u.add(-3);
    u.add(Number.NaN);
    expect(r.expose()).toBe(
      [
        '# TYPE c_total counter',
        'c_total 2',
        '# TYPE h histogram',
        'h_bucket{le="1"} 1',
        'h_bucket{le="+Inf"} 1',
        'h_sum 1',
        'h_count 1',
        '# TYPE u gauge',
        'u -3',
        '',
      ].join('\n'),
    );
  });

  it("uses OpenTelemetry's default buckets for a histogram created without advice", () => {
    const r = new MetricsRegistry();
    r.createHistogram('work.time', { unit: 'ms' }).record(7);
    const [family] = parsePrometheusTextFormat(r.expose());
    expect(family!.name).toBe('work_time_milliseconds');
    expect(Object.keys(family!.metrics[0]!.buckets!)).toEqual([
      '0',
      '5',
      '10',
      '25',
      '50',
      '75',
      '100',
      '250',
      '500',
      '750',
      '1000',
      '2500',
      '5000',
      '7500',
      '10000',
      '+Inf',
    ]);
  });

  it('hands back the same instrument for the same name, and refuses a clash that would make two metrics of one name', () => {
    const r = new MetricsRegistry();
    const a = r.createCounter('x.count', { unit: '{item}' });
    const b = r.createCounter('x.count', { unit: '{item}' });
    a.add(1);
    b.add(1);
    expect(r.expose()).toContain('x_count_total 2\n');
    expect(() => r.createHistogram('x.count')).toThrow(/x\.count already exists as a counter of unit \{item\}/);
    expect(() => r.createCounter('x_count', { unit: '{item}' })).toThrow(/x_count and x\.count would both be exposed as x_count_total/);
    expect(() => r.createCounter('9lives')).toThrow(/instrument name "9lives" is not valid/);
    expect(() => r.createHistogram('h', { advice: { explicitBucketBoundaries: [1, 1] } })).toThrow(/increasing order/);
  });

  it('exposes nothing for an empty registry, and HELP/TYPE alone for an instrument never recorded', () => {
    const r = new MetricsRegistry();
    expect(r.expose()).toBe('');
    r.createHistogram('idle', { description: 'Never used.' });
    expect(r.expose()).toBe('# HELP idle Never used.\n# TYPE idle histogram\n');
    expect(parsePrometheusTextFormat(r.expose())).toEqual([{ name: 'idle', help: 'Never used.', type: 'HISTOGRAM', metrics: [] }]);
  });
});

describe('OpenTelemetry to Prometheus names', () => {
  it.each([
    ['http.server.request.duration', 's', 'histogram', 'http_server_request_duration_seconds'],
    ['http.server.request.body.size', 'By', 'histogram', 'http_server_request_body_size_bytes'],
    ['http.server.active_requests', '{request}', 'gauge', 'http_server_active_requests'],
    ['jobs.done', undefined, 'counter', 'jobs_done_total'],
    ['jobs.done_total', undefined, 'counter', 'jobs_done_total'],
    ['io.traffic', 'By', 'counter', 'io_traffic_bytes_total'],
    ['cpu.utilization', '1', 'gauge', 'cpu_utilization_ratio'],
    ['throughput', 'By/s', 'gauge', 'throughput_bytes_per_second'],
    ['queue.wait_seconds', 's', 'histogram', 'queue_wait_seconds'],
    ['a..b--c', undefined, 'gauge', 'a_b_c'],
  ] as const)('%s (%s, %s) is %s', (name, unit, type, expected) => {
    expect(prometheusName(name, unit, type)).toBe(expected);
  });

  it('turns attribute names into label names', () => {
    expect(labelName('http.response.status_code')).toBe('http_response_status_code');
    expect(labelName('2xx')).toBe('key_2xx');
  });

  it('gives key_ to the label names Prometheus reserves: le on a histogram, __ names, the empty name', () => {
    expect(labelName('le', 'histogram')).toBe('key_le');
    expect(labelName('le', 'counter')).toBe('le');
    expect(labelName('__name__', 'gauge')).toBe('key___name__');
    expect(labelName('')).toBe('key_');
    expect(labelName('_private')).toBe('_private');
  });

  it('an attribute named le on a histogram, __name__ or empty still gives a valid exposition (each bucket line has one le)', () => {
    const r = new MetricsRegistry();
    const h = r.createHistogram('queue.wait', { unit: 's', advice: { explicitBucketBoundaries: [1] } });
    h.record(0.5, { le: 'mine', __name__: 'other', '': 'blank' });
    r.createCounter('jobs').add(1, { le: 'kept' });
    const text = r.expose();
    // No sample line names a label twice (Prometheus refuses the scrape), none starts with __, none is empty.
    for (const line of text.split('\n').filter((l) => l !== '' && !l.startsWith('#'))) {
      const names = [...line.matchAll(/[{,]([^=,{}]*)="/g)].map((m) => m[1]!);
      expect(new Set(names).size, line).toBe(names.length);
      for (const n of names) expect(n, line).toMatch(/^(?!__)[a-zA-Z_][a-zA-Z0-9_]*$/);
    }
    const { samples } = readExposition(text);
    const own = { key_le: 'mine', key___name__: 'other', key_: 'blank' };
    expect(['1', '+Inf'].map((le) => sampleValue(samples, 'queue_wait_seconds_bucket', { ...own, le }))).toEqual([1, 1]);
    expect(sampleValue(samples, 'queue_wait_seconds_count', own)).toBe(1);
    expect(sampleValue(samples, 'jobs_total', { le: 'kept' })).toBe(1);
  });
});
