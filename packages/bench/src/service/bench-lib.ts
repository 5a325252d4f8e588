// Process plumbing for service-bench.ts and cluster-bench.ts: pinned children, readiness, bounded
// stop, CPU accounting from /proc, a quiet-machine wait and the pinned worker runs. Every wait here
// has a deadline; only children started here are ever signalled.
import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { LatencyOptions, LatencyResult, ThroughputOptions, ThroughputResult } from './load-worker.js';

export type { LatencyOptions, LatencyResult, ThroughputOptions, ThroughputResult } from './load-worker.js';

const WORKER = fileURLToPath(new URL('./load-worker.js', import.meta.url));

/** A child started by {@link start}: its last 64 KiB of stdout and stderr stay readable. */
export type Child = ChildProcessByStdio<null, Readable, Readable> & { io: { stdout: () => string; stderr: () => string } };

/** Children still alive, killed if the runner exits early. */
const live = new Set<Child>();
process.once('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

/** `taskset -c <cpu>` prefix when pinning works here, else [] with a warning. */
export function pinning(cpu: string): string[] {
  const r = spawnSync('taskset', ['-c', cpu, 'true'], { stdio: 'ignore', timeout: 5000 });
  if (r.status === 0) return ['taskset', '-c', cpu];
  process.stderr.write(`warning: cannot pin to CPU ${cpu}: results are noisier\n`);
  return [];
}

/** Starts `cmd args` behind `pin` (taskset execs, so the pid is the program's own); captures output. */
export function start(pin: string[], cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd: string | undefined): Child {
  const [program = cmd, ...rest] = pin;
  const argv = pin.length > 0 ? [...rest, cmd, ...args] : args;
  let out = '';
  let err = '';
  const child = Object.assign(spawn(program, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }), {
    io: { stdout: () => out, stderr: () => err },
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  const keep = (s: string) => (s.length > 65536 ? s.slice(-65536) : s);
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out = keep(out + d);
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    err = keep(err + d);
  });
  return child;
}

/** Resolves with the port of the first `listening on http://host:PORT` line; rejects on exit or timeout. */
export function listeningPort(child: Child, timeoutMs: number, what: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`${what} not listening after ${timeoutMs} ms`)), timeoutMs);
    const onData = () => {
      const m = /listening on http:\/\/[^:\s]+:(\d+)/.exec(child.io.stdout());
      if (m) done(undefined, Number(m[1]));
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      done(new Error(`${what} exited before listening (code ${code}, signal ${signal}): ${child.io.stderr().slice(-1500)}`));
    function done(err: Error | undefined, port?: number) {
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.off('exit', onExit);
      if (err) reject(err);
      else resolve(port ?? 0);
    }
    child.stdout.on('data', onData);
    child.once('exit', onExit);
    onData();
  });
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the child is gone. */
export function stop(child: Child, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Runs load-worker.ts pinned with `options`; resolves with its JSON result (bounded). */
export function runWorker(pin: string[], options: ThroughputOptions, timeoutMs: number): Promise<ThroughputResult>;
export function runWorker(pin: string[], options: LatencyOptions, timeoutMs: number): Promise<LatencyResult>;
export function runWorker(pin: string[], options: ThroughputOptions | LatencyOptions, timeoutMs: number): Promise<unknown> {
  const child = start(pin, process.execPath, [WORKER, JSON.stringify(options)], process.env, undefined);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`load worker did not finish in ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`load worker failed (${code}): ${child.io.stderr().slice(-1500)}`));
      try {
        resolve(JSON.parse(child.io.stdout().trim().split('\n').pop() ?? '') as unknown);
      } catch {
        reject(new Error(`load worker printed no JSON: ${child.io.stdout().slice(0, 300)}`));
      }
    });
  });
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 5000 }).stdout?.trim()) || 100;

/** User + system CPU seconds of a process so far (Linux /proc), undefined elsewhere. */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** CPU seconds the whole machine has been busy (user, nice, system, steal), undefined elsewhere. */
export function machineBusySeconds(): number | undefined {
  try {
    const cpu = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0] = cpu;
    return (user + nice + system + (cpu[7] ?? 0)) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** Waits (bounded by `maxWaitS`) until other programs use at most `maxNoise` cores. */
export async function waitQuiet(maxNoise: number, maxWaitS: number): Promise<number> {
  const deadline = Date.now() + maxWaitS * 1000;
  for (;;) {
    const a = machineBusySeconds();
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, 500));
    const b = machineBusySeconds();
    if (a === undefined || b === undefined) return 0;
    const busy = (b - a) / ((performance.now() - t0) / 1000);
    if (busy <= maxNoise) return busy;
    if (Date.now() > deadline) {
      process.stderr.write(`warning: machine still busy (${busy.toFixed(2)} cores) after ${maxWaitS} s; measuring anyway\n`);
      return busy;
    }
  }
}

/** The middle value (mean of the middle two for an even count); NaN for none. */
export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const at = (i: number) => s[i] ?? Number.NaN;
  return s.length % 2 === 1 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
}

/**
 * The knobs every service benchmark reads from the environment (the bench README, "The user service"):
 * BENCH_DURATION, BENCH_ROUNDS, BENCH_WARMUP, BENCH_CONNECTIONS, BENCH_SERVER_CPU, BENCH_LOAD_CPU,
 * BENCH_ONLY, BENCH_MAX_NOISE, BENCH_QUIET_WAIT, BENCH_ATTEMPTS; `defaults` sets the last two.
 */
export function benchConfig(env: NodeJS.ProcessEnv, defaults: { quietWait: number; attempts: number }) {
  const int = (name: string, fallback: number) => (env[name] === undefined || env[name] === '' ? fallback : Number(env[name]));
  return {
    duration: int('BENCH_DURATION', 5),
    rounds: int('BENCH_ROUNDS', 3),
    warmup: int('BENCH_WARMUP', 2),
    connections: int('BENCH_CONNECTIONS', 10),
    serverCpu: env.BENCH_SERVER_CPU ?? '0',
    loadCpu: env.BENCH_LOAD_CPU ?? '1',
    only: (env.BENCH_ONLY ?? 'a,b,c').split(','),
    maxNoise: Number(env.BENCH_MAX_NOISE ?? '0.15'),
    quietWait: int('BENCH_QUIET_WAIT', defaults.quietWait),
    attempts: int('BENCH_ATTEMPTS', defaults.attempts),
  };
}
