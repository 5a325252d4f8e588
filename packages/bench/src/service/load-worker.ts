// Runs in its own process, pinned to the load core (see bench-lib.ts runWorker). One JSON
// argument, one JSON line on stdout.
//   { mode: 'throughput', url, connections, duration, method?, headers?, body?, idReplacement?, fineLatency?, overallRate? }
//     autocannon for `duration` seconds. `idReplacement`: every `[<id>]` in the body becomes a
//     unique id per request (e.g. unique e-mails per POST).
//     `fineLatency`: also p50Us / p99Us of the 2xx answers from autocannon's own per-response
//     times (its histogram has 1 ms resolution). `overallRate`: requests per second for all
//     connections together (open loop at that rate, below saturation) instead of as fast as possible.
//   { mode: 'latency', url, headers?, samples, maxSeconds, warmup }
//     one connection, one request at a time, timed with hrtime: the service time of a request,
//     without queueing behind other connections (autocannon's histogram has 1 ms resolution).
import type { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import type { AutocannonOptions, AutocannonResult } from '../autocannon.js';
import { toLoadResult, type LoadResult } from '../load-result.js';

/** A throughput run: autocannon for `duration` seconds (see the header). */
export interface ThroughputOptions {
  mode: 'throughput';
  url: string;
  connections: number;
  duration: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  idReplacement?: boolean;
  fineLatency?: boolean;
  overallRate?: number;
}

/** A latency run: one connection, one request at a time (see the header). */
export interface LatencyOptions {
  mode: 'latency';
  url: string;
  headers?: Record<string, string>;
  samples?: number;
  maxSeconds?: number;
  warmup?: number;
}

/** What a throughput run prints: autocannon's result as the other runners read it, p50Us / p99Us only with `fineLatency`. */
export interface ThroughputResult extends LoadResult {
  p50Us?: number | null;
  p99Us?: number | null;
  cpuSeconds: number;
}

/** What a latency run prints (microseconds). */
export interface LatencyResult {
  count: number;
  p50Us: number;
  p99Us: number;
  maxUs: number;
  bytes: number;
  cpuSeconds: number;
}

/** The autocannon options and events this worker uses beyond ../autocannon.ts's subset. */
type Autocannon = (
  options: AutocannonOptions & { method: string; body?: string; idReplacement: boolean; overallRate?: number },
  done: (err: Error | null, result: AutocannonResult) => void,
) => EventEmitter;

const options = JSON.parse(process.argv[2] ?? '{}') as ThroughputOptions | LatencyOptions;
const startCpu = process.cpuUsage();

function finish(result: Omit<ThroughputResult, 'cpuSeconds'> | Omit<LatencyResult, 'cpuSeconds'>): void {
  const cpu = process.cpuUsage(startCpu);
  const line = JSON.stringify({ ...result, cpuSeconds: (cpu.user + cpu.system) / 1e6 });
  // Exit once the line is flushed: autocannon may leave timers behind.
  process.stdout.write(`${line}\n`, () => process.exit(0));
}

function fail(err: unknown): never {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
}

function loadAutocannon(): Autocannon {
  try {
    return createRequire(import.meta.url)('autocannon') as Autocannon;
  } catch (e) {
    throw new Error(`autocannon is not installed in packages/bench (run pnpm install there): ${(e as Error).message}`);
  }
}

/** Response times in microseconds of at most 10^7 2xx answers (bounded memory). */
const fineTimes: number[] = [];

/** p50 / p99 of `fineTimes` in microseconds (the sample at floor(q * n) of the sorted times). */
function fineQuantiles(): { p50Us: number | null; p99Us: number | null } {
  if (fineTimes.length === 0) return { p50Us: null, p99Us: null };
  fineTimes.sort((a, b) => a - b);
  const pick = (q: number) => fineTimes[Math.min(fineTimes.length - 1, Math.floor(q * fineTimes.length))] ?? null;
  return { p50Us: pick(0.5), p99Us: pick(0.99) };
}

function throughput(options: ThroughputOptions): void {
  const autocannon = loadAutocannon();
  const {
    url,
    connections,
    duration,
    method = 'GET',
    headers = {},
    body,
    idReplacement = false,
    fineLatency = false,
    overallRate,
  } = options;
  const instance = autocannon({ url, connections, duration, method, headers, body, idReplacement, overallRate }, (err, r) => {
    if (err) return fail(err);
    finish({ ...(fineLatency ? fineQuantiles() : {}), ...toLoadResult(r) });
  });
  if (fineLatency) {
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status >= 200 && status < 300 && fineTimes.length < 1e7) fineTimes.push(ms * 1000);
    });
  }
}

async function latency(options: LatencyOptions): Promise<void> {
  const { Client } = await import('undici');
  const { url, headers = {}, samples = 500, maxSeconds = 5, warmup = 20 } = options;
  const target = new URL(url);
  const client = new Client(target.origin, { pipelining: 1, headersTimeout: 120_000, bodyTimeout: 120_000 });
  const path = target.pathname + target.search;
  const times: number[] = [];
  let bytes = 0;
  const deadline = performance.now() + maxSeconds * 1000;
  // Bounded by count and by time; at least 5 measured samples even for very slow requests.
  for (let i = 0; i < warmup + samples; i++) {
    if (i >= warmup + 5 && performance.now() > deadline) break;
    const t0 = process.hrtime.bigint();
    const res = await client.request({ path, method: 'GET', headers });
    const buf = Buffer.from(await res.body.arrayBuffer());
    const us = Number(process.hrtime.bigint() - t0) / 1000;
    if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${buf.toString('utf8', 0, 200)}`);
    if (i >= warmup) {
      times.push(us);
      bytes = buf.byteLength;
    }
  }
  await client.close();
  times.sort((a, b) => a - b);
  const pick = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? Number.NaN;
  finish({ count: times.length, p50Us: pick(0.5), p99Us: pick(0.99), maxUs: pick(1), bytes });
}

if (options.mode === 'throughput') {
  try {
    throughput(options);
  } catch (e) {
    fail(e);
  }
} else if (options.mode === 'latency') {
  latency(options).catch(fail);
} else {
  fail(new Error(`unknown mode ${String((options as { mode?: unknown }).mode)}`));
}
