import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { Client, request } from 'undici';
import { DEFAULT_LIMITS, type Application } from '@jaxrs-node/pipeline';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, LIMITS, Pause } from '../src/16-limits-and-shutdown/app.js';
import { createOwnServer, shutdown } from '../src/16-limits-and-shutdown/own-server.js';

/** A `/api/slow` that waits until the test calls `release()`; `entered` says it started waiting. */
class HeldPause extends Pause {
  release!: () => void;
  private started!: () => void;
  readonly entered = new Promise<void>((r) => (this.started = r));
  private readonly gate = new Promise<void>((r) => (this.release = r));
  override wait(): Promise<void> {
    this.started();
    return this.gate;
  }
}

const TOO_LARGE = {
  status: 413,
  error: 'Payload Too Large',
  code: 'PIPE_BODY_TOO_LARGE',
  message: `Request body exceeds the limit of ${LIMITS.bodyLimit} bytes`,
};
const SHUTTING_DOWN = { status: 503, error: 'Service Unavailable', code: 'PIPE_SHUTTING_DOWN' };
const bigNote = JSON.stringify({ text: 'x'.repeat(LIMITS.bodyLimit) });
const json = { 'content-type': 'application/json' };
const portOf = (server: Server): number => (server.address() as AddressInfo).port;
const GET_LIMITS = 'GET /api/limits HTTP/1.1\r\nHost: 127.0.0.1\r\n';
/** The complete HTTP/1.1 responses at the start of `data` (all of ours carry a Content-Length). */
function complete(data: string): string[] {
  const out: string[] = [];
  for (let rest = data, end = rest.indexOf('\r\n\r\n'); end >= 0; end = rest.indexOf('\r\n\r\n')) {
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(rest.slice(0, end))?.[1] ?? 0);
    if (rest.length < end + 4 + length) break;
    out.push(rest.slice(0, end + 4 + length));
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

describe('16 limits and shutdown', { timeout: 10_000 }, () => {
  let app: Application;
  let pause: HeldPause;
  const cleanup: (() => unknown)[] = [];
  const start = async (): Promise<string> => {
    pause = new HeldPause();
    app = createApp(pause);
    return `http://127.0.0.1:${(await app.listen(0)).port}`;
  };
  /** The same app as `handler` on a server of our own (own-server.ts). */
  const startOwn = async (): Promise<{ server: Server; url: string }> => {
    pause = new HeldPause();
    app = createApp(pause);
    const server = createOwnServer(app).listen(0, '127.0.0.1');
    // A failed assertion before shutdown() must not leak the listener: app.close() cannot close it.
    cleanup.push(() => {
      server.closeAllConnections();
      return server.listening ? new Promise<void>((r) => server.close(() => r())) : undefined;
    });
    await once(server, 'listening');
    return { server, url: `http://127.0.0.1:${portOf(server)}` };
  };
  afterEach(async () => {
    pause?.release();
    for (const c of cleanup.splice(0)) await c();
    await app?.close(100);
  });

  it('in-process: every limit is set, a note within bodyLimit is created, one above it is 413', async () => {
    app = createApp();
    expect(Object.keys(LIMITS).sort()).toEqual(Object.keys(DEFAULT_LIMITS).sort());
    expect(app.limits).toEqual(LIMITS);
    expect((await app.inject('/api/limits')).json()).toEqual({ limits: LIMITS, defaults: DEFAULT_LIMITS });

    const ok = await app.inject({ method: 'POST', url: '/api/notes', body: { text: 'hi' } });
    expect([ok.status, ok.headers.location, ok.json()]).toEqual([201, '/api/notes/1', { id: 1, text: 'hi' }]);
    const big = await app.inject({ method: 'POST', url: '/api/notes', headers: json, body: bigNote });
    expect([big.status, big.json()]).toEqual([413, TOO_LARGE]);
    expect((await app.inject('/api/notes')).json()).toEqual([{ id: 1, text: 'hi' }]);
    expect((await app.inject(`/api/slow?ms=${10_001}`)).status).toBe(400);
  });

  it('over a socket: 413 with the same body and Connection: close; 431 above maxHeaderSize', async () => {
    const url = await start();
    const big = await request(`${url}/api/notes`, { method: 'POST', headers: json, body: bigNote });
    // The unread body is not drained: the connection is closed instead (Connection: close).
    expect([big.statusCode, big.headers.connection, await big.body.json()]).toEqual([413, 'close', TOO_LARGE]);

    const huge = await request(`${url}/api/limits`, { headers: { 'x-padding': 'p'.repeat(LIMITS.maxHeaderSize) } });
    await huge.body.dump();
    expect(huge.statusCode).toBe(431); // node:http itself, before the pipeline
  });

  it('close(): in-flight request finishes with 200, idle kept-alive socket closed, new connections refused', async () => {
    const url = await start();
    const idle = new Client(url);
    const busy = new Client(url);
    cleanup.push(() => Promise.all([idle.destroy(), busy.destroy()]));
    const warm = await idle.request({ method: 'GET', path: '/api/limits' });
    await warm.body.dump();
    expect(warm.headers.connection).toBe('keep-alive');
    const idleDropped = once(idle, 'disconnect');

    const slow = busy.request({ method: 'GET', path: '/api/slow?ms=2500' });
    await pause.entered;
    const closing = app.close(5_000);
    let settled = false;
    void closing.then(() => (settled = true));
    await idleDropped; // reaped at once, though a request is still running

    // The dropped client reconnects for its next request: the listener is gone.
    await expect(idle.request({ method: 'GET', path: '/api/limits' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(settled).toBe(false); // still draining

    pause.release();
    const res = await slow;
    expect([res.statusCode, res.headers.connection]).toEqual([200, 'close']);
    expect(await res.body.json()).toEqual({ waitedMs: 2500 });
    await closing;
  });

  it('close(): a request arriving on a kept-alive connection gets 503 + Connection: close + Retry-After', async () => {
    await start();
    const serverSide = new Promise<Socket>((r) => app.server!.once('connection', r));
    const raw = connect(portOf(app.server!), '127.0.0.1').setEncoding('latin1');
    cleanup.push(() => raw.destroy());
    // ONE 'data' listener for the socket's life: every byte lands in `received`, whether or not
    // someone is waiting, and tells the one waiting `responses()` (if any) to look again.
    let received = '';
    let recheck: (() => void) | undefined;
    raw.on('data', (chunk: string) => {
      received += chunk;
      recheck?.();
    });
    const rawClosed = once(raw, 'close');
    /** Resolves with the complete responses once there are `count` of them (Content-Length framing). */
    const responses = (count: number): Promise<string[]> =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const done = complete(received);
          if (done.length < count) return;
          recheck = undefined;
          resolve(done);
        };
        recheck = check;
        check(); // what arrived before this call may be enough already
        void rawClosed.then(() => reject(new Error(`closed after ${JSON.stringify(received)}`)), reject);
      });
    // One write: a whole request, then the first lines of the next. Once the first response is
    // back the server has parsed both, so Node counts the connection as busy, not idle.
    const bytes = `${GET_LIMITS}\r\n${GET_LIMITS}`;
    const first = responses(1);
    raw.write(bytes);
    const [ok] = await first;
    expect(ok).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*\r\nConnection: keep-alive\r\n/i);
    expect((await serverSide).bytesRead).toBe(bytes.length);

    const closing = app.close(5_000);
    const second = responses(2);
    raw.write('\r\n'); // the end of the second request's headers, after close() started
    const [, rejected = ''] = await second;
    expect(rejected).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(rejected).toMatch(/\r\nconnection: close\r\n/i);
    expect(rejected).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(JSON.parse(rejected.slice(rejected.indexOf('\r\n\r\n') + 4))).toEqual(SHUTTING_DOWN);
    await rawClosed; // the server hangs up after the 503
    await closing;
  });

  it('close(deadline): a request still running at the deadline is cut, and close() resolves', async () => {
    const url = await start();
    const client = new Client(url);
    cleanup.push(() => client.destroy());
    const slow = client.request({ method: 'GET', path: '/api/slow?ms=10000' });
    await pause.entered;
    const started = performance.now();
    await app.close(150);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    await expect(slow).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' }); // no response at all
  });

  it('app.handler on your own node:http server: same limits, shutdown() drains then cuts', async () => {
    const { server, url } = await startOwn();
    for (const key of ['headersTimeout', 'requestTimeout', 'keepAliveTimeout', 'maxRequestsPerSocket'] as const)
      expect([key, server[key]]).toEqual([key, LIMITS[key]]);
    expect(server.timeout).toBe(LIMITS.sendTimeout);
    const big = await request(`${url}/api/notes`, { method: 'POST', headers: json, body: bigNote });
    expect([big.statusCode, await big.body.json()]).toEqual([413, TOO_LARGE]);

    const client = new Client(url);
    cleanup.push(() => client.destroy());
    const finishes = client.request({ method: 'GET', path: '/api/slow?ms=5' });
    await pause.entered;
    const stopped = shutdown(app, server, 5_000);
    pause.release();
    const res = await finishes;
    expect([res.statusCode, res.headers.connection, await res.body.json()]).toEqual([200, 'close', { waitedMs: 5 }]);
    await stopped;
    expect(server.listening).toBe(false);
    await expect(client.request({ method: 'GET', path: '/api/limits' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('shutdown(app, server, deadline) cuts a request that never ends on your own server', async () => {
    const { server, url } = await startOwn();
    const client = new Client(url);
    cleanup.push(() => client.destroy());
    const hung = client.request({ method: 'GET', path: '/api/slow?ms=10000' });
    await pause.entered;
    await shutdown(app, server, 150);
    await expect(hung).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
  });
});
