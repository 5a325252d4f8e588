/**
 * A client that never reads its response holds nothing for long: a streamed body stops being
 * produced once the socket's buffers are full (backpressure), and after `limits.sendTimeout` without
 * progress the connection is cut and the producer ended (its `finally` runs). Other clients are
 * served meanwhile. Over a real socket (in-process has no socket to stall).
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { Application, GET, Path, Produces } from '../../src/index.js';
import { DEFAULT_LIMITS } from '../../src/core/internal/defaults.js';
import { deferred, type Deferred } from '../helpers/deferred.js';
import { TEST_TLS } from '../helpers/h2.js';

const CHUNK = 'y'.repeat(1024);
let produced = 0;
let finished = false;

@Path('/')
class Endless {
  @GET('endless') @Produces('text/plain') endless(): AsyncGenerator<string> {
    return (async function* () {
      try {
        for (;;) {
          produced++;
          yield CHUNK;
        }
      } finally {
        finished = true;
      }
    })();
  }
  @GET('ping') @Produces('text/plain') ping(): string {
    return 'pong';
  }
  /** Answers nothing until the test opens the gate: no byte moves meanwhile. */
  @GET('held') @Produces('text/plain') async held(): Promise<string> {
    await gate.promise;
    return 'late';
  }
  /** Ten chunks, one every `slowStepMs`: slower in total than the timeout, never idle for as long. */
  @GET('slow') @Produces('text/plain') slow(): AsyncGenerator<string> {
    return (async function* () {
      for (let i = 0; i < 10; i++) {
        await new Promise((r) => setTimeout(r, slowStepMs));
        yield `${i};`;
      }
    })();
  }
}

let gate: Deferred = deferred();
let slowStepMs = 50;

/** The server's end of the next connection, and a raw client connected to it. */
async function rawPair(app: Application, port: number): Promise<{ client: Socket; server: Socket }> {
  const onServer = once(app.server!, 'connection') as Promise<[Socket]>;
  const client = connect(port, '127.0.0.1');
  client.on('error', () => undefined);
  await once(client, 'connect');
  const [server] = await onServer;
  return { client, server };
}

describe('limits.sendTimeout', () => {
  let app: Application | undefined;
  afterEach(async () => {
    await app?.close(100);
  });

  it('has a documented default of 60 s', () => {
    expect(DEFAULT_LIMITS.sendTimeout).toBe(60_000);
  });

  it('cuts a connection whose response makes no progress; production stops at the buffers, not at the timeout', async () => {
    produced = 0;
    finished = false;
    app = new Application({ resources: [Endless], limits: { sendTimeout: 300 }, logger: () => undefined });
    const { port } = await app.listen(0);
    const onServer = once(app.server!, 'connection') as Promise<[Socket]>;
    const stalled: Socket = connect(port, '127.0.0.1');
    stalled.on('error', () => undefined);
    await once(stalled, 'connect');
    stalled.write('GET /endless HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await once(stalled, 'data'); // the response has started...
    stalled.pause(); // ...and is never read again

    // Another client is served while the first one stalls.
    const ping = await fetch(`http://127.0.0.1:${port}/ping`);
    expect(await ping.text()).toBe('pong');

    // A paused client socket reports nothing: watch the server's end of the connection.
    const [serverSide] = await onServer;
    const started = Date.now();
    if (!serverSide.destroyed) await once(serverSide, 'close'); // cut by the server: nothing else closes it
    expect(Date.now() - started).toBeLessThan(10_000);
    stalled.destroy();
    // The producer ran until the socket's buffers were full (a few MiB on loopback), then waited.
    expect(produced * CHUNK.length).toBeLessThan(64 * 1024 * 1024);
    for (let i = 0; i < 100 && !finished; i++) await new Promise((r) => setTimeout(r, 10));
    expect(finished).toBe(true);
  });

  it('cuts a connection whose method answers nothing for longer than the timeout', async () => {
    gate = deferred();
    app = new Application({ resources: [Endless], limits: { sendTimeout: 200 }, logger: () => undefined });
    const { port } = await app.listen(0);
    const { client, server } = await rawPair(app, port);
    const sent = performance.now();
    client.write('GET /held HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    if (!server.destroyed) await once(server, 'close');
    // Not before the timeout (a little slack for timer granularity), not much after it.
    const after = performance.now() - sent;
    expect(after).toBeGreaterThanOrEqual(190);
    expect(after).toBeLessThan(5_000);
    client.destroy();
    gate.resolve();
  });

  it("emits the socket's `timeout` as Node's own timer did: a server listener decides instead of the cut", async () => {
    gate = deferred();
    app = new Application({ resources: [Endless], limits: { sendTimeout: 100 }, logger: () => undefined });
    const { port } = await app.listen(0);
    const timedOut = once(app.server!, 'timeout') as Promise<[Socket]>;
    const { client, server } = await rawPair(app, port);
    client.write('GET /held HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const [socket] = await timedOut;
    expect(socket).toBe(server);
    // A listener took the event: Node leaves the socket to it, so it is still open.
    expect(server.destroyed).toBe(false);
    gate.resolve();
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      client.on('data', (c: Buffer) => {
        text += c.toString('latin1');
        if (text.includes('late')) resolve(text);
      });
    });
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    client.destroy();
  });

  it('leaves a response that keeps moving, however long it takes in total', async () => {
    slowStepMs = 50;
    app = new Application({ resources: [Endless], limits: { sendTimeout: 200 }, logger: () => undefined });
    const { port } = await app.listen(0);
    const started = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}/slow`);
    expect(await res.text()).toBe('0;1;2;3;4;5;6;7;8;9;');
    expect(performance.now() - started).toBeGreaterThan(400);
  });

  it('does not apply between requests: an idle kept-alive connection lasts its keepAliveTimeout', async () => {
    app = new Application({ resources: [Endless], limits: { sendTimeout: 100, keepAliveTimeout: 5_000 }, logger: () => undefined });
    const { port } = await app.listen(0);
    const { client, server } = await rawPair(app, port);
    const ask = (): Promise<string> =>
      new Promise((resolve) => {
        let text = '';
        const onData = (c: Buffer): void => {
          text += c.toString('latin1');
          if (text.endsWith('pong')) {
            client.off('data', onData);
            resolve(text);
          }
        };
        client.on('data', onData);
        client.write('GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      });
    expect(await ask()).toMatch(/^HTTP\/1\.1 200 /);
    // Idle for four timeouts (the time passing is what is tested, not a stand-in for an event).
    await new Promise((r) => setTimeout(r, 400));
    expect(server.destroyed).toBe(false);
    expect(await ask()).toMatch(/^HTTP\/1\.1 200 /);
    client.destroy();
  });

  it('cuts a stalled connection over TLS too', async () => {
    gate = deferred();
    app = new Application({ resources: [Endless], limits: { sendTimeout: 200 }, logger: () => undefined });
    const { port } = await app.listen(0, '127.0.0.1', { tls: { key: TEST_TLS.key, cert: TEST_TLS.cert } });
    const onServer = once(app.server!, 'secureConnection') as Promise<[Socket]>;
    const client = tlsConnect({ port, host: '127.0.0.1', ca: TEST_TLS.cert, servername: 'localhost' });
    client.on('error', () => undefined);
    await once(client, 'secureConnect');
    const [server] = await onServer;
    client.write('GET /held HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    if (!server.destroyed) await once(server, 'close');
    client.destroy();
    gate.resolve();
  });

  it('0 turns it off: validated like every limit', () => {
    expect(() => new Application({ limits: { sendTimeout: -1 } })).toThrow(/limits.sendTimeout must be a non-negative integer/);
    expect(new Application({ limits: { sendTimeout: 0 } }).limits.sendTimeout).toBe(0);
  });
});
