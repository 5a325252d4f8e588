import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The public entry (it loads reflect-metadata, which tsyringe needs).
import { Application, CorsFilter, Entity, GET, GzipFeature, Path, POST, Produces } from '../../../src/index.js';
import { rawRoundTrip, splitResponse } from '../../helpers/raw-socket.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);
const users = Array.from({ length: 200 }, (_, i) => ({ id: i + 1, email: `user${i}@example.com` }));

@Path('/api/users')
class UserResource {
  @GET()
  @Produces('application/json')
  list(): unknown {
    return users;
  }

  @GET('small')
  @Produces('application/json')
  small(): unknown {
    return { id: 1 };
  }

  @POST()
  @Produces('application/json')
  create(@Entity() body: Record<string, unknown>): unknown {
    return { received: body };
  }
}

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function call(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: Buffer): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, timeout: 5000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

// Over a real loopback socket: the features as registered through the application, not fakes.
describe('gzip and CORS in the pipeline', () => {
  const app = new Application({
    resources: [UserResource],
    providers: [new GzipFeature(), new CorsFilter()],
    limits: { bodyLimit: 64 * 1024 },
  });
  let port = 0;
  beforeAll(async () => {
    port = ((await app.listen(0)) as AddressInfo).port;
  });
  afterAll(() => app.close(1000));

  it('compresses a large JSON response for a client that accepts gzip, with the CORS headers', async () => {
    const r = await call(port, 'GET', '/api/users', { 'accept-encoding': 'gzip, deflate, br', origin: 'https://app.example' });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(r.headers.vary).toBe('Accept-Encoding');
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.headers['access-control-allow-methods']).toBe('GET, POST, PUT, DELETE');
    expect(r.headers['access-control-allow-headers']).toBe('X-API-Key, Content-Type');
    expect(Number(r.headers['content-length'])).toBe(r.body.length);
    expect(JSON.parse((await gunzipAsync(r.body)).toString())).toEqual(users);
  });

  it('sends identity to a client that does not accept gzip, and small bodies uncompressed', async () => {
    const plain = await call(port, 'GET', '/api/users');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('Accept-Encoding');
    expect(JSON.parse(plain.body.toString())).toEqual(users);
    const small = await call(port, 'GET', '/api/users/small', { 'accept-encoding': 'gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.body.toString())).toEqual({ id: 1 });
  });

  it('HEAD sends the headers GET would send', async () => {
    // Raw, read until the server closes: node:http's client never hands over a HEAD body, so a
    // body count taken there could not fail.
    const head = splitResponse(
      await rawRoundTrip(port, 'HEAD /api/users HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n'),
    );
    const get = await call(port, 'GET', '/api/users', { 'accept-encoding': 'gzip' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-encoding']).toBe('gzip');
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
  });

  it('decodes a gzip request body', async () => {
    const json = Buffer.from(JSON.stringify({ email: 'a@example.com', note: 'x'.repeat(5000) }));
    const gz = await gzipAsync(json);
    const r = await call(port, 'POST', '/api/users', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, gz);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body.toString())).toEqual({ received: JSON.parse(json.toString()) });
  });

  it('answers a gzip bomb with 413 over the socket', async () => {
    const bomb = await gzipAsync(Buffer.alloc(10 * 1024 * 1024, 0x20));
    const r = await call(port, 'POST', '/api/users', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, bomb);
    expect(r.status).toBe(413);
  });

  it('answers corrupt gzip with 400 and an unknown coding with 415 + Accept-Encoding', async () => {
    const corrupt = await call(
      port,
      'POST',
      '/api/users',
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      Buffer.from('{"a":1}'),
    );
    expect(corrupt.status).toBe(400);
    const br = await call(
      port,
      'POST',
      '/api/users',
      { 'content-type': 'application/json', 'content-encoding': 'br' },
      Buffer.from('{"a":1}'),
    );
    expect(br.status).toBe(415);
    expect(br.headers['accept-encoding']).toBe('gzip');
  });

  it('answers a preflight with 204 before matching, even for a path without OPTIONS', async () => {
    const r = await call(port, 'OPTIONS', '/api/users/small', {
      origin: 'https://app.example',
      'access-control-request-method': 'DELETE',
      'access-control-request-headers': 'x-api-key',
    });
    expect(r.status).toBe(204);
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.headers['access-control-allow-methods']).toBe('GET, POST, PUT, DELETE');
    expect(r.headers['access-control-allow-headers']).toBe('X-API-Key, Content-Type');
  });
});
