/**
 * serveMetrics: the metrics on a listener of their own, over a real socket (curl and fetch):
 * GET/HEAD of the path answer the text format 0.0.4, another method is 405, another path 404;
 * a port already taken rejects; close() ends keep-alive connections.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { MetricsRegistry, serveMetrics, type MetricsServer } from '../../../../src/index.js';
import { readExposition, sampleValue } from '../../../helpers/prometheus-text.js';

const run = promisify(execFile);

/** curl's status line, headers and body (`-i`), bounded in time. */
async function curl(...args: string[]): Promise<{ status: number; headers: string; body: string }> {
  const { stdout } = await run('curl', ['-sS', '-i', '--max-time', '5', ...args]);
  const split = stdout.indexOf('\r\n\r\n');
  const head = stdout.slice(0, split);
  return { status: Number(/^HTTP\/[\d.]+ (\d{3})/.exec(head)![1]), headers: head.toLowerCase(), body: stdout.slice(split + 4) };
}

const open: MetricsServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function serve(registry: MetricsRegistry, path?: string): Promise<MetricsServer> {
  const s = await serveMetrics(registry, path === undefined ? { port: 0 } : { port: 0, path });
  open.push(s);
  return s;
}

describe('serveMetrics', () => {
  it('answers GET /metrics with the exposition, HEAD without a body, another method 405 and another path 404', async () => {
    const registry = new MetricsRegistry();
    registry.createCounter('jobs.done', { description: 'Jobs.' }).add(3, { 'job.kind': 'export' });
    const { port } = await serve(registry);
    const url = `http://127.0.0.1:${port}/metrics`;
    const ok = await curl(url);
    expect(ok.status).toBe(200);
    expect(ok.headers).toContain('content-type: text/plain; version=0.0.4; charset=utf-8');
    expect(ok.headers).toContain('cache-control: no-store');
    expect(sampleValue(readExposition(ok.body).samples, 'jobs_done_total', { job_kind: 'export' })).toBe(3);
    const withQuery = await curl(`${url}?x=1`);
    expect(withQuery.status).toBe(200);
    const head = await curl('-I', url);
    expect(head.status).toBe(200);
    expect(head.headers).toContain(`content-length: ${Buffer.byteLength(ok.body)}`);
    expect(head.body).toBe('');
    const post = await curl('-X', 'POST', url);
    expect(post.status).toBe(405);
    expect(post.headers).toContain('allow: get, head');
    expect(post.body).toBe('Method Not Allowed: /metrics answers GET and HEAD\n');
    const other = await curl(`http://127.0.0.1:${port}/`);
    expect(other.status).toBe(404);
    expect(other.body).toBe('Not Found: the metrics are at /metrics\n');
  });

  it('serves another path when asked, with the series as they are at each scrape', async () => {
    const registry = new MetricsRegistry();
    const c = registry.createCounter('ticks');
    const { port } = await serve(registry, '/internal/metrics');
    c.add(1);
    const first = await fetch(`http://127.0.0.1:${port}/internal/metrics`);
    expect(await first.text()).toBe('# TYPE ticks_total counter\nticks_total 1\n');
    c.add(1);
    expect(await (await fetch(`http://127.0.0.1:${port}/internal/metrics`)).text()).toContain('ticks_total 2\n');
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
  });

  it('rejects when the port is taken, and refuses a bad port or path at once', async () => {
    const taken: Server = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    try {
      const port = (taken.address() as AddressInfo).port;
      await expect(serveMetrics(new MetricsRegistry(), { port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await new Promise((r) => taken.close(r));
    }
    await expect(serveMetrics(new MetricsRegistry(), { port: 70000 })).rejects.toThrow(
      'serveMetrics: option port must be an integer from 0 to 65535, got 70000',
    );
    await expect(serveMetrics(new MetricsRegistry(), { port: 0, path: 'metrics' })).rejects.toThrow(/option path must start with '\/'/);
    await expect(serveMetrics({} as MetricsRegistry, { port: 0 })).rejects.toThrow(/must be a MetricsRegistry/);
  });

  it('close() stops listening and ends kept-alive connections', async () => {
    const s = await serveMetrics(new MetricsRegistry(), { port: 0 });
    const url = `http://127.0.0.1:${s.port}/metrics`;
    expect((await fetch(url)).status).toBe(200); // the fetch keeps its connection alive
    await s.close();
    await expect(fetch(url)).rejects.toThrow();
  });
});
