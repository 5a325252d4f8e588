/**
 * A client that never reads its response holds nothing for long: a streamed body stops being
 * produced once the socket's buffers are full (backpressure), and after `limits.sendTimeout` without
 * progress the connection is cut and the producer ended (its `finally` runs). Other clients are
 * served meanwhile. Over a real socket (in-process has no socket to stall).
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Application, GET, Path, Produces } from '../../src/index.js';
import { DEFAULT_LIMITS } from '../../src/core/internal/defaults.js';

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

  it('0 turns it off: validated like every limit', () => {
    expect(() => new Application({ limits: { sendTimeout: -1 } })).toThrow(/limits.sendTimeout must be a non-negative integer/);
    expect(new Application({ limits: { sendTimeout: 0 } }).limits.sendTimeout).toBe(0);
  });
});
