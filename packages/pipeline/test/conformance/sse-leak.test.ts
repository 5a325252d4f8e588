/**
 * Server-sent event streams leave nothing behind when their clients go away: 10 000 connect /
 * disconnect cycles over loopback (the in-process transport cannot disconnect) end with as many
 * active handles as before and a heap that did not grow with the cycles. Each stream is
 * registered with a broadcaster and has a heartbeat, so their timers and registrations are covered.
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { Application, Context, GET, Path, Produces, SseBroadcaster, SseEventSink, SseFeature } from '../../src/index.js';

const hub = new SseBroadcaster();
let dropped = 0;
hub.onClose(() => dropped++);

@Path('/stream')
class Stream {
  @GET()
  @Produces('text/event-stream')
  get(@Context() sink: SseEventSink): void {
    hub.register(sink);
  }
}

/** A full collection: `--expose-gc` switched on at run time (the worker was not started with it). */
function collector(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing !== undefined) return existing;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** One client: connects, waits for the head of its stream, goes away. */
async function cycle(port: number): Promise<void> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  socket.write('GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n');
  await once(socket, 'data');
  socket.destroy();
  await once(socket, 'close');
}

/** Runs `count` cycles, `parallel` at a time. */
async function cycles(port: number, count: number, parallel: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        next++;
        await cycle(port);
      }
    }),
  );
}

/** Until the server has seen every client go (each drop is an event-loop turn away): bounded, no sleeps. */
async function settled(app: Application, expectedDrops: number): Promise<void> {
  for (let turn = 0; turn < 100_000; turn++) {
    const connections = await new Promise<number>((resolve, reject) => app.server!.getConnections((e, n) => (e ? reject(e) : resolve(n))));
    if (hub.size === 0 && dropped >= expectedDrops && connections === 0) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`not settled: ${hub.size} registered, ${dropped}/${expectedDrops} dropped`);
}

describe('server-sent events: no leak over 10 000 connect/disconnect cycles (socket)', () => {
  it('keeps active handles and the heap flat', { timeout: 120_000 }, async () => {
    const app = new Application({ resources: [Stream], providers: [new SseFeature({ heartbeatInterval: 1000 })], logger: () => undefined });
    const { port } = await app.listen(0);
    const gc = collector();

    await cycles(port, 500, 50); // warm-up: code compiled, pools and caches filled
    await settled(app, 500);
    gc();
    const handlesBefore = process.getActiveResourcesInfo().length;
    const heapBefore = process.memoryUsage().heapUsed;

    await cycles(port, 10_000, 50);
    await settled(app, 10_500);
    gc();
    const handlesAfter = process.getActiveResourcesInfo().length;
    const heapAfter = process.memoryUsage().heapUsed;

    expect(dropped).toBe(10_500);
    expect(handlesAfter).toBeLessThanOrEqual(handlesBefore);
    // 10 000 leaked streams would hold far more (a sink, its request and response objects, its
    // socket: several KiB each); 8 MiB leaves room for the collector's own noise.
    expect(heapAfter - heapBefore).toBeLessThan(8 * 1024 * 1024);
    await app.close(2000);
  });
});
