import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetricsRegistry, serveMetrics, type MetricsServer } from '@jaxrs-node/pipeline';
import { createApp } from '../src/30-metrics/app.js';
import { listen, send, type Running } from './helpers/http.js';

/** The sample line `name{...}` holding every given `label="value"`, as a number. */
function sample(text: string, name: string, ...labels: string[]): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && labels.every((label) => l.includes(label)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('30 metrics, over a real socket', () => {
  const registry = new MetricsRegistry();
  let server: Running;
  let metrics: MetricsServer;
  beforeAll(async () => {
    server = await listen(createApp(registry));
    metrics = await serveMetrics(registry, { port: 0 });
  });
  afterAll(async () => {
    await server.close();
    await metrics.close();
  });

  it('labels the HTTP metrics by route template, status and method, and counts the orders created', async () => {
    expect((await send(server.url, '/api/orders/1')).status).toBe(200);
    expect((await send(server.url, '/api/orders/2')).status).toBe(200);
    expect((await send(server.url, '/api/orders/9')).status).toBe(404);
    expect((await send(server.url, '/api/orders', { method: 'POST', body: { item: 'cake' } })).status).toBe(201);
    const res = await send(server.url, '/api/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const count = 'http_server_request_duration_seconds_count';
    expect(sample(res.text, count, 'http_route="/api/orders/{id}"', 'http_response_status_code="200"')).toBe(2);
    expect(sample(res.text, count, 'http_route="/api/orders/{id}"', 'http_response_status_code="404"')).toBe(1);
    expect(sample(res.text, count, 'http_request_method="POST"', 'http_route="/api/orders"', 'http_response_status_code="201"')).toBe(1);
    expect(res.text).not.toContain('/api/orders/1"');
    expect(res.text).toContain('# HELP shop_orders_created_total Orders created.\n# TYPE shop_orders_created_total counter\n');
    expect(sample(res.text, 'shop_orders_created_total', 'order_item="cake"')).toBe(1);
  });

  it('serves the same registry on a listener of its own', async () => {
    await send(server.url, '/api/orders/1');
    const res = await send(`http://127.0.0.1:${metrics.port}`, '/metrics');
    expect(res.status).toBe(200);
    expect(
      sample(res.text, 'http_server_request_duration_seconds_count', 'http_route="/api/orders/{id}"', 'http_response_status_code="200"'),
    ).toBeGreaterThanOrEqual(1);
    expect((await send(`http://127.0.0.1:${metrics.port}`, '/api/orders/1')).status).toBe(404);
  });
});
