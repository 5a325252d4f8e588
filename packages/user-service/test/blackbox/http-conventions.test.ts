import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, removeDir, startServer, type HttpResult, type RunningServer } from '../helpers/server.js';

/**
 * SPEC "General HTTP conventions" on every public resource: HEAD is GET without a body (same
 * headers), OPTIONS lists the methods in Allow, a wrong method is 405 with the same Allow, bodies
 * of an unsupported type are 415, oversized ones 413, and every 201 carries a Location that
 * resolves to the new resource. Per-resource PUT/PATCH/DELETE semantics: users-update.test.ts.
 */

let server: RunningServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  expect(await server.stop('SIGTERM')).toBe(0);
  removeDir(server.dataDir);
});

/** Path -> the methods it supports (HEAD and OPTIONS included). */
const RESOURCES: Record<string, string[]> = {
  '/api/users': ['GET', 'HEAD', 'OPTIONS', 'POST'],
  '/api/users/1': ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'PUT'],
  '/api/users/search': ['GET', 'HEAD', 'OPTIONS'],
  '/api/users/create': ['OPTIONS', 'POST'],
  '/api/users/1/orders': ['GET', 'HEAD', 'OPTIONS', 'POST'],
  '/api/users/1/orders/1': ['GET', 'HEAD', 'OPTIONS'],
  '/api/users/1/orders/1/status': ['OPTIONS', 'PUT'],
  '/api/health': ['GET', 'HEAD', 'OPTIONS'],
  '/health': ['GET', 'HEAD', 'OPTIONS'],
  '/api/schema/user': ['GET', 'HEAD', 'OPTIONS'],
  '/api/products/1': ['GET', 'HEAD', 'OPTIONS'],
  '/test': ['GET', 'HEAD', 'OPTIONS'],
};

/** Headers that legitimately differ between two requests. */
const VOLATILE = new Set(['date', 'x-request-id', 'x-rate-limit-remaining', 'x-rate-limit-reset', 'ratelimit', 'keep-alive', 'connection']);

function stable(headers: HttpResult['headers']): Record<string, unknown> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !VOLATILE.has(k.toLowerCase())));
}

function allowOf(r: HttpResult): string[] {
  return String(r.headers.allow ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean)
    .sort();
}

describe('HEAD', () => {
  const GET_PATHS = [
    '/api/users',
    '/api/users?page=0&size=2',
    '/api/users/1',
    '/api/users/search?email=example',
    '/api/users/1/orders',
    '/api/users/1/orders/1',
    '/api/health',
    '/health',
    '/api/schema/user',
    '/api/products/1',
    '/test',
    '/api/users/424242',
  ];

  it.each(GET_PATHS)('HEAD %s has the status and headers of GET and no body', async (path) => {
    const get = await http(server.url, 'GET', path);
    const head = await http(server.url, 'HEAD', path);
    expect(head.status).toBe(get.status);
    expect(head.text).toBe('');
    expect(stable(head.headers)).toEqual(stable(get.headers));
  });

  it('HEAD with Accept-Encoding: gzip matches the compressed GET (Content-Encoding and Content-Length)', async () => {
    const headers = { 'accept-encoding': 'gzip' };
    const get = await http(server.url, 'GET', '/api/users', { headers });
    const head = await http(server.url, 'HEAD', '/api/users', { headers });
    expect(get.headers['content-encoding']).toBe('gzip');
    expect(stable(head.headers)).toEqual(stable(get.headers));
  });

  it('sends no body bytes on the wire (raw socket)', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1');
      let text = '';
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error('no close in time'));
      }, 3000);
      socket.setEncoding('latin1');
      socket.on('data', (d: string) => {
        text += d;
      });
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(text);
      });
      socket.write('HEAD /api/users HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    });
    const [head, rest] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(Number(/content-length: (\d+)/i.exec(head ?? '')?.[1])).toBeGreaterThan(0);
    expect(rest).toBe('');
  });
});

describe('OPTIONS and 405', () => {
  it.each(Object.entries(RESOURCES))('OPTIONS %s answers 2xx with Allow listing exactly its methods', async (path, methods) => {
    const r = await http(server.url, 'OPTIONS', path);
    expect(r.status).toBeGreaterThanOrEqual(200);
    expect(r.status).toBeLessThan(300);
    expect(allowOf(r)).toEqual([...methods].sort());
  });

  it.each(Object.entries(RESOURCES))(
    'a method outside Allow on %s is 405 with the same Allow and the error body',
    async (path, methods) => {
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !methods.includes(m))) {
        const r = await http(server.url, method, path, method === 'GET' || method === 'DELETE' ? {} : { body: {} });
        expect(r.status, `${method} ${path}`).toBe(405);
        expect(allowOf(r)).toEqual([...methods].sort());
        expect(r.json()).toMatchObject({ status: 405, error: 'Method Not Allowed', path });
      }
    },
  );
});

describe('request bodies: 415 and 413 on every body-accepting endpoint', () => {
  const BODY_ENDPOINTS: [string, string][] = [
    ['POST', '/api/users'],
    ['PUT', '/api/users/2'],
    ['PATCH', '/api/users/2'],
    ['POST', '/api/users/create'],
    ['POST', '/api/users/2/orders'],
    ['PUT', '/api/users/1/orders/1/status'],
  ];

  it.each(BODY_ENDPOINTS)('%s %s: text/plain -> 415 with the error body', async (method, path) => {
    const r = await http(server.url, method, path, { headers: { 'content-type': 'text/plain' }, body: '{"a":1}' });
    expect(r.status).toBe(415);
    expect(r.json()).toMatchObject({ status: 415, error: 'Unsupported Media Type', path });
  });

  it.each(BODY_ENDPOINTS)('%s %s: a JSON body over 1 MiB -> 413 with the error body', async (method, path) => {
    const body = JSON.stringify({ email: 'big@example.com', firstName: 'Big', lastName: 'Body', pad: 'x'.repeat(1024 * 1024 + 1) });
    const r = await http(server.url, method, path, { headers: { 'content-type': 'application/json' }, body });
    expect(r.status).toBe(413);
    expect(r.json()).toMatchObject({ status: 413, error: 'Payload Too Large', path });
  });

  it('accepts application/json with a charset parameter', async () => {
    const r = await http(server.url, 'POST', '/api/users', {
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ email: 'charset@example.com', firstName: 'Char', lastName: 'Set' }),
    });
    expect(r.status).toBe(201);
  });
});

describe('201 Created', () => {
  it('every create answers a Location whose path is the new resource, and GET on it answers 200', async () => {
    const cases: [string, unknown, (id: number) => string][] = [
      ['/api/users', { email: 'loc@example.com', firstName: 'Lo', lastName: 'Cation' }, (id) => `/api/users/${id}`],
      ['/api/users/create', { name: 'Loc Variant', email: 'locv@example.com' }, (id) => `/api/users/${id}`],
      ['/api/users/2/orders', { items: [{ productId: 1, quantity: 1 }] }, (id) => `/api/users/2/orders/${id}`],
    ];
    for (const [path, body, expected] of cases) {
      const r = await http(server.url, 'POST', path, { body });
      expect(r.status).toBe(201);
      const location = String(r.headers.location);
      const target = expected(r.json().id as number);
      expect(location).toContain(target);
      expect(new URL(location, server.url).pathname).toBe(target);
      expect((await http(server.url, 'GET', target)).status).toBe(200);
    }
  });

  it('answers 400 with the error body to a malformed Host header instead of building a Location from it', async () => {
    const r = await http(server.url, 'POST', '/api/users', {
      headers: { host: 'evil.example/steal?x=' },
      body: { email: 'host@example.com', firstName: 'Ho', lastName: 'St' },
    });
    // RFC 9112 §3.2: an invalid Host is refused outright.
    expect(r.status).toBe(400);
    expect(r.headers.location).toBeUndefined();
    const body = r.json();
    expect(body).toMatchObject({ status: 400, error: 'Bad Request', path: '/api/users' });
    expect(typeof body.timestamp).toBe('string');
    expect(Array.isArray(body.errors)).toBe(true);
    // Refused before the method ran: nothing was created (a retry must not meet a duplicate).
    const list = await http(server.url, 'GET', '/api/users/search?email=host@example.com');
    expect([list.status, list.json()]).toEqual([200, []]);
  });

  it('builds the absolute Location from a well-formed request Host, as Jersey does (foreign hosts included)', async () => {
    const r = await http(server.url, 'POST', '/api/users', {
      headers: { host: 'evil.example' },
      body: { email: 'foreign-host@example.com', firstName: 'Fo', lastName: 'Reign' },
    });
    expect(r.status).toBe(201);
    // Pinned contract: the pipeline trusts a syntactically valid Host; no allow-list is applied.
    expect(r.headers.location).toBe(`http://evil.example/api/users/${r.json().id as number}`);
  });
});
