/**
 * Black-box tests of the small endpoints: `/test` (plain text), `/api/large-data` (a streamed
 * JSON document, its count cap, gzip, and a client that leaves mid-stream), `/api/custom-data`
 * (a writer interceptor adds `customField`) and the health endpoints.
 */
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agent, http, removeDir, startServer, waitForLine, type RunningServer } from '../helpers/server.js';

const gunzipAsync = promisify(gunzip);

interface LargeData {
  items: { id: number; name: string; value: number }[];
  count: number;
}

describe('misc endpoints (black box)', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    expect(await server.stop('SIGTERM')).toBe(0);
    removeDir(server.dataDir);
  });

  it('GET /test answers 200 text/plain', async () => {
    const r = await http(server.url, 'GET', '/test');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
    expect(r.text).toBe('Test endpoint OK');
  });

  it.each(['/api/health', '/health'])('GET %s answers 200 UP', async (path) => {
    const r = await http(server.url, 'GET', path);
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ status: 'UP' });
  });

  it('GET /api/custom-data answers JSON with customField', async () => {
    const r = await http(server.url, 'GET', '/api/custom-data');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    const body = r.json();
    expect(body).toHaveProperty('customField');
    expect(typeof body.customField).toBe('string');
    expect(typeof body.message).toBe('string');
  });

  it('GET /api/large-data?count=5000 streams one valid JSON document with 5000 items', async () => {
    const r = await http(server.url, 'GET', '/api/large-data?count=5000');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    // Streamed: no Content-Length, chunked transfer.
    expect(r.headers['content-length']).toBeUndefined();
    expect(r.headers['transfer-encoding']).toBe('chunked');
    const doc = r.json<LargeData>();
    expect(doc.count).toBe(5000);
    expect(doc.items).toHaveLength(5000);
    expect(doc.items.map((i) => i.id)).toEqual(Array.from({ length: 5000 }, (_, i) => i + 1));
    expect(doc.items[0]).toMatchObject({ id: 1, name: 'Item 1' });
  });

  it('answers the default count without a query and an empty document for count=0', async () => {
    const d = (await http(server.url, 'GET', '/api/large-data')).json<LargeData>();
    expect(d.items).toHaveLength(d.count);
    expect(d.count).toBeGreaterThan(0);
    const zero = await http(server.url, 'GET', '/api/large-data?count=0');
    expect(zero.json()).toEqual({ items: [], count: 0 });
  });

  it.each(['1000001', '99999999', '-1', 'abc', '1e3', '10.5'])('answers 400 for count=%s', async (count) => {
    const r = await http(server.url, 'GET', `/api/large-data?count=${count}`);
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ status: 400, error: 'Bad Request' });
  });

  it('gzips the stream when asked and the result is the same document', async () => {
    const res = await request(`${server.url}/api/large-data?count=2000`, { headers: { 'accept-encoding': 'gzip' }, dispatcher: agent });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    const raw = Buffer.from(await res.body.arrayBuffer());
    const doc = JSON.parse((await gunzipAsync(raw)).toString('utf8')) as LargeData;
    expect(doc.items).toHaveLength(2000);
    expect(doc.items[1999]!.id).toBe(2000);
  });

  it('survives a client that aborts mid-stream and serves the next request', async () => {
    const res = await request(`${server.url}/api/large-data?count=1000000`, {
      headers: { 'x-request-id': 'abort-mid-stream' },
      dispatcher: agent,
    });
    expect(res.statusCode).toBe(200);
    let received = 0;
    for await (const chunk of res.body) {
      received += (chunk as Buffer).length;
      if (received > 64 * 1024) break; // leaving the loop destroys the body and its socket
    }
    expect(received).toBeGreaterThan(64 * 1024);
    // The server logs the request when the stream ends (here: when it notices the client left).
    const line = JSON.parse(await waitForLine(server, (l) => l.includes('"requestId":"abort-mid-stream"')));
    expect(line).toMatchObject({ method: 'GET', path: '/api/large-data' });
    expect(server.process.exitCode).toBeNull();
    const next = await http(server.url, 'GET', '/api/large-data?count=3');
    expect(next.status).toBe(200);
    expect(next.json<LargeData>().count).toBe(3);
    expect((await http(server.url, 'GET', '/api/health')).status).toBe(200);
  });

  it('answers 405 for a wrong method on a known path and 404 for an unknown path', async () => {
    expect((await http(server.url, 'DELETE', '/test')).status).toBe(405);
    expect((await http(server.url, 'GET', '/api/does-not-exist')).status).toBe(404);
  });
});
