// README "Application" limits and Node's HTTP server hardening (`headersTimeout`, `requestTimeout`, RFC 9112 §9.6): every key of DEFAULT_LIMITS reaches
// the node:http server (or the body readers) and does what it says; nonsense is refused at start-up.
import { afterEach, describe, expect, it } from 'vitest';
import { Application, DEFAULT_LIMITS, GET, Path, POST, type PipelineLimits } from '../../src/index.js';
import { resolveLimits } from '../../src/core/internal/defaults.js';
import { rawConnect } from '../helpers/raw-socket.js';
import { hanging } from '../helpers/slow-resources.js';
import { start, TRANSPORTS } from '../helpers/transports.js';

@Path('/r')
class R {
  @GET() get(): unknown {
    return { ok: true };
  }
  @POST() post(body: { v?: string }): unknown {
    return { got: body.v?.length ?? 0 };
  }
}
const { Hang, gate: hang } = hanging();

const REQ = 'GET /r HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
const within = (ms: number, lo: number, hi: number): void => {
  expect(ms).toBeGreaterThanOrEqual(lo);
  expect(ms).toBeLessThan(hi);
};

let app: Application | undefined;
const listen = async (limits: Partial<PipelineLimits>): Promise<number> => {
  app = new Application({ resources: [R, Hang], limits, logger: () => undefined });
  return (await app.listen(0)).port;
};
afterEach(async () => {
  await app?.close(100);
  app = undefined;
});

describe('DEFAULT_LIMITS reach the server', () => {
  it('lists exactly the limits this file covers', () => {
    expect(Object.keys(DEFAULT_LIMITS).sort()).toEqual([
      'bodyLimit',
      'connectionsCheckingInterval',
      'headersTimeout',
      'keepAliveTimeout',
      'maxHeaderSize',
      'maxRequestsPerSocket',
      'requestTimeout',
      'sendTimeout',
      'shutdownDeadline',
      'shutdownDelay',
    ]);
  });

  it('defaults and explicit values are set on the node:http server', async () => {
    await listen({});
    // maxHeaderSize and connectionsCheckingInterval are stored on the server but not in @types/node.
    const d = app!.server! as unknown as Record<string, unknown>;
    expect([d.headersTimeout, d.requestTimeout, d.keepAliveTimeout, d.maxHeaderSize, d.connectionsCheckingInterval]).toEqual([
      10_000,
      30_000,
      5_000,
      16 * 1024,
      1_000,
    ]);
    expect(d.maxRequestsPerSocket ?? 0).toBe(0);
    // sendTimeout is the application's sweep, not Node's per-socket timer (send-timeout.test.ts checks what it does).
    expect(d.timeout).toBe(0);
    expect(app!.limits.sendTimeout).toBe(60_000);
    await app!.close();
    const explicit = {
      headersTimeout: 500,
      requestTimeout: 1000,
      keepAliveTimeout: 700,
      maxHeaderSize: 2048,
      connectionsCheckingInterval: 100,
      maxRequestsPerSocket: 3,
    };
    await listen(explicit);
    const s = app!.server! as unknown as Record<string, unknown>;
    for (const [k, v] of Object.entries(explicit)) expect([k, s[k]]).toEqual([k, v]);
    expect(app!.limits).toMatchObject({
      ...explicit,
      bodyLimit: DEFAULT_LIMITS.bodyLimit,
      shutdownDeadline: DEFAULT_LIMITS.shutdownDeadline,
      shutdownDelay: 0,
    });
  });
});

describe.each(TRANSPORTS)('bodyLimit (%s)', (transport) => {
  it('413 above the limit, 200 at it', async () => {
    const a = new Application({ resources: [R], limits: { bodyLimit: 32 }, logger: () => undefined });
    const { send, stop } = await start(a, transport);
    try {
      const fits = JSON.stringify({ v: 'x'.repeat(24) });
      expect(fits.length).toBe(32);
      expect((await send({ method: 'POST', url: '/r', body: fits, headers: { 'content-type': 'application/json' } })).json()).toEqual({
        got: 24,
      });
      const big = await send({ method: 'POST', url: '/r', body: { v: 'x'.repeat(25) } });
      expect(big.status).toBe(413);
      expect(big.json()).toMatchObject({ status: 413, code: 'PIPE_BODY_TOO_LARGE' });
    } finally {
      await stop();
    }
  });
});

describe('socket limits', () => {
  it('maxHeaderSize: 431 above it', async () => {
    const port = await listen({ maxHeaderSize: 1024 });
    const c = await rawConnect(port);
    c.socket.write(`GET /r HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(2000)}\r\n\r\n`);
    await c.closed;
    expect(c.data()).toMatch(/^HTTP\/1\.1 431 /);
    const ok = await rawConnect(port);
    ok.socket.write(`GET /r HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Small: ${'a'.repeat(500)}\r\n\r\n`);
    await ok.waitFor('{"ok":true}');
    ok.socket.destroy();
  });

  it('headersTimeout: headers trickled slower than the timeout get 408 and a closed socket', async () => {
    const c = await rawConnect(await listen({ headersTimeout: 500, requestTimeout: 1000, connectionsCheckingInterval: 100 }));
    const started = Date.now();
    c.socket.write('GET /r HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    let n = 0;
    const drip = setInterval(() => {
      if (n < 50 && !c.socket.destroyed) c.socket.write(`X-Drip-${n++}: 1\r\n`);
    }, 50);
    try {
      within((await c.closed) - started, 450, 2500);
    } finally {
      clearInterval(drip);
    }
    expect(c.data()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('requestTimeout: a body trickled slower than the timeout gets 408 and a closed socket', async () => {
    const c = await rawConnect(await listen({ headersTimeout: 500, requestTimeout: 1000, connectionsCheckingInterval: 100 }));
    const started = Date.now();
    c.socket.write('POST /r HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"v":"');
    let n = 0;
    const drip = setInterval(() => {
      if (n++ < 100 && !c.socket.destroyed) c.socket.write('x');
    }, 50);
    try {
      within((await c.closed) - started, 950, 3500);
    } finally {
      clearInterval(drip);
    }
    expect(c.data()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('keepAliveTimeout: an idle kept-alive socket is closed after it', async () => {
    // Node 20.20 keeps the socket for keepAliveTimeout + 1 s (it advertises floor(timeout / 1000) s);
    // the upper bound is far below the 5 s default, so the configured value is what applied.
    const c = await rawConnect(await listen({ keepAliveTimeout: 300 }));
    c.socket.write(REQ);
    await c.waitFor('{"ok":true}');
    const idleFrom = Date.now();
    expect(c.data()).toMatch(/connection: keep-alive/i);
    within((await c.closed) - idleFrom, 250, 2800);
  });

  it('maxRequestsPerSocket: the last allowed response says Connection: close, the next request gets 503', async () => {
    const c = await rawConnect(await listen({ maxRequestsPerSocket: 2 }));
    c.socket.write(REQ + REQ + REQ);
    await c.waitFor('\r\n0\r\n\r\n'); // Node's own 503 is chunked and empty
    const [, first = '', second = '', third = ''] = c.data().split('HTTP/1.1 ');
    expect(first).toMatch(/^200 [^]*connection: keep-alive[^]*keep-alive: timeout=\d+, max=2/i);
    expect(second).toMatch(/^200 [^]*connection: close/i);
    expect(third).toMatch(/^503 [^]*connection: close/i);
    // Node does not close the socket itself here (it waits for the client or keepAliveTimeout).
    c.socket.destroy();
  });

  it('shutdownDeadline: close() without an argument cuts a request that never finishes after it', async () => {
    const c = await rawConnect(await listen({ shutdownDeadline: 200 }));
    hang.reset();
    c.socket.write('GET /hang HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await hang.entered.promise;
    const started = Date.now();
    await app!.close();
    within(Date.now() - started, 150, 3000);
    await c.closed;
    expect(c.data()).toBe('');
  });
});

describe('resolveLimits / new Application({ limits }) refuse nonsense with a TypeError', () => {
  const bad: [string, Partial<PipelineLimits>, RegExp][] = [
    ['negative', { bodyLimit: -1 }, /limits\.bodyLimit must be a non-negative integer, got -1/],
    ['fractional', { keepAliveTimeout: 1.5 }, /limits\.keepAliveTimeout must be a non-negative integer/],
    ['NaN', { maxHeaderSize: Number.NaN }, /limits\.maxHeaderSize/],
    ['Infinity', { requestTimeout: Number.POSITIVE_INFINITY }, /limits\.requestTimeout/],
    ['a string', { shutdownDeadline: '10' as unknown as number }, /limits\.shutdownDeadline/],
    [
      'headersTimeout > requestTimeout',
      { headersTimeout: 2000, requestTimeout: 1000 },
      /headersTimeout must not exceed limits\.requestTimeout/,
    ],
    [
      'an unknown key (a typo)',
      { bodylimit: 10 } as unknown as Partial<PipelineLimits>,
      /limits\.bodylimit is not a limit \(known: bodyLimit, /,
    ],
  ];
  it.each(bad)('%s', (_name, limits, message) => {
    expect(() => resolveLimits(limits)).toThrow(TypeError);
    expect(() => resolveLimits(limits)).toThrow(message);
    expect(() => new Application({ limits })).toThrow(message);
  });

  it('accepts requestTimeout 0 (disabled) with any headersTimeout, and undefined fields mean the default', () => {
    expect(resolveLimits({ requestTimeout: 0, headersTimeout: 5000 })).toMatchObject({ requestTimeout: 0, headersTimeout: 5000 });
    expect(resolveLimits({ bodyLimit: undefined })).toEqual(DEFAULT_LIMITS);
    expect(resolveLimits(undefined)).toEqual(DEFAULT_LIMITS);
  });
});
