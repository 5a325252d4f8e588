/**
 * What the benchmark runners (`run.ts`, `instructions.ts`) share: the package directory, env
 * parsing, starting a server and waiting for it, and the rule every load run must pass.
 *
 * `spawnServer` lives here rather than in launch.ts because launch.ts reads the `BENCH_*`
 * settings (config.ts) on import, which `instructions.ts` must not: an invalid `BENCH_*` value
 * would then stop the instruction count too.
 */
import type { ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadResult } from './load-result.js';
import { capture, freePort, start, waitUntil } from './proc.js';
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

/** A started server process: where it answers, the process, and what it has printed so far. */
export interface ServerProcess {
  url: string;
  child: ChildProcess;
  io: { stdout: () => string; stderr: () => string };
}

/** How {@link spawnServer} runs a server: what differs between the throughput and the instruction runner. */
export interface SpawnOptions {
  /** Programs in front of the server's executable, which exec or run it (`taskset -c 0`, `valgrind --tool=callgrind ...`); may be empty. */
  prefix: string[];
  /** Arguments for the server's runtime, between its executable and `spec.args` (node flags such as `--cpu-prof`). */
  runtimeArgs: string[];
  /** How long {@link SpawnedServer.ready} waits for the server's readiness test, in ms. */
  readyMs: number;
}

/** A server just started by {@link spawnServer}, not yet known to be ready. */
export interface SpawnedServer extends ServerProcess {
  /**
   * Resolves once the server passes its readiness test (`readyCheck`); rejects when it exits
   * first, after `readyMs`, or when its `ready` regex is invalid. It never stops the server: the
   * caller does, with its own grace time, so call it inside the caller's try.
   */
  readonly ready: () => Promise<void>;
}

/**
 * Starts `spec` on a free 127.0.0.1 port (`{port}` in its url and `PORT` in its environment) from
 * the package directory, as `prefix... executable runtimeArgs... spec.args...`, capturing its output.
 */
export async function spawnServer(spec: ServerSpec, options: SpawnOptions): Promise<SpawnedServer> {
  const port = await freePort();
  const url = spec.url.replaceAll('{port}', String(port));
  const args = [...options.runtimeArgs, ...spec.args];
  const child = start(options.prefix, commandOf(spec), args, { ...process.env, ...spec.env, PORT: String(port) }, PKG_DIR);
  const io = capture(child);
  // readyCheck runs inside ready(), so an invalid regex rejects where the caller stops the server.
  const ready = async (): Promise<void> => waitUntil(child, readyCheck(spec, url, io.stdout), options.readyMs, spec.name);
  return { url, child, io, ready };
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
