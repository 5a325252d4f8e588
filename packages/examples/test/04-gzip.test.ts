import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/04-gzip/app.js';
import { listen, send, type Running } from './helpers/http.js';

const gunzipAsync = promisify(gunzip);

describe('04 gzip: a writer interceptor at ENTITY_CODER, negotiated on Accept-Encoding', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp());
  });
  afterAll(() => server.close());

  it('compresses when the client accepts gzip; the body decompresses to the JSON', async () => {
    const r = await send(server.url, '/api/report', { headers: { 'accept-encoding': 'gzip, deflate' } });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(r.headers.vary).toBe('Accept-Encoding');
    expect(r.headers['content-type']).toBe('application/json');
    const plain = await gunzipAsync(r.body);
    const rows = JSON.parse(plain.toString('utf8')) as unknown[];
    expect(rows).toHaveLength(500);
    expect(rows[0]).toEqual({ id: 1, region: 'north', revenue: 0 });
    // Content-Length is the compressed size; the USER interceptor inside gzip saw the plain body.
    expect(Number(r.headers['content-length'])).toBe(r.body.length);
    expect(Number(r.headers['x-identity-length'])).toBe(plain.length);
    expect(r.body.length).toBeLessThan(plain.length / 4);
  });

  it('sends identity without Accept-Encoding, still with Vary (a cache must keep both variants apart)', async () => {
    const r = await send(server.url, '/api/report');
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.headers.vary).toBe('Accept-Encoding');
    expect(r.json<unknown[]>()).toHaveLength(500);
  });

  it('respects a refusal (gzip;q=0)', async () => {
    const r = await send(server.url, '/api/report', { headers: { 'accept-encoding': 'gzip;q=0, identity' } });
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.json<unknown[]>()).toHaveLength(500);
  });

  it('leaves bodies under the threshold alone', async () => {
    const r = await send(server.url, '/api/ping', { headers: { 'accept-encoding': 'gzip' } });
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.headers.vary).toBe('Accept-Encoding');
    expect(r.json()).toEqual({ ok: true });
  });

  it('in-process: inject sees the same compressed bytes', async () => {
    const r = await createApp().inject({ url: '/api/report?rows=100', headers: { 'accept-encoding': 'gzip' } });
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse((await gunzipAsync(r.body)).toString('utf8'))).toHaveLength(100);
  });
});
