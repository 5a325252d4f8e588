/**
 * What one autocannon run measured, as the runners read it. A module of its own, without side
 * effects: the service's load worker (service/load-worker.ts, a child-process entry point) prints
 * the same fields and must not start anything by importing it.
 */
import type { AutocannonResult } from './autocannon.js';

/** What one autocannon run measured. */
export interface LoadResult {
  /** Mean requests per second over the run (autocannon's `requests.average`). */
  rps: number;
  /** Requests answered. */
  total: number;
  /** Latency percentiles in milliseconds (autocannon's histogram has 1 ms resolution). */
  p50: number;
  p99: number;
  /** Answers outside 2xx (or, for a workload expecting one status, not that status), socket errors and timeouts: any of them fails the benchmark. */
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Seconds autocannon actually ran. */
  duration: number;
}

/** The fields of autocannon's result the runners use, flattened. */
export function toLoadResult(r: AutocannonResult): LoadResult {
  return {
    rps: r.requests.average,
    total: r.requests.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    duration: r.duration,
  };
}
