/**
 * The load generator: autocannon in its own process (load-worker.ts), pinned to the load core,
 * so the server's core does nothing but serve. Its result is reduced to what the table needs.
 */
import { fileURLToPath } from 'node:url';
import type { AutocannonResult } from './load-worker.js';
import { runToEnd, start } from './proc.js';

/** What one autocannon run measured. */
export interface LoadResult {
  /** Mean requests per second over the run (autocannon's `requests.average`). */
  rps: number;
  /** Requests answered. */
  total: number;
  /** Latency percentiles in milliseconds (autocannon's histogram has 1 ms resolution). */
  p50: number;
  p99: number;
  /** Answers outside 2xx, socket errors and timeouts: any of them fails the benchmark. */
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Seconds autocannon actually ran. */
  duration: number;
  /** CPU seconds the load generator itself used. */
  loadCpuSeconds: number;
}

const WORKER = fileURLToPath(new URL('./load-worker.js', import.meta.url));

/** Load settings shared by every run. */
export interface LoadOptions {
  /** `taskset -c <cpu>` prefix, or empty. */
  pin: string[];
  connections: number;
  /** Seconds. */
  duration: number;
  cwd: string;
}

/** Runs autocannon against `url` for `options.duration` seconds (bounded: duration + 30 s). */
export async function load(url: string, options: LoadOptions, headers?: Record<string, string>): Promise<LoadResult> {
  const args = [WORKER, url, String(options.connections), String(options.duration)];
  if (headers !== undefined) args.push(JSON.stringify(headers));
  const child = start(options.pin, process.execPath, args, process.env, options.cwd);
  const out = await runToEnd(child, (options.duration + 30) * 1000, 'autocannon');
  let r: AutocannonResult & { cpuSeconds: number };
  try {
    r = JSON.parse(out.trim().split('\n').pop() ?? '') as AutocannonResult & { cpuSeconds: number };
  } catch {
    throw new Error(`autocannon printed no JSON result: ${out.slice(0, 500)}`);
  }
  return {
    rps: r.requests.average,
    total: r.requests.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    duration: r.duration,
    loadCpuSeconds: r.cpuSeconds,
  };
}

/** The middle value (mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
