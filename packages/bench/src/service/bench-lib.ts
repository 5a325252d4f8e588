// Process plumbing for service-bench.ts and cluster-bench.ts: pinned children, readiness, bounded
// stop, CPU accounting from /proc, a quiet-machine wait and the pinned worker runs. The children,
// pinning and /proc readings are ../proc.ts's, as for the other runners. Every wait here has a
// deadline; only children started here are ever signalled.
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median } from '../load.js';
import { capture, cpuSeconds, machineBusySeconds, start as startChild, stop as stopChild } from '../proc.js';
import type { LatencyOptions, LatencyResult, ThroughputOptions, ThroughputResult } from './load-worker.js';

export { cpuSeconds, machineBusySeconds, pinning } from '../proc.js';
export { median };
export type { LatencyOptions, LatencyResult, ThroughputOptions, ThroughputResult } from './load-worker.js';

const WORKER = fileURLToPath(new URL('./load-worker.js', import.meta.url));

/** A child started by {@link start}: its last 64 KiB of stdout and stderr stay readable. */
export type Child = ChildProcess & { io: { stdout: () => string; stderr: () => string } };

/** Starts `cmd args` behind `pin` (taskset execs, so the pid is the program's own); captures output. */
export function start(pin: string[], cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd: string | undefined): Child {
  const child = startChild(pin, cmd, args, env, cwd);
  return Object.assign(child, { io: capture(child) });
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
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      if (err) reject(err);
      else resolve(port ?? 0);
    }
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
    onData();
  });
}

/** SIGTERM, then SIGKILL after `graceMs` (default 5 s: a service flushes its journal); resolves once the child is gone. */
export function stop(child: Child, graceMs = 5000): Promise<void> {
  return stopChild(child, graceMs);
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

/** Total CPU seconds of `pids` so far, undefined when one cannot be read. */
export function cpuOf(pids: readonly (number | undefined)[]): number | undefined {
  let total = 0;
  for (const pid of pids) {
    const s = cpuSeconds(pid);
    if (s === undefined) return undefined;
    total += s;
  }
  return total;
}

/** Throws (naming `what`) when a run had answers outside 2xx, socket errors or timeouts, or no answer at all. */
export function checkAnswers(what: string, r: ThroughputResult): void {
  if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0 || r.total === 0) {
    throw new Error(`${what}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts, ${r.total} answers`);
  }
}

/** What {@link measuredRun} measured. */
export interface MeasuredRun {
  result: ThroughputResult;
  /** CPU seconds each group of processes used during the measured run, in the order given; undefined where /proc could not tell. */
  cpu: (number | undefined)[];
  /** Cores' worth of CPU other programs used meanwhile (the machine's busy time less the groups' and the load worker's); null without /proc. */
  noise: number | null;
}

/**
 * One load as the service runners measure it: a warm-up run of `timing.warmup` seconds, a wait
 * for a quiet machine, then the measured run of `timing.duration` seconds with the CPU of each
 * group of `pids` read around it. Both runs must pass {@link checkAnswers}; each is bounded (its
 * duration + 30 s).
 */
export async function measuredRun(
  what: string,
  loadPin: string[],
  options: Omit<ThroughputOptions, 'duration'>,
  timing: { warmup: number; duration: number; maxNoise: number; quietWait: number },
  pids: readonly (readonly (number | undefined)[])[],
): Promise<MeasuredRun> {
  checkAnswers(what, await runWorker(loadPin, { ...options, duration: timing.warmup }, (timing.warmup + 30) * 1000));
  await waitQuiet(timing.maxNoise, timing.quietWait);
  const cpu0 = pids.map(cpuOf);
  const busy0 = machineBusySeconds();
  const t0 = performance.now();
  const result = await runWorker(loadPin, { ...options, duration: timing.duration }, (timing.duration + 30) * 1000);
  const wall = (performance.now() - t0) / 1000;
  const cpu1 = pids.map(cpuOf);
  const busy1 = machineBusySeconds();
  checkAnswers(what, result);
  const cpu = cpu0.map((before, i) => {
    const after = cpu1[i];
    return before === undefined || after === undefined ? undefined : after - before;
  });
  const known = cpu.reduce<number | undefined>((sum, c) => (sum === undefined || c === undefined ? undefined : sum + c), 0);
  const noise =
    known === undefined || busy0 === undefined || busy1 === undefined
      ? null
      : Math.max(0, (busy1 - busy0 - known - result.cpuSeconds) / wall);
  return { result, cpu, noise };
}

/**
 * Alternating rounds, as both service runners compare servers: each round measures every spec
 * once, the order rotating by one per round. A run other programs disturbed (`noiseOf` over
 * `config.maxNoise` cores) is redone, at most `config.attempts` times, the last one counting;
 * `report` hears each counted run. Resolves with the samples per spec, in the order of `specs`.
 */
export async function alternatingRounds<Spec extends { name: string }, Sample>(
  specs: readonly Spec[],
  config: { rounds: number; attempts: number; maxNoise: number },
  measure: (spec: Spec, index: number) => Promise<Sample>,
  noiseOf: (sample: Sample) => number | null,
  report: (spec: Spec, round: number, sample: Sample) => void,
): Promise<Sample[][]> {
  const samples: Sample[][] = specs.map(() => []);
  for (let round = 0; round < config.rounds; round++) {
    for (let k = 0; k < specs.length; k++) {
      const i = (k + round) % specs.length;
      // A run other programs disturbed is redone (bounded attempts); the last one counts.
      const spec = specs[i]!;
      let s: Sample | undefined;
      for (let attempt = 1; attempt <= config.attempts; attempt++) {
        s = await measure(spec, i);
        const noise = noiseOf(s);
        if (noise === null || noise <= config.maxNoise) break;
        process.stderr.write(`  ${spec.name}: other programs used ${noise.toFixed(2)} cores (attempt ${attempt}/${config.attempts})\n`);
      }
      if (s === undefined) throw new Error('BENCH_ATTEMPTS must be at least 1');
      report(spec, round, s);
      samples[i]!.push(s);
    }
  }
  return samples;
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
