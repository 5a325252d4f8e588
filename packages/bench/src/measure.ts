/**
 * Measured runs: one server alone (`measureQuietly`, the alternating rounds) or `bare` and one
 * other server at the same time (`duel`, the head-to-head rounds). Each run records the CPU of
 * the servers, of the load generator and of everything else on the machine (`/proc`), waits for
 * a quiet machine first, and is redone (up to `BENCH_ATTEMPTS`) when it broke one of its limits.
 */
import { config } from './config.js';
import { assertAlive, failure, type Running } from './launch.js';
import type { LoadGenerator } from './load.js';
import type { LoadResult } from './load-result.js';
import { cpuDuring, machineBusySeconds } from './proc.js';
import { check } from './runner-util.js';
import { requestOf } from './servers.js';

/** One measured run of one server. */
export interface Sample extends LoadResult {
  round: number;
  /** Server CPU (user + system) per answered request, microseconds; null without /proc. */
  cpuUsPerReq: number | null;
  /** Cores' worth of CPU other programs used during the run; null without /proc. */
  noise: number | null;
  /** Busy fraction of the server process (1 = a whole core); null without /proc. */
  serverLoad: number | null;
  /** Cores' worth of CPU the load generator (the autocannon process) used during the run; null without /proc. */
  loadCpu: number | null;
  /** The `bare` runs just before and just after this one (alternating rounds with `bare` present). */
  between?: [Sample, Sample];
}

/** One head-to-head run: a server and `bare` loaded at the same time, on the same server core. */
export interface Duel {
  round: number;
  rps: number;
  bareRps: number;
  cpuUsPerReq: number | null;
  bareCpuUsPerReq: number | null;
  noise: number | null;
  /** Cores' worth of CPU the load generator used, loading both servers; null without /proc. */
  loadCpu: number | null;
}

/** A bound a measured run must keep, else it is redone and, if every attempt breaks it, flagged in the table. */
export interface Limit<T> {
  /** The table's mark: `(n noisy)`. */
  flag: string;
  max: number;
  value: (run: T) => number | null;
  /** Why a run is redone, for the progress output. */
  describe: (value: number) => string;
}

/** Other programs used more than `BENCH_MAX_NOISE` cores during the run. */
export const noisy: Limit<{ noise: number | null }> = {
  flag: 'noisy',
  max: config.maxNoise,
  value: (run) => run.noise,
  describe: (v) => `other programs used ${v.toFixed(2)} cores during the run`,
};

/**
 * The load generator used more than `BENCH_MAX_LOAD_CPU` cores: it was (nearly) saturated, so in
 * a head-to-head run autocannon, not the servers, partly decided how the requests split.
 */
export const generatorBound: Limit<{ loadCpu: number | null }> = {
  flag: 'generator-bound',
  max: config.maxLoadCpu,
  value: (run) => run.loadCpu,
  describe: (v) => `the load generator used ${v.toFixed(2)} cores (limit ${config.maxLoadCpu})`,
};

/** Did `run` break `limit`? Unmeasured (no /proc) counts as kept. */
export function exceeds<T>(limit: Limit<T>, run: T): boolean {
  const v = limit.value(run);
  return v !== null && v > limit.max;
}

/** Measures `r` alone once the machine is quiet; redoes a run other programs disturbed (bounded attempts). */
export function measureQuietly(r: Running, round: number, load: LoadGenerator): Promise<Sample> {
  return attempts(r.spec.name, [noisy], () => measure(r, round, load));
}

async function measure(r: Running, round: number, load: LoadGenerator): Promise<Sample> {
  assertAlive(r);
  try {
    const m = await cpuDuring([r.child.pid, load.pid], () => load.run(r.url, requestOf(r.spec)));
    const res = m.value;
    check(r.url, res);
    const [server = null, generator = null] = m.cpu;
    return {
      ...res,
      round,
      cpuUsPerReq: server === null ? null : (server * 1e6) / res.total,
      noise: m.noise,
      serverLoad: server === null ? null : server / m.wall,
      loadCpu: generator === null ? null : generator / m.wall,
    };
  } catch (e) {
    throw failure(r, e);
  }
}

/**
 * Head-to-head: `bare` and one other server run on the same core at the same time, each loaded
 * by its own autocannon instance with the same connections, so both see exactly the same host
 * at every instant. The kernel shares the core between the two busy processes, so the ratio of
 * their throughputs is the ratio of their costs per request, with the host's drift cancelled -
 * as long as the one load generator keeps up with both: a run where it was generator-bound or
 * other programs disturbed it is redone like a noisy run (bounded attempts).
 * (Both pay for sharing the core, which is why absolute req/s here are about half.)
 */
export function duel(bare: Running, other: Running, round: number, load: LoadGenerator): Promise<Duel> {
  return attempts(`${other.spec.name} vs bare`, [noisy, generatorBound], () => duelOnce(bare, other, round, load));
}

async function duelOnce(bare: Running, other: Running, round: number, load: LoadGenerator): Promise<Duel> {
  assertAlive(bare);
  assertAlive(other);
  // Alternate which target autocannon starts first.
  const pair = round % 2 === 0 ? [bare, other] : [other, bare];
  const m = await cpuDuring([...pair.map((r) => r.child.pid), load.pid], () =>
    load.runTogether(pair.map((r) => ({ url: r.url, ...requestOf(r.spec) }))),
  );
  for (const [i, r] of pair.entries()) {
    try {
      check(r.url, m.value[i]!);
    } catch (e) {
      throw failure(r, e);
    }
  }
  const perReq = (i: number): number | null => {
    const cpu = m.cpu[i] ?? null;
    return cpu === null ? null : (cpu * 1e6) / m.value[i]!.total;
  };
  const generator = m.cpu[pair.length] ?? null;
  const b = pair[0] === bare ? 0 : 1;
  const o = 1 - b;
  return {
    round,
    rps: m.value[o]!.rps,
    bareRps: m.value[b]!.rps,
    cpuUsPerReq: perReq(o),
    bareCpuUsPerReq: perReq(b),
    noise: m.noise,
    loadCpu: generator === null ? null : generator / m.wall,
  };
}

/**
 * Runs `once` after waiting for a quiet machine, up to `BENCH_ATTEMPTS` times, until a run keeps
 * every limit. When none does, keeps the one that broke its limits least (the largest of
 * value / limit over the limits is smallest): the least noisy, the least generator-bound.
 */
async function attempts<T>(label: string, limits: readonly Limit<T>[], once: () => Promise<T>): Promise<T> {
  let best: { run: T; excess: number } | undefined;
  for (let attempt = 1; attempt <= config.attempts; attempt++) {
    await waitQuiet();
    const run = await once();
    const broken = limits.filter((l) => exceeds(l, run));
    if (broken.length === 0) return run;
    for (const l of broken) process.stderr.write(`  ${label}: ${l.describe(l.value(run)!)} (attempt ${attempt}/${config.attempts})\n`);
    const excess = Math.max(...broken.map((l) => l.value(run)! / Math.max(l.max, 1e-9)));
    if (best === undefined || excess < best.excess) best = { run, excess };
  }
  // Every attempt broke a limit: keep the best one; the table flags it.
  return best!.run;
}

/** Waits (bounded by BENCH_QUIET_WAIT) until other programs use less than `maxNoise` cores. */
async function waitQuiet(): Promise<void> {
  const deadline = Date.now() + config.quietWait * 1000;
  for (;;) {
    const a = machineBusySeconds();
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, 500));
    const b = machineBusySeconds();
    if (a === undefined || b === undefined) return;
    const busy = (b - a) / ((performance.now() - t0) / 1000);
    if (busy <= config.maxNoise) return;
    if (Date.now() > deadline) {
      process.stderr.write(`warning: machine still busy (${busy.toFixed(2)} cores) after ${config.quietWait} s; measuring anyway\n`);
      return;
    }
  }
}
