/**
 * Server-sent events fan-out (`pnpm --filter @jaxrs-node/bench run sse-fanout`): one pipeline
 * server process holds `SSE_CLIENTS` (default 5000) open `text/event-stream` connections, made by a
 * separate client process (so the clients never share the server's event loop; each is pinned to
 * its own core when `taskset` works), and measures:
 *
 * 1. RSS and heap per idle client: the server's memory after a full GC with every client
 *    connected and registered with an `SseBroadcaster`, minus before any connected, over the count;
 * 2. delivery latency of one broadcast to every client (from the server's clock when it
 *    broadcasts to the client's clock when the event is parsed; both processes read the same
 *    system clock), over `SSE_ROUNDS` broadcasts 100 ms apart (after 5 not counted, which compile
 *    the send path): p50, p99 (target < 250 ms) and max;
 * 3. one client that stops reading: it also subscribes to a bulk stream (64 KiB events every
 *    10 ms) until its queue passes `queueLimit` and the server closes it. The latency rounds go on
 *    meanwhile; the report gives the others' p99 in that phase and the server's RSS growth: its
 *    peak (which includes frames already handed to the kernel but not yet collected) and what is
 *    left after a full GC once the client was closed (kernel socket buffers are not in RSS).
 *
 * Needs `ulimit -n` above the client count plus a few hundred in both processes (each holds one
 * descriptor per connection); the run stops at once with the fix when it is lower. Results go to
 * stdout as a table and to `results/sse-fanout.json`.
 */
import 'reflect-metadata';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Application,
  Context,
  GET,
  OutboundSseEvent,
  Path,
  Produces,
  SseBroadcaster,
  SseClosedError,
  SseEventSink,
  SseFeature,
} from '@jaxrs-node/pipeline';
import { pinning } from './proc.js';
import { intEnv } from './runner-util.js';

const SELF = fileURLToPath(import.meta.url);
const PKG_DIR = join(dirname(SELF), '..');
const CLIENTS = intEnv('SSE_CLIENTS', 5000, 1, 50_000);
const ROUNDS = intEnv('SSE_ROUNDS', 30, 1, 10_000);
const WARMUP_ROUNDS = 5;
const QUEUE_LIMIT = intEnv('SSE_QUEUE_LIMIT', 1024 * 1024, 1024, 1 << 30);
const BULK_BYTES = 64 * 1024;
const ROUND_TIMEOUT_MS = 10_000;

/** The clock both processes share: epoch milliseconds with sub-millisecond precision. */
const now = (): number => performance.timeOrigin + performance.now();

type Message = Record<string, unknown> & { type: string };

/** Sends `message` to the parent, or to `child`. */
function post(message: Message, child?: ChildProcess): void {
  if (child !== undefined) child.send(message);
  else process.send!(message);
}

/** The next message of `type` from the parent (or `child`), rejecting after `ms`. */
function next<T extends Message>(type: string, child?: ChildProcess, ms = 60_000): Promise<T> {
  const from: NodeJS.EventEmitter = child ?? process;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      from.off('message', on);
      reject(new Error(`no '${type}' message within ${ms} ms`));
    }, ms);
    const on = (m: Message): void => {
      if (m.type !== type) return;
      clearTimeout(timer);
      from.off('message', on);
      resolve(m as T);
    };
    from.on('message', on);
  });
}

// ---- the server process -----------------------------------------------------------------------

const all = new SseBroadcaster();
const bulk = new SseBroadcaster();
let bulkClosed: { reason: string; afterMs: number } | undefined;

@Path('/events')
class Events {
  @GET() @Produces('text/event-stream') subscribe(@Context() sink: SseEventSink): void {
    all.register(sink);
  }

  /** The client that stops reading: also on the bulk stream. */
  @GET() @Path('bulk') @Produces('text/event-stream') slow(@Context() sink: SseEventSink): void {
    all.register(sink);
    bulk.register(sink);
  }
}

/** RSS and heap after a full collection. */
function memory(): { rss: number; heapUsed: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed };
}

async function server(): Promise<void> {
  const app = new Application({
    resources: [Events],
    providers: [new SseFeature({ queueLimit: QUEUE_LIMIT })],
    logger: (e) => process.stderr.write(`${String(e)}\n`),
  });
  const { port } = await app.listen(0, '127.0.0.1');
  let floodStart = 0;
  bulk.onClose((sink) => {
    bulkClosed = { reason: (sink.signal.reason as SseClosedError).reason, afterMs: now() - floodStart };
  });
  process.on('message', (m: Message) => {
    switch (m.type) {
      case 'memory':
        post({ type: 'memory', ...memory(), registered: all.size });
        break;
      case 'broadcast':
        all.broadcast(OutboundSseEvent.builder().id(String(m.round)).data(String(now())).build());
        break;
      case 'flood': {
        // 64 KiB events to the bulk subscriber every 10 ms until it is closed; RSS sampled meanwhile.
        floodStart = now();
        const before = memory().rss;
        let peak = before;
        const data = 'x'.repeat(BULK_BYTES);
        const timer = setInterval(() => {
          peak = Math.max(peak, process.memoryUsage.rss());
          if (bulk.size > 0) bulk.broadcast(OutboundSseEvent.builder().data(data).build());
          else if (bulkClosed !== undefined) {
            clearInterval(timer);
            post({ type: 'flooded', ...bulkClosed, rssBefore: before, rssPeak: peak, rssAfter: memory().rss });
          }
        }, 10);
        break;
      }
      case 'stop':
        void app.close(2000).then(() => process.exit(0));
        break;
    }
  });
  post({ type: 'ready', port });
}

// ---- the client process -----------------------------------------------------------------------

/** One event-stream connection; calls `onData` with every `data:` value of an event id it sees. */
function open(port: number, path: string, onEvent: (id: number, data: string) => void): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.setEncoding('latin1');
    let headed = false;
    let rest = '';
    socket.once('error', reject);
    socket.on('data', (chunk: string) => {
      if (!headed) {
        headed = true;
        if (!chunk.startsWith('HTTP/1.1 200')) reject(new Error(`unexpected answer: ${chunk.slice(0, 100)}`));
        else resolve(socket);
      }
      // Latency events are small and come whole; the bulk client never reads them.
      const text = rest + chunk;
      const pattern = /id: (\d+)\ndata: ([\d.]+)\n\n/g;
      let last = 0;
      for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
        onEvent(Number(m[1]), m[2]!);
        last = pattern.lastIndex;
      }
      rest = text.slice(Math.max(last, text.length - 256));
    });
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`);
  });
}

async function clients(port: number, count: number): Promise<void> {
  const latencies: number[] = [];
  const received = new Map<number, number>();
  const onEvent = (round: number, data: string): void => {
    latencies.push(now() - Number(data));
    const n = (received.get(round) ?? 0) + 1;
    received.set(round, n);
    if (n === count) post({ type: 'round', round });
  };
  const sockets: Socket[] = [];
  for (let i = 0; i < count; i += 200) {
    const batch = Math.min(200, count - i);
    sockets.push(...(await Promise.all(Array.from({ length: batch }, () => open(port, '/events', onEvent)))));
  }
  post({ type: 'connected', count: sockets.length });
  let slow: Socket | undefined;
  process.on('message', (m: Message) => {
    if (m.type === 'latencies') {
      post({ type: 'latencies', values: latencies.splice(0) });
    } else if (m.type === 'stall') {
      void open(port, '/events/bulk', () => undefined).then((s) => {
        slow = s;
        s.pause(); // stops reading: its kernel buffers fill, then its queue on the server
        post({ type: 'stalled' });
      });
    } else if (m.type === 'stop') {
      slow?.destroy();
      for (const s of sockets) s.destroy();
      process.exit(0);
    }
  });
}

// ---- the orchestrator -------------------------------------------------------------------------

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function summary(values: number[]): { deliveries: number; p50: number; p99: number; max: number } {
  const sorted = values.sort((a, b) => a - b);
  return { deliveries: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? Number.NaN };
}

/** The file-descriptor limit children inherit, and the fix when it is too low. */
function checkDescriptors(): void {
  const limit = Number(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim());
  if (Number.isFinite(limit) && limit < CLIENTS + 256) {
    throw new Error(`ulimit -n is ${limit}: ${CLIENTS} clients need at least ${CLIENTS + 256}; run 'ulimit -n ${CLIENTS + 1024}' first`);
  }
}

function child(role: string, cpu: string, args: string[]): ChildProcess {
  const pin = pinning(cpu);
  const argv = [...pin, process.execPath, '--expose-gc', SELF, role, ...args];
  const c = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], cwd: PKG_DIR });
  process.once('exit', () => c.kill('SIGKILL'));
  return c;
}

/** `count` broadcasts, each once every client has the previous one; the latencies of all deliveries. */
async function rounds(srv: ChildProcess, cli: ChildProcess, first: number, count: number): Promise<number[]> {
  for (let r = first; r < first + count; r++) {
    const done = next('round', cli, ROUND_TIMEOUT_MS);
    post({ type: 'broadcast', round: r }, srv);
    await done;
    // Rounds 100 ms apart: a steady trickle, not a flood.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const got = next<Message & { values: number[] }>('latencies', cli);
  post({ type: 'latencies' }, cli);
  return (await got).values;
}

async function orchestrate(): Promise<void> {
  checkDescriptors();
  const srv = child('server', '0', []);
  const { port } = await next<Message & { port: number }>('ready', srv, 15_000);
  const memBefore = next<Message & { rss: number; heapUsed: number }>('memory', srv);
  post({ type: 'memory' }, srv);
  const before = await memBefore;

  const cli = child('clients', '1', [String(port), String(CLIENTS)]);
  const started = performance.now();
  await next('connected', cli, 120_000);
  const connectMs = performance.now() - started;
  const memIdle = next<Message & { rss: number; heapUsed: number; registered: number }>('memory', srv);
  post({ type: 'memory' }, srv);
  const idle = await memIdle;

  await rounds(srv, cli, 1, WARMUP_ROUNDS); // compiles the send path; not counted
  const steady = summary(await rounds(srv, cli, 1 + WARMUP_ROUNDS, ROUNDS));

  const stalled = next('stalled', cli);
  post({ type: 'stall' }, cli);
  await stalled;
  const flooded = next<Message & { reason: string; afterMs: number; rssBefore: number; rssPeak: number; rssAfter: number }>(
    'flooded',
    srv,
    120_000,
  );
  post({ type: 'flood' }, srv);
  const withSlow = summary(await rounds(srv, cli, 1 + WARMUP_ROUNDS + ROUNDS, ROUNDS));
  const flood = await flooded;

  post({ type: 'stop' }, cli);
  post({ type: 'stop' }, srv);

  const mib = (b: number): number => Math.round((b / 1024 / 1024) * 10) / 10;
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
    clients: CLIENTS,
    registered: idle.registered,
    connectSeconds: Math.round(connectMs) / 1000,
    rssPerIdleClientKiB: Math.round((idle.rss - before.rss) / CLIENTS / 102.4) / 10,
    heapPerIdleClientKiB: Math.round((idle.heapUsed - before.heapUsed) / CLIENTS / 102.4) / 10,
    latencyMs: { steady, withSlowClient: withSlow },
    slowClient: {
      queueLimitMiB: mib(QUEUE_LIMIT),
      closedBecause: flood.reason,
      closedAfterMs: Math.round(flood.afterMs),
      /** Peak during the flood: includes 64 KiB frames already written but not yet collected. */
      serverRssPeakGrowthMiB: mib(flood.rssPeak - flood.rssBefore),
      /** After a full GC once it was closed. */
      serverRssRetainedMiB: mib(flood.rssAfter - flood.rssBefore),
    },
  };
  const fmt = (s: typeof steady): string =>
    `p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms, max ${s.max.toFixed(1)} ms over ${s.deliveries} deliveries`;
  console.log(
    `SSE fan-out, ${CLIENTS} clients (${result.registered} registered), Node ${process.version}, load ${result.loadAverage.join(' ')}`,
  );
  console.log(`  connect all:            ${result.connectSeconds} s`);
  console.log(`  per idle client:        RSS ${result.rssPerIdleClientKiB} KiB, heap ${result.heapPerIdleClientKiB} KiB`);
  console.log(`  broadcast latency:      ${fmt(steady)}  (target p99 < 250 ms)`);
  console.log(`  with a stalled client:  ${fmt(withSlow)}`);
  console.log(
    `  stalled client:         closed (${flood.reason}) after ${result.slowClient.closedAfterMs} ms; ` +
      `server RSS peak +${result.slowClient.serverRssPeakGrowthMiB} MiB (uncollected frames included), ` +
      `+${result.slowClient.serverRssRetainedMiB} MiB after GC (queue bound ${result.slowClient.queueLimitMiB} MiB)`,
  );
  mkdirSync(join(PKG_DIR, 'results'), { recursive: true });
  writeFileSync(join(PKG_DIR, 'results', 'sse-fanout.json'), `${JSON.stringify(result, null, 2)}\n`);
}

const [role, ...args] = process.argv.slice(2);
if (role === 'server') await server();
else if (role === 'clients') await clients(Number(args[0]), Number(args[1]));
else await orchestrate();
