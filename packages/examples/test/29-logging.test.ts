import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/29-logging/app.js';
import { listen, send, type Running } from './helpers/http.js';

/** The JSON lines the example writes, parsed. */
class Lines extends Writable {
  readonly lines: Record<string, unknown>[] = [];
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    for (const l of chunk.toString('utf8').split('\n')) if (l !== '') this.lines.push(JSON.parse(l) as Record<string, unknown>);
    cb();
  }
  of(reqId: unknown): Record<string, unknown>[] {
    return this.lines.filter((l) => l.reqId === reqId);
  }
}

/** Resolves once `lines` has `n` lines for `reqId` (the access line is written as the response ends). */
async function linesFor(lines: Lines, reqId: unknown, n: number): Promise<Record<string, unknown>[]> {
  for (let i = 0; i < 200 && lines.of(reqId).length < n; i++) await new Promise((r) => setImmediate(r));
  return lines.of(reqId);
}

describe('29 logging: request ids, request logger, access line, request context', () => {
  let server: Running;
  const out = new Lines();

  beforeAll(async () => {
    server = await listen(createApp({ destination: out }));
  });
  afterAll(async () => {
    await server.close();
  });

  it('keeps a safe X-Request-Id, echoes it, and the repository logs with the id and route through currentRequest()', async () => {
    const r = await send(server.url, '/api/orders/1', { headers: { 'x-request-id': 'demo-1', 'user-agent': 'example-test' } });
    expect(r.status).toBe(200);
    expect(r.headers['x-request-id']).toBe('demo-1');
    const [lookup, access] = await linesFor(out, 'demo-1', 2);
    expect(lookup).toMatchObject({
      level: 30,
      reqId: 'demo-1',
      method: 'GET',
      route: '/api/orders/{id}',
      orderId: 1,
      found: true,
      msg: 'order lookup',
    });
    expect(access).toMatchObject({
      level: 30,
      reqId: 'demo-1',
      method: 'GET',
      route: '/api/orders/{id}',
      path: '/api/orders/1',
      status: 200,
      responseBytes: r.body.length,
      remoteAddress: '127.0.0.1',
      userAgent: 'example-test',
      msg: 'request completed',
    });
    expect(typeof access!.durationMs).toBe('number');
  });

  it('replaces an unsafe id with a UUID, never echoing or logging it', async () => {
    const r = await send(server.url, '/api/orders/2', { headers: { 'x-request-id': 'bad id!' } });
    expect(r.status).toBe(404);
    const id = r.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect((await linesFor(out, id, 2)).map((l) => l.msg)).toEqual(['order lookup', 'request completed']);
    expect(JSON.stringify(out.lines)).not.toContain('bad id!');
  });

  it('a 500: the cause is logged with the request id and route, never sent', async () => {
    const r = await send(server.url, '/api/orders/1/crash', { headers: { 'x-request-id': 'crash-1' } });
    expect(r.status).toBe(500);
    expect(r.text).not.toContain('warehouse');
    const lines = await linesFor(out, 'crash-1', 2);
    expect(lines[0]).toMatchObject({ level: 50, reqId: 'crash-1', route: '/api/orders/{id}/crash', msg: 'the warehouse is on fire' });
    expect(lines[1]).toMatchObject({ status: 500, msg: 'request completed' });
  });

  it('an unmatched path: the access line has no route, the raw path only as path', async () => {
    const r = await send(server.url, '/api/nothing/here', { headers: { 'x-request-id': 'nf-1' } });
    expect(r.status).toBe(404);
    const [access] = await linesFor(out, 'nf-1', 1);
    expect(access).toMatchObject({ status: 404, path: '/api/nothing/here' });
    expect(access).not.toHaveProperty('route');
  });
});
