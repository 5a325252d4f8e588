/**
 * Black-box tests of hardening facts of node:http, busboy and fast-xml-parser against the real server over raw sockets: request
 * smuggling shapes and malformed framing (400 from Node's parser, in the service's error body), oversized headers (431),
 * request targets that look like hosts or absolute URLs, path traversal, body limits and
 * prototype keys, and slowloris (the pipeline's headersTimeout is a fixed 10 s, so the probe
 * starts in beforeAll and runs while the other tests do).
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, removeDir, startServer, type RunningServer } from '../helpers/server.js';

interface RawResult {
  /** Everything the server sent. */
  text: string;
  /** True when the server closed the connection before `timeoutMs`. */
  closed: boolean;
  /** Time from connect to close (or to the timeout). */
  ms: number;
}

/**
 * Writes `chunks` to a fresh connection (each after the previous one is flushed) and collects the
 * answer until the server closes or `timeoutMs` passes.
 */
function raw(port: number, chunks: (string | Buffer)[] | string, timeoutMs = 3000): Promise<RawResult> {
  const list = typeof chunks === 'string' ? [chunks] : chunks;
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false, ms: Date.now() - started });
    }, timeoutMs);
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
    });
    socket.on('error', () => undefined); // a reset after the server's answer is fine
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true, ms: Date.now() - started });
    });
    const writeNext = (i: number): void => {
      if (i >= list.length || socket.destroyed) return;
      socket.write(list[i]!, () => writeNext(i + 1));
    };
    writeNext(0);
  });
}

function statusOf(r: RawResult): number {
  const m = /^HTTP\/1\.[01] (\d{3}) /.exec(r.text);
  return m === null ? -1 : Number(m[1]);
}

/** A header of the first response (name lower-case), undefined when absent. */
function headerOf(r: RawResult, name: string): string | undefined {
  const head = r.text.slice(0, r.text.indexOf('\r\n\r\n'));
  const line = head.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name}:`));
  return line?.slice(name.length + 1).trim();
}

/** The JSON body of the one response on a closed connection. */
function jsonOf(r: RawResult): Record<string, unknown> {
  return JSON.parse(bodyOf(r)) as Record<string, unknown>;
}

/** Number of HTTP responses in the stream (to see whether a smuggled request was answered). */
function responseCount(r: RawResult): number {
  return (r.text.match(/HTTP\/1\.[01] \d{3} /g) ?? []).length;
}

function bodyOf(r: RawResult): string {
  return r.text.slice(r.text.indexOf('\r\n\r\n') + 4);
}

/**
 * Slowloris: request line and one header line per 500 ms, never the blank line. Resolves when
 * the server closes the connection, or after `limitMs`.
 */
function slowloris(port: number, limitMs: number): Promise<RawResult> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let n = 0;
    const drip = setInterval(() => {
      if (!socket.destroyed) socket.write(`X-Slow-${n++}: a\r\n`);
    }, 500);
    const finish = (closed: boolean): void => {
      clearInterval(drip);
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closed, ms: Date.now() - started });
    };
    const timer = setTimeout(() => finish(false), limitMs);
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => finish(true));
    socket.write('GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  });
}

describe('hardening (black box, raw sockets)', () => {
  let server: RunningServer;
  let slowProbe: Promise<RawResult>;

  beforeAll(async () => {
    server = await startServer();
    slowProbe = slowloris(server.port, 16_000);
  });
  afterAll(async () => {
    expect(await server.stop('SIGTERM')).toBe(0);
    removeDir(server.dataDir);
  });

  describe("framing: Node's parser answers 400 and closes", () => {
    const CRLF = '\r\n';
    const smuggled = `GET /api/admin/users HTTP/1.1${CRLF}Host: x${CRLF}${CRLF}`;
    it.each([
      [
        'Content-Length with Transfer-Encoding',
        `POST /api/users HTTP/1.1${CRLF}Host: x${CRLF}Content-Length: 4${CRLF}Transfer-Encoding: chunked${CRLF}${CRLF}0${CRLF}${CRLF}${smuggled}`,
      ],
      [
        'two different Content-Length',
        `POST /api/users HTTP/1.1${CRLF}Host: x${CRLF}Content-Length: 4${CRLF}Content-Length: 5${CRLF}${CRLF}abcde${smuggled}`,
      ],
      [
        'two equal Content-Length',
        `POST /api/users HTTP/1.1${CRLF}Host: x${CRLF}Content-Length: 2${CRLF}Content-Length: 2${CRLF}${CRLF}{}`,
      ],
      ['a space before the colon', `POST /api/users HTTP/1.1${CRLF}Host: x${CRLF}Content-Length : 2${CRLF}${CRLF}{}`],
      ['an obs-folded header', `GET /api/health HTTP/1.1${CRLF}Host: x${CRLF}X-Foo: a${CRLF} b${CRLF}${CRLF}`],
      ['bare LF line endings', 'GET /api/health HTTP/1.1\nHost: x\n\n'],
      [
        'a bad chunk size',
        `POST /api/users HTTP/1.1${CRLF}Host: x${CRLF}Content-Type: application/json${CRLF}Transfer-Encoding: chunked${CRLF}${CRLF}zz${CRLF}{}${CRLF}0${CRLF}${CRLF}`,
      ],
      [
        'Transfer-Encoding chunked, identity',
        `POST /api/users HTTP/1.1${CRLF}Host: x${CRLF}Transfer-Encoding: chunked, identity${CRLF}${CRLF}0${CRLF}${CRLF}`,
      ],
      ['HTTP/1.1 without Host', `GET /api/health HTTP/1.1${CRLF}Connection: close${CRLF}${CRLF}`],
    ])('%s', async (_name, request) => {
      const r = await raw(server.port, request);
      expect(r.closed).toBe(true);
      expect(statusOf(r)).toBe(400);
      expect(responseCount(r)).toBe(1); // nothing smuggled behind it was answered
      // The service's error body (SPEC "Errors"), not Node's bodiless answer.
      expect(headerOf(r, 'content-type')).toBe('application/json');
      expect(headerOf(r, 'connection')).toBe('close');
      expect(headerOf(r, 'x-content-type-options')).toBe('nosniff');
      expect(jsonOf(r)).toMatchObject({ status: 400, error: 'Bad Request', errors: [] });
    });

    it("a request the parser rejects gets the service's whole error body, with an empty path", async () => {
      const r = await raw(server.port, `GET /api/users HTTP/1.1${CRLF}Host: x${CRLF}Bad Header: 1${CRLF}${CRLF}`);
      expect(statusOf(r)).toBe(400);
      const body = jsonOf(r);
      expect(Object.keys(body).sort()).toEqual(['error', 'errors', 'message', 'path', 'status', 'timestamp']);
      expect(body).toMatchObject({ status: 400, error: 'Bad Request', path: '', errors: [] });
      expect(body.message).toMatch(/^Malformed HTTP request/);
      expect(Number.isNaN(Date.parse(String(body.timestamp)))).toBe(false);
    });

    it('answers 431 to headers over the limit', async () => {
      const r = await raw(server.port, `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      expect(statusOf(r)).toBe(431);
      expect(r.closed).toBe(true);
      expect(jsonOf(r)).toMatchObject({ status: 431, error: 'Request Header Fields Too Large', path: '', errors: [] });
    });
  });

  describe('request targets', () => {
    it('`GET //evil.example/users` is a path (404), not a host to proxy to', async () => {
      const r = await raw(server.port, 'GET //evil.example/users HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      expect(statusOf(r)).toBe(404);
      expect(JSON.parse(bodyOf(r))).toMatchObject({ status: 404, path: '//evil.example/users' });
    });

    it('`GET //127.0.0.1:PORT/api/health` is not read as host + /api/health', async () => {
      const r = await raw(
        server.port,
        `GET //127.0.0.1:${server.port}/api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
      );
      expect(statusOf(r)).toBe(404);
    });

    it.each(['http://127.0.0.1/api/health', 'http://evil.example/api/health', 'HTTP://127.0.0.1:1/api/health?x=1'])(
      'absolute-form `%s` is served locally (200) or refused (400), never proxied or crashed',
      async (target) => {
        const r = await raw(server.port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
        expect([200, 400]).toContain(statusOf(r));
        if (statusOf(r) === 200) expect(JSON.parse(bodyOf(r))).toMatchObject({ status: 'UP' });
      },
    );

    it('asterisk-form `OPTIONS *` gets a 400 JSON error', async () => {
      const r = await raw(server.port, 'OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      expect(statusOf(r)).toBe(400);
    });

    it.each([
      '/api/files/../../../../etc/passwd',
      '/api/files/1/../../../../etc/passwd',
      '/../../../../etc/passwd',
      '/api/files/..%2f..%2f..%2f..%2fetc%2fpasswd/download',
      '/api/files/%2e%2e/%2e%2e/%2e%2e/etc/passwd/download',
      '/api/files/..\\..\\..\\etc\\passwd/download',
      '/api/files/1%2f..%2f..%2fpasswd/download',
    ])('path traversal `%s` is a 404 without file contents', async (target) => {
      const r = await raw(server.port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      expect(statusOf(r)).toBe(404);
      expect(r.text).not.toMatch(/root:|nologin|daemon:/);
    });
  });

  describe('bodies and headers', () => {
    it('answers 413 to a declared Content-Length over 1 MiB before the body is sent', async () => {
      const r = await raw(
        server.port,
        'POST /api/users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\n',
      );
      expect(statusOf(r)).toBe(413);
      expect(r.text.toLowerCase()).toContain('connection: close');
    });

    it('rejects `__proto__` and `constructor.prototype` keys with 400 and pollutes nothing', async () => {
      const base = '"email":"proto@x.io","firstName":"Pro","lastName":"To"';
      for (const body of [`{${base},"__proto__":{"roles":["ADMIN"]}}`, `{${base},"constructor":{"prototype":{"roles":["ADMIN"]}}}`]) {
        const r = await http(server.url, 'POST', '/api/users', { headers: { 'content-type': 'application/json' }, body });
        expect(r.status, body).toBe(400);
      }
      const ok = await http(server.url, 'POST', '/api/users', { body: { email: 'after-proto@x.io', firstName: 'Aft', lastName: 'Er' } });
      expect(ok.status).toBe(201);
      expect(ok.json().roles).toEqual(['USER']);
    });

    it('answers 415 to an unparsable media type and 400 to invalid JSON', async () => {
      expect((await http(server.url, 'POST', '/api/users', { headers: { 'content-type': ';;;' }, body: '{}' })).status).toBe(415);
      expect(
        (await http(server.url, 'POST', '/api/users', { headers: { 'content-type': 'application/json' }, body: '{"a":' })).status,
      ).toBe(400);
    });

    it('does not echo an unsafe X-Request-Id (header injection) but keeps a safe one', async () => {
      const unsafe = await http(server.url, 'GET', '/api/health', { headers: { 'x-request-id': 'a b<script>' } });
      expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      const safe = await http(server.url, 'GET', '/api/health', { headers: { 'x-request-id': 'req-123.abc' } });
      expect(safe.headers['x-request-id']).toBe('req-123.abc');
    });
  });

  it('closes a slowloris connection that never finishes its headers (headersTimeout, 408)', async () => {
    const r = await slowProbe;
    expect(r.closed).toBe(true);
    // headersTimeout is 10 s, checked every second.
    expect(r.ms).toBeGreaterThanOrEqual(9000);
    expect(r.ms).toBeLessThan(15_000);
    expect(statusOf(r)).toBe(408);
    expect(jsonOf(r)).toMatchObject({ status: 408, error: 'Request Timeout', path: '', errors: [] });
  }, 20_000);

  it('is still alive and serving after all of the above', async () => {
    expect(server.process.exitCode).toBeNull();
    const r = await http(server.url, 'GET', '/api/health');
    expect(r.status).toBe(200);
  });
});
