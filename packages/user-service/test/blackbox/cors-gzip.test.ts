import * as zlib from 'node:zlib';
import { brotliCompressSync, brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { agent, http, removeDir, startServer, type HttpResult, type RunningServer } from '../helpers/server.js';

/**
 * The optional CORS response filter (SPEC: exactly three headers with fixed values on every
 * response, preflights answered) and the content codings (issue 25: zstd where Node has it, br and
 * gzip, chosen by Accept-Encoding when the body is above the threshold; Vary: Accept-Encoding;
 * request bodies decoded in the same codings).
 */

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, PUT, DELETE',
  'access-control-allow-headers': 'X-API-Key, Content-Type',
};

let server: RunningServer;

beforeAll(async () => {
  server = await startServer();
  // Enough users that the unpaged list is well above the 1 KiB compression threshold.
  for (let i = 0; i < 10; i++) {
    const r = await http(server.url, 'POST', '/api/users', {
      body: { email: `gz${i}@example.com`, firstName: 'Gzip', lastName: `User${i}` },
    });
    expect(r.status).toBe(201);
  }
});
afterAll(async () => {
  expect(await server.stop('SIGTERM')).toBe(0);
  removeDir(server.dataDir);
});

function expectCors(r: HttpResult, label: string): void {
  for (const [name, value] of Object.entries(CORS)) expect(r.headers[name], `${label}: ${name}`).toBe(value);
}

/** GET with the raw body bytes (undici does not decode Content-Encoding). */
async function getBytes(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: HttpResult['headers']; bytes: Buffer }> {
  const res = await request(`${server.url}${path}`, { method: 'GET', headers, dispatcher: agent });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers as HttpResult['headers'], bytes };
}

function varyList(headers: HttpResult['headers']): string[] {
  return String(headers.vary ?? '')
    .split(',')
    .map((v) => v.trim().toLowerCase());
}

describe('CORS headers', () => {
  it('are on every response: 2xx, 204, 4xx errors, OPTIONS and HEAD, with the exact SPEC values', async () => {
    const created = await http(server.url, 'POST', '/api/users', { body: { email: 'cors@example.com', firstName: 'Co', lastName: 'Rs' } });
    const cases: [string, Promise<HttpResult> | HttpResult][] = [
      ['GET list', http(server.url, 'GET', '/api/users')],
      ['GET one', http(server.url, 'GET', '/api/users/1')],
      ['201', created],
      ['204', http(server.url, 'DELETE', `/api/users/${created.json().id}`)],
      ['400', http(server.url, 'POST', '/api/users', { body: {} })],
      ['404', http(server.url, 'GET', '/api/users/424242')],
      ['404 unknown path', http(server.url, 'GET', '/nowhere')],
      ['405', http(server.url, 'DELETE', '/api/users')],
      ['415', http(server.url, 'POST', '/api/users', { headers: { 'content-type': 'text/plain' }, body: 'x' })],
      ['401', http(server.url, 'GET', '/api/admin/users')],
      ['OPTIONS', http(server.url, 'OPTIONS', '/api/users/1')],
      ['HEAD', http(server.url, 'HEAD', '/api/users/1')],
      ['health', http(server.url, 'GET', '/api/health')],
      ['orders', http(server.url, 'GET', '/api/users/1/orders')],
    ];
    for (const [label, pending] of cases) expectCors(await pending, label);
  });

  it.each(['/api/users', '/api/users/1', '/api/users/1/orders', '/api/admin/users', '/api/protected/users'])(
    'answers a preflight on %s with 2xx and the three headers, without credentials',
    async (path) => {
      const r = await http(server.url, 'OPTIONS', path, {
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'PUT',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(r.status).toBeGreaterThanOrEqual(200);
      expect(r.status).toBeLessThan(300);
      expectCors(r, `preflight ${path}`);
    },
  );
});

describe('content codings (gzip, br, zstd)', () => {
  it('compresses GET /api/users for Accept-Encoding: gzip, with Vary: Accept-Encoding; it decodes to the plain body', async () => {
    const plain = await getBytes('/api/users');
    expect(plain.bytes.length).toBeGreaterThan(1024);
    const gz = await getBytes('/api/users', { 'accept-encoding': 'gzip' });
    expect(gz.status).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(varyList(gz.headers)).toContain('accept-encoding');
    expect(gz.bytes.length).toBeLessThan(plain.bytes.length);
    if (gz.headers['content-length'] !== undefined) expect(Number(gz.headers['content-length'])).toBe(gz.bytes.length);
    expect(JSON.parse(gunzipSync(gz.bytes).toString('utf8'))).toEqual(JSON.parse(plain.bytes.toString('utf8')));
  });

  // Issue 25 changed this one: the service offers br too, so the heavier br wins (was gzip).
  it('follows the q-values of a typical browser header: br;q=1.0 beats gzip;q=0.8', async () => {
    const br = await getBytes('/api/users', { 'accept-encoding': 'br;q=1.0, gzip;q=0.8, deflate' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(br.bytes).toString('utf8'))).toBeInstanceOf(Array);
    const gz = await getBytes('/api/users', { 'accept-encoding': 'br;q=0.5, gzip;q=0.8, deflate' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gz.bytes).toString('utf8'))).toBeInstanceOf(Array);
  });

  const zstdDecompressSync: unknown = Reflect.get(zlib, 'zstdDecompressSync');
  it.skipIf(typeof zstdDecompressSync !== 'function')('answers zstd, preferred among equal weights, where Node has it', async () => {
    const r = await getBytes('/api/users', { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(r.headers['content-encoding']).toBe('zstd');
    const decode = zstdDecompressSync as (input: Buffer) => Buffer;
    expect(JSON.parse(decode(r.bytes).toString('utf8'))).toBeInstanceOf(Array);
  });

  it('decodes a br request body, and answers 415 listing its codings for deflate', async () => {
    const body = brotliCompressSync(JSON.stringify({ email: 'br@example.com', firstName: 'Bro', lastName: 'Tli' }));
    const headers = { 'content-type': 'application/json', 'content-encoding': 'br' };
    const created = await request(`${server.url}/api/users`, { method: 'POST', headers, body, dispatcher: agent });
    expect(created.statusCode).toBe(201);
    expect(await created.body.json()).toMatchObject({ email: 'br@example.com' });
    const refused = await request(`${server.url}/api/users`, {
      method: 'POST',
      headers: { ...headers, 'content-encoding': 'deflate' },
      body: '{}',
      dispatcher: agent,
    });
    expect(refused.statusCode).toBe(415);
    expect(String(refused.headers['accept-encoding'])).toMatch(/^(zstd, )?br, gzip$/);
    expect(await refused.body.json()).toMatchObject({ status: 415, message: 'Content-Encoding deflate is not supported' });
  });

  it('does not compress without Accept-Encoding, or when every coding it offers is refused', async () => {
    const variants: Record<string, string>[] = [
      {},
      { 'accept-encoding': 'identity' },
      { 'accept-encoding': 'gzip;q=0, br;q=0, zstd;q=0' },
      { 'accept-encoding': '*;q=0' },
      { 'accept-encoding': 'deflate' },
    ];
    for (const headers of variants) {
      const r = await getBytes('/api/users', headers);
      expect(r.status).toBe(200);
      expect(r.headers['content-encoding'], JSON.stringify(headers)).toBeUndefined();
      expect(Array.isArray(JSON.parse(r.bytes.toString('utf8')))).toBe(true);
      expect(varyList(r.headers)).toContain('accept-encoding');
    }
  });

  it('leaves small responses below the threshold uncompressed (still Vary: Accept-Encoding)', async () => {
    const r = await getBytes('/api/users/1', { 'accept-encoding': 'gzip' });
    expect(r.status).toBe(200);
    expect(r.bytes.length).toBeLessThan(1024);
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(r.bytes.toString('utf8'))).toMatchObject({ id: 1 });
    expect(varyList(r.headers)).toContain('accept-encoding');
    const err = await getBytes('/api/users/424242', { 'accept-encoding': 'gzip' });
    expect(err.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(err.bytes.toString('utf8'))).toMatchObject({ status: 404 });
  });

  it('never compresses a 204', async () => {
    const created = await http(server.url, 'POST', '/api/users', { body: { email: 'gone@example.com', firstName: 'Go', lastName: 'Ne' } });
    const res = await request(`${server.url}/api/users/${created.json().id}`, {
      method: 'DELETE',
      headers: { 'accept-encoding': 'gzip' },
      dispatcher: agent,
    });
    const bytes = Buffer.from(await res.body.arrayBuffer());
    expect(res.statusCode).toBe(204);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(bytes.length).toBe(0);
  });
});
