import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agent, http, removeDir, startServer, type RunningServer } from '../helpers/server.js';

/**
 * METRICS_PORT: the service serves Prometheus metrics on a listener of its own, never on the
 * public port: HTTP server metrics labelled by route template (never the raw path), and the
 * store's commit latency (journal: also its write + fsync; etcd: also every round trip to a
 * member) as histograms of their own. Black-box: a real process, scraped over a real socket.
 * Under the etcd project each server is two instances: the one whose metrics line comes first
 * is scraped, and it answered at least one of the alternating requests.
 */
let server: RunningServer;
let metricsUrl: string;
const etcd = process.env.BLACKBOX_STORE === 'etcd';

beforeAll(async () => {
  server = await startServer({ env: { METRICS_PORT: '0' } });
  const line = server.stdout.find((l) => l.startsWith('metrics on '));
  const m = /^metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)$/.exec(line ?? '');
  if (m === null) throw new Error(`no "metrics on" line before "listening on": ${server.stdout.join('\n')}`);
  metricsUrl = m[1]!;
});
afterAll(async () => {
  expect(await server.stop('SIGTERM')).toBe(0);
  removeDir(server.dataDir);
});

async function scrape(): Promise<{ status: number; type: unknown; text: string }> {
  const res = await request(metricsUrl, { dispatcher: agent });
  return { status: res.statusCode, type: res.headers['content-type'], text: await res.body.text() };
}

/** The value of the sample line with this name whose labels include every `label="value"` given. */
function sample(text: string, name: string, ...labels: string[]): number | undefined {
  const line = text
    .split('\n')
    .find((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && labels.every((label) => l.includes(label)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('metrics on METRICS_PORT', () => {
  it('counts requests by route template, method and status, never by raw path', async () => {
    for (const id of [1, 2, 1, 2]) {
      expect((await http(server.url, 'GET', `/api/users/${id}`, { headers: { 'x-api-version': '1' } })).status).toBe(200);
    }
    expect((await http(server.url, 'GET', '/api/users/999999', { headers: { 'x-api-version': '1' } })).status).toBe(404);
    const m = await scrape();
    expect(m.status).toBe(200);
    expect(m.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(m.text).toContain('# TYPE http_server_request_duration_seconds histogram\n');
    const ok = sample(
      m.text,
      'http_server_request_duration_seconds_count',
      'http_request_method="GET"',
      'http_route="/api/users/{id}"',
      'http_response_status_code="200"',
      'url_scheme="http"',
    );
    expect(ok).toBeGreaterThanOrEqual(etcd ? 1 : 4);
    if (!etcd) {
      const notFound = sample(
        m.text,
        'http_server_request_duration_seconds_count',
        'http_route="/api/users/{id}"',
        'http_response_status_code="404"',
      );
      expect(notFound).toBe(1);
    }
    expect(m.text).not.toMatch(/\/api\/users\/(1|2|999999)"/);
    expect(m.text).toContain('# TYPE http_server_active_requests gauge\n');
    expect(m.text).toContain('# TYPE http_server_response_body_size_bytes histogram\n');
  });

  it('has the store commit latency as its own histogram (and the journal flush, or the etcd round trips)', async () => {
    // Under etcd the two POSTs go one to each instance (the pair alternates), so the scraped one
    // commits whichever instance seeded the demo data at start-up.
    for (const n of etcd ? [1, 2] : [1]) {
      const created = await http(server.url, 'POST', '/api/users', {
        headers: { 'x-api-version': '1' },
        body: { email: `metrics${n}@example.com`, firstName: 'Metric', lastName: 'Scrape', age: 30 },
      });
      expect(created.status).toBe(201);
    }
    const { text } = await scrape();
    const kind = etcd ? 'etcd' : 'journal';
    expect(text).toContain('# TYPE user_service_store_commit_duration_seconds histogram\n');
    // The demo seed commits at start-up on the instance that seeds; every POST commits once more.
    expect(sample(text, 'user_service_store_commit_duration_seconds_count', `store_kind="${kind}"`)).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'user_service_store_commit_duration_seconds_bucket', `store_kind="${kind}"`, 'le="+Inf"')).toBe(
      sample(text, 'user_service_store_commit_duration_seconds_count', `store_kind="${kind}"`),
    );
    if (etcd) {
      expect(
        sample(text, 'user_service_etcd_request_duration_seconds_count', 'etcd_client="store"', 'etcd_path="/v3/kv/txn"'),
      ).toBeGreaterThanOrEqual(1);
      expect(text).not.toContain('user_service_store_flush_duration_seconds');
    } else {
      expect(sample(text, 'user_service_store_flush_duration_seconds_count', 'store_kind="journal"')).toBeGreaterThanOrEqual(1);
      expect(text).not.toContain('user_service_etcd_request_duration_seconds');
    }
  });

  it('is not served on the public port, and the metrics listener answers nothing else', async () => {
    expect((await http(server.url, 'GET', '/metrics')).status).toBe(404);
    expect((await http(server.url, 'GET', '/api/metrics', { headers: { 'x-api-version': '1' } })).status).toBe(404);
    const other = await request(metricsUrl.replace(/\/metrics$/, '/api/users/1'), { dispatcher: agent });
    expect(other.statusCode).toBe(404);
    await other.body.dump();
  });
});
