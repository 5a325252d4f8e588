import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, removeDir, startServer, type HttpResult, type RunningServer } from '../helpers/server.js';

/**
 * Hostile and malformed request bodies (Fastify's body-limit contract) against POST /api/users. Each
 * case must end in a 4xx error body (or a closed connection for framing errors), never a 500 or
 * a hang, and the server must keep serving afterwards. Raw-socket cases are bounded by timeouts.
 */

let server: RunningServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  expect(await server.stop('SIGTERM')).toBe(0);
  removeDir(server.dataDir);
});

const valid = { email: 'ok@example.com', firstName: 'Okay', lastName: 'Fine' };

function postRaw(body: string | Buffer, headers: Record<string, string> = {}): Promise<HttpResult> {
  return http(server.url, 'POST', '/api/users', { headers: { 'content-type': 'application/json', ...headers }, body });
}

function expect4xx(r: HttpResult, status: number): void {
  expect(r.status).toBe(status);
  const body = r.json();
  expect(body).toMatchObject({ status, path: '/api/users' });
  expect(typeof body.timestamp).toBe('string');
  expect(typeof body.error).toBe('string');
  expect(Array.isArray(body.errors)).toBe(true);
}

interface RawResult {
  text: string;
  closed: boolean;
  timedOut: boolean;
}

/** Writes raw bytes on a fresh socket; resolves when the server closes it or after `timeoutMs`. */
function rawRequest(data: string, options: { halfClose?: boolean; timeoutMs?: number } = {}): Promise<RawResult> {
  return new Promise((resolve) => {
    const socket = connect(server.port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false, timedOut: true });
    }, options.timeoutMs ?? 3000);
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      text += d;
    });
    socket.on('error', () => {
      /* a reset counts as closed */
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true, timedOut: false });
    });
    if (options.halfClose === true) socket.end(data);
    else socket.write(data);
  });
}

async function expectAlive(): Promise<void> {
  const r = await http(server.url, 'GET', '/api/health');
  expect(r.status).toBe(200);
}

describe('JSON bodies', () => {
  it('invalid JSON -> 400 with the error body', async () => {
    for (const body of ['{bad', '{"email": "a@b.io",}', "{'email': 'x'}", '{"a":1}garbage']) expect4xx(await postRaw(body), 400);
  });

  it('__proto__ and constructor.prototype keys -> 400; later responses are unaffected', async () => {
    expect4xx(await postRaw(JSON.stringify(valid).replace('{', '{"__proto__":{"x":1,"roles":["ADMIN"]},')), 400);
    expect4xx(await postRaw(JSON.stringify(valid).replace('{', '{"constructor":{"prototype":{"x":1}},')), 400);
    expect4xx(await postRaw('{"nested":{"__proto__":{"polluted":true}},"email":"a@b.io","firstName":"Ab","lastName":"C"}'), 400);
    const created = await http(server.url, 'POST', '/api/users', { body: valid });
    expect(created.status).toBe(201);
    expect(created.json().roles).toEqual(['USER']);
    for (const r of [created, await http(server.url, 'GET', '/api/users/1'), await http(server.url, 'GET', '/api/users')]) {
      expect(r.text).not.toContain('"x":1');
      expect(r.text).not.toContain('polluted');
      expect(r.text).not.toContain('ADMIN');
    }
  });

  it('a JSON array, string, number or null body -> 400 naming the body', async () => {
    for (const body of ['[]', JSON.stringify([valid]), '"text"', '42', 'null']) {
      const r = await postRaw(body);
      expect4xx(r, 400);
    }
  });

  it('100 000-deep nesting (arrays and objects) -> 400, and the server is still alive', async () => {
    expect4xx(await postRaw('['.repeat(100_000) + ']'.repeat(100_000)), 400);
    expect4xx(await postRaw('{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)), 400);
    await expectAlive();
  });

  it('an empty body with Content-Type application/json -> 400 (body required) with the error body', async () => {
    const r = await postRaw('');
    expect4xx(r, 400);
    expect(r.json().message.length).toBeGreaterThan(0);
  });

  it('numbers beyond double range and control characters -> 400, never a stored Infinity', async () => {
    expect4xx(await postRaw('{"email":"a@b.io","firstName":"Ab","lastName":"C","age":1e400}'), 400);
    expect4xx(await postRaw(JSON.stringify({ ...valid, firstName: 'Ab\u0000c' })), 400);
  });
});

describe('body size and encoding', () => {
  it('a JSON body over 1 MiB -> 413 with the error body; just under the limit is read normally', async () => {
    expect4xx(await postRaw(JSON.stringify({ ...valid, pad: 'x'.repeat(1024 * 1024) })), 413);
    const under = await postRaw(JSON.stringify({ ...valid, pad: 'x'.repeat(1024 * 1024 - 200) }));
    expect(under.status).toBe(201);
  });

  it('a declared huge Content-Length -> 413 before the body is sent, then the connection closes', async () => {
    const r = await rawRequest(
      'POST /api/users HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n{',
    );
    expect(r.timedOut).toBe(false);
    expect(r.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(r.text).toContain('"status":413');
  });

  it('a gzip request body that inflates past the limit -> 413; corrupt gzip -> 400; unknown coding -> 415', async () => {
    const bomb = gzipSync(JSON.stringify({ ...valid, pad: 'a'.repeat(20 * 1024 * 1024) }));
    expect(bomb.length).toBeLessThan(100_000);
    expect4xx(await postRaw(bomb, { 'content-encoding': 'gzip' }), 413);
    expect4xx(await postRaw('not gzip at all', { 'content-encoding': 'gzip' }), 400);
    expect4xx(await postRaw(gzipSync(JSON.stringify(valid)), { 'content-encoding': 'compress' }), 415);
    const ok = await postRaw(gzipSync(JSON.stringify({ ...valid, email: 'gzipped@example.com' })), { 'content-encoding': 'gzip' });
    expect(ok.status).toBe(201);
    await expectAlive();
  });
});

describe('framing errors (raw sockets, bounded)', () => {
  const body = JSON.stringify({ ...valid, email: 'framing@example.com' });
  const head = (length: number): string =>
    `POST /api/users HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n`;

  it('fewer bytes than Content-Length, then the client finishes sending -> 400 or closed, never a hang', async () => {
    const r = await rawRequest(`${head(body.length + 50)}\r\n${body}`, { halfClose: true });
    expect(r.timedOut).toBe(false);
    if (r.text !== '') expect(r.text).toMatch(/^HTTP\/1\.1 400 /);
  });

  it('more bytes than Content-Length -> 400 or closed, never a hang and never a 2xx', async () => {
    const r = await rawRequest(`${head(10)}Connection: close\r\n\r\n${body}`);
    expect(r.timedOut).toBe(false);
    expect(r.text).not.toMatch(/^HTTP\/1\.1 2\d\d /);
    if (r.text !== '') expect(r.text).toMatch(/^HTTP\/1\.1 400 /);
  });

  it('Content-Length together with Transfer-Encoding (smuggling shape) -> 400', async () => {
    const r = await rawRequest(`${head(5)}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n`);
    expect(r.timedOut).toBe(false);
    expect(r.text).toMatch(/^HTTP\/1\.1 400 /);
  });

  it('stored nothing from the framing cases, and still serves requests', async () => {
    expect((await http(server.url, 'GET', '/api/users?email=framing%40example.com')).json()).toEqual([]);
    await expectAlive();
  });
});
