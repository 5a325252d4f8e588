// Node's HTTP server hardening (`headersTimeout`, `requestTimeout`, RFC 9112 §9.6), graceful close: drain in-flight requests, 503 + Connection: close for
// requests still arriving on open connections, refuse new connections, cut what is left at the deadline.
import { once } from 'node:events';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Application } from '../../src/index.js';
import { parseResponses, rawConnect, type RawConnection } from '../helpers/raw-socket.js';
import { hanging, slowAndFast } from '../helpers/slow-resources.js';

const { Slow, Fast, gate: slow } = slowAndFast();
const { Hang, gate: hang } = hanging();

const newApp = (): Application => new Application({ resources: [Slow, Fast, Hang], logger: () => undefined });
const httpGet = (path: string): string => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
const settledFlag = (p: Promise<unknown>): { settled: boolean } => {
  const flag = { settled: false };
  void p.then(() => {
    flag.settled = true;
  });
  return flag;
};

describe('graceful close over sockets', () => {
  let app: Application;
  const clients: RawConnection[] = [];
  const open = async (): Promise<RawConnection> => {
    const c = await rawConnect((app.server!.address() as AddressInfo).port);
    clients.push(c);
    return c;
  };
  afterEach(async () => {
    slow.release.resolve();
    for (const c of clients.splice(0)) c.socket.destroy();
    await app.close(100);
    slow.reset();
    hang.reset();
  });

  it('lets an in-flight request finish with 200 + Connection: close, refuses new connections, resolves once drained', async () => {
    app = newApp();
    const { port } = await app.listen(0);
    const a = await open();
    a.socket.write(httpGet('/slow'));
    await slow.entered.promise;

    const closing = app.close(5000);
    const flag = settledFlag(closing);
    const refused = connect(port, '127.0.0.1');
    const [err] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
    expect(err.code).toBe('ECONNREFUSED');
    expect(flag.settled).toBe(false); // still draining: the slow request holds it open

    slow.release.resolve();
    const [res] = await a.responses(1);
    expect(res!.status).toBe(200);
    expect(res!.headers.connection).toBe('close');
    expect(JSON.parse(res!.body)).toEqual({ done: true });
    await closing;
    await a.closed;
    expect(app.close()).toBe(closing); // idempotent
  });

  it('answers 503 + Connection: close to a request arriving on an open kept-alive connection; reaps idle ones', async () => {
    app = newApp();
    const serverSockets: Socket[] = [];
    await app.listen(0);
    app.server!.on('connection', (s: Socket) => serverSockets.push(s));
    const busy = await open();
    const idle = await open();
    for (const c of [busy, idle]) {
      c.socket.write(httpGet('/fast'));
      const [first] = await c.responses(1);
      expect(first!.headers.connection).toBe('keep-alive');
    }
    // The next request's first bytes are on the server when close() starts: Node counts the
    // connection as active (not idle), so it is not reaped and the request reaches the handler.
    const partial = 'GET /fast HTTP/1.1\r\nHost: 127.0.0.1\r\n';
    busy.socket.write(partial);
    const onServer = serverSockets.find((s) => s.remotePort === busy.socket.localPort)!;
    const expected = httpGet('/fast').length + partial.length;
    for (let i = 0; i < 300 && onServer.bytesRead < expected; i++) await new Promise((r) => setTimeout(r, 10));
    expect(onServer.bytesRead).toBe(expected);

    const closing = app.close(5000);
    await idle.closed; // an idle kept-alive socket is closed at once
    expect(parseResponses(idle.data())).toHaveLength(1);

    busy.socket.write('\r\n');
    const [, rejected] = await busy.responses(2);
    expect(rejected!.status).toBe(503);
    expect(rejected!.headers.connection).toBe('close');
    expect(rejected!.headers['retry-after']).toBe('1');
    expect(JSON.parse(rejected!.body)).toMatchObject({ status: 503 });
    await busy.closed;
    await closing;
  });

  it('cuts a request that never finishes at the deadline, and close() still resolves', async () => {
    app = newApp();
    await app.listen(0);
    const c = await open();
    c.socket.write(httpGet('/hang'));
    await hang.entered.promise;
    const started = Date.now();
    await app.close(200);
    const elapsed = Date.now() - started;
    await c.closed;
    expect(c.data()).toBe(''); // no response at all: the connection was destroyed
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(3000);
  });
});

describe('graceful close in-process (inject)', () => {
  it('answers 503 + Connection: close while closing and lets the in-flight request finish', async () => {
    const app = newApp();
    const inflight = app.inject('/slow');
    await slow.entered.promise;
    const closing = app.close(5000);
    const flag = settledFlag(closing);

    const rejected = await app.inject('/fast');
    expect(rejected.status).toBe(503);
    expect(rejected.headers.connection).toBe('close');
    expect(rejected.json()).toEqual({ status: 503, error: 'Service Unavailable', code: 'PIPE_SHUTTING_DOWN' });
    expect(rejected.headers['retry-after']).toBe('1');
    expect(flag.settled).toBe(false);

    slow.release.resolve();
    const done = await inflight;
    expect(done.status).toBe(200);
    expect(done.headers.connection).toBe('close');
    await closing;
  });

  it('without a server of its own, close() stops waiting at the deadline for a request that never finishes', async () => {
    const app = newApp();
    hang.reset();
    void app.inject('/hang');
    await hang.entered.promise;
    const started = performance.now();
    const deadline = 200;
    const closing = app.close(deadline);
    const flag = settledFlag(closing);
    expect((await app.inject('/fast')).status).toBe(503);
    expect(flag.settled).toBe(false);
    await closing; // before the fix it never settled: the hung request never finishes
    expect(performance.now() - started).toBeGreaterThanOrEqual(deadline - 50);
  });

  it('close() on an application with nothing in flight resolves at once', async () => {
    const app = newApp();
    await app.close();
    expect((await app.inject('/fast')).status).toBe(503);
  });
});
