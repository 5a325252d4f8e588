/**
 * What the benchmark runners (`run.ts`, `instructions.ts`) share: the package directory, env
 * parsing, server readiness and the rule every load run must pass.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadResult } from './load.js';
import type { ServerSpec } from './servers.js';

/** The bench package directory: servers start there, so their relative `args` resolve the same from any cwd. */
export const PKG_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

/** An integer environment variable in [min, max], `fallback` when unset or empty. */
export function intEnv(name: string, fallback: number, min: number, max: number): number {
  return envNumber(name, fallback, min, max, true);
}

/** A number environment variable in [min, max], `fallback` when unset or empty. */
export function numberEnv(name: string, fallback: number, min: number, max: number): number {
  return envNumber(name, fallback, min, max, false);
}

function envNumber(name: string, fallback: number, min: number, max: number, integer: boolean): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  const ok = integer ? Number.isInteger(n) : Number.isFinite(n);
  if (!ok || n < min || n > max) throw new Error(`${name} must be ${integer ? 'an integer' : 'a number'} in [${min}, ${max}], got ${raw}`);
  return n;
}

/**
 * The readiness test to poll (`waitUntil`) for a started server: its `ready` regex (default
 * `^ready\b`) against what it has printed so far (`stdout`), or with `ready: 'poll'` whether `url`
 * answers 2xx. An invalid regex throws here, so call it where a failure stops the server.
 */
export function readyCheck(spec: ServerSpec, url: string, stdout: () => string): () => Promise<boolean> {
  if (spec.ready === 'poll') return () => answers(url, spec.headers);
  const pattern = new RegExp(spec.ready ?? '^ready\\b', 'm');
  return async () => pattern.test(stdout());
}

/** Does `url` answer 2xx within a second (readiness polling for servers that print nothing)? */
async function answers(url: string, headers: Record<string, string> | undefined): Promise<boolean> {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

/** The executable for a server: `node` is this process's own (a PATH lookup could find another version, or a shell shim). */
export function commandOf(spec: ServerSpec): string {
  return spec.cmd === 'node' ? process.execPath : spec.cmd;
}

/**
 * Every answer 2xx, no socket error or timeout, and at least `min` answers (by default one): else
 * the run fails. The benchmark's warm-up and measured runs and the instruction count's runs all pass this.
 */
export function check(url: string, r: LoadResult, min = 1): void {
  if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0) {
    throw new Error(`${r.non2xx} non-2xx answers, ${r.errors} errors, ${r.timeouts} timeouts under load (${r.total} answered, ${url})`);
  }
  if (r.total < min) throw new Error(`${r.total === 0 ? 'no' : `only ${r.total} of ${min}`} requests answered (${url})`);
}
