/**
 * autocannon for both of its users: the load worker (load-worker.ts, runs of a fixed duration)
 * and the instruction count (instructions.ts, runs of a fixed number of requests). A module of its
 * own because load-worker.ts is a child-process entry point: importing it would start its stdin
 * loop. autocannon is CommonJS without types, hence `createRequire` and the typed subset below.
 */
import { createRequire } from 'node:module';

/** The subset of autocannon's result the runners read (same fields as `autocannon --json`). */
export interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  /** Answers by status code. */
  statusCodeStats?: Record<string, { count: number }>;
}

/** The options the runners pass: a run lasts `duration` seconds or `amount` requests. */
export interface AutocannonOptions {
  url: string;
  connections: number;
  headers?: Record<string, string>;
  method?: string;
  body?: string;
  /** Replace `[<id>]` in `body` by a new id per request. */
  idReplacement?: boolean;
  duration?: number;
  amount?: number;
  /** Seconds before autocannon gives up on one answer (its default: 10). */
  timeout?: number;
}

type Autocannon = (options: AutocannonOptions, done: (err: Error | null, result: AutocannonResult) => void) => unknown;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/**
 * Answers autocannon counted that were not the `expected` status (outside 2xx when undefined):
 * a 304 workload expects every answer to be a 304, which autocannon counts as non-2xx.
 */
export function unexpectedAnswers(result: AutocannonResult, expected: number | undefined): number {
  if (expected === undefined) return result.non2xx;
  let n = 0;
  for (const [code, s] of Object.entries(result.statusCodeStats ?? {})) if (Number(code) !== expected) n += s.count;
  return n;
}

/**
 * One autocannon run. Rejects only when autocannon itself fails: answers outside 2xx, socket
 * errors and timeouts are counted in the result, for the caller to check.
 */
export function runAutocannon(options: AutocannonOptions): Promise<AutocannonResult> {
  // autocannon refuses an explicit `method: undefined` ("undefined HTTP method is not supported"):
  // unset options are left out, so GET routes keep autocannon's defaults.
  const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as AutocannonOptions;
  return new Promise((resolve, reject) => {
    autocannon(defined, (err, result) => {
      if (err !== null) reject(err);
      else resolve(result);
    });
  });
}
