/**
 * The benchmark runner (`pnpm --filter @jaxrs-node/bench run bench`). Starts every server pinned
 * to the server core, checks one answer from each (and, for filter variants, one refused request)
 * and warms each up. Then alternating rounds: every server runs once per round for a short run,
 * the order rotating, with a `bare` run before and after each (paired ratios compare a run with
 * its two neighbours). Then head-to-head rounds: each server and `bare` loaded at the same time on
 * the same core. Prints markdown tables and writes results/latest.json. Before each run it waits
 * for the machine to be quiet and redoes runs other programs disturbed.
 * Exits 1 when a server does not start or exits, a sanity check fails, or any answer is not 2xx.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { LoadGenerator, median, type LoadOptions, type LoadResult } from './load.js';
import type { ChildProcess } from 'node:child_process';
import { capture, cpuSeconds, freePort, machineBusySeconds, pinning, start, stop, waitUntil } from './proc.js';
import { FILTER_HEADER, REJECT_HEADER, REJECT_QUERY, sendsFilterHeader } from './common.js';
import { selectServers, type ServerSpec } from './servers.js';
import { answers, commandOf, intEnv, PKG_DIR } from './runner-util.js';

const config = {
  duration: intEnv('BENCH_DURATION', 2, 1, 600),
  rounds: intEnv('BENCH_ROUNDS', 12, 1, 100),
  warmup: intEnv('BENCH_WARMUP', 3, 1, 60),
  connections: intEnv('BENCH_CONNECTIONS', 10, 1, 1000),
  serverCpu: process.env.BENCH_SERVER_CPU ?? '0',
  loadCpu: process.env.BENCH_LOAD_CPU ?? '1',
  /** Adds `--cpu-prof` to node servers (profiles in results/profiles); numbers are then not comparable. */
  profile: process.env.BENCH_PROFILE === '1',
  /** Cores' worth of CPU used by other programs during a run above which the run is redone. */
  maxNoise: Number(process.env.BENCH_MAX_NOISE ?? '0.1'),
  /** Seconds to wait for the machine to go quiet before a run (then it runs anyway, flagged). */
  quietWait: intEnv('BENCH_QUIET_WAIT', 120, 0, 3600),
  /** Attempts per measurement when other programs disturb it. */
  attempts: intEnv('BENCH_ATTEMPTS', 3, 1, 10),
  /** Rounds of the head-to-head measurement (each server against `bare` at the same time); 0 skips it. */
  togetherRounds: intEnv('BENCH_TOGETHER_ROUNDS', 10, 0, 100),
};

/** One measured run of one server. */
interface Sample extends LoadResult {
  round: number;
  /** Server CPU (user + system) per answered request, microseconds; null without /proc. */
  cpuUsPerReq: number | null;
  /** Cores' worth of CPU other programs used during the run; null without /proc. */
  noise: number | null;
  /** Busy fraction of the server process and of the load generator (1 = a whole core). */
  serverLoad: number | null;
  generatorLoad: number;
  /** The `bare` runs just before and just after this one (alternating rounds with `bare` present). */
  between?: [Sample, Sample];
}

/** A server started for the whole benchmark: started, checked and warmed once, then measured many times. */
interface Running {
  spec: ServerSpec;
  url: string;
  child: ChildProcess;
  io: { stdout: () => string; stderr: () => string };
}

async function launch(spec: ServerSpec, serverPin: string[], load: LoadGenerator): Promise<Running> {
  const port = await freePort();
  const url = spec.url.replaceAll('{port}', String(port));
  const cmd = commandOf(spec);
  const args =
    config.profile && spec.cmd === 'node'
      ? ['--cpu-prof', `--cpu-prof-dir=${join(PKG_DIR, 'results', 'profiles')}`, `--cpu-prof-name=${spec.name}.cpuprofile`, ...spec.args]
      : spec.args;
  const child = start(serverPin, cmd, args, { ...process.env, ...spec.env, PORT: String(port) }, PKG_DIR);
  const io = capture(child);
  const running: Running = { spec, url, child, io };
  try {
    const pattern = spec.ready === 'poll' ? undefined : new RegExp(spec.ready ?? '^ready\\b', 'm');
    await waitUntil(
      child,
      pattern === undefined ? () => answers(url, spec.headers) : async () => pattern.test(io.stdout()),
      15000,
      spec.name,
    );
    await sanity(spec, url);
    check(spec, await load.run(url, spec.headers, config.warmup));
    return running;
  } catch (e) {
    await stop(child);
    throw failure(running, e);
  }
}

function failure(r: Running, e: unknown): Error {
  const err = r.io.stderr().slice(-2000);
  return new Error(`${r.spec.name}: ${(e as Error).message}${err === '' ? '' : `\n--- server stderr ---\n${err}`}`);
}

async function measure(r: Running, round: number, load: LoadGenerator): Promise<Sample> {
  const { spec, url, child } = r;
  if (child.exitCode !== null || child.signalCode !== null) throw failure(r, new Error('server exited during the benchmark'));
  try {
    const before = cpuSeconds(child.pid);
    const busyBefore = machineBusySeconds();
    const t0 = performance.now();
    const res = await load.run(url, spec.headers);
    const wall = (performance.now() - t0) / 1000;
    const busyAfter = machineBusySeconds();
    const after = cpuSeconds(child.pid);
    check(spec, res);
    const ok = before !== undefined && after !== undefined && busyBefore !== undefined && busyAfter !== undefined;
    const cpuUsPerReq = !ok || res.total === 0 ? null : ((after - before) * 1e6) / res.total;
    const noise = !ok ? null : Math.max(0, (busyAfter - busyBefore - (after - before) - res.loadCpuSeconds) / wall);
    const serverLoad = !ok ? null : (after - before) / wall;
    return { ...res, round, cpuUsPerReq, noise, serverLoad, generatorLoad: res.loadCpuSeconds / wall };
  } catch (e) {
    throw failure(r, e);
  }
}

/** Measures once the machine is quiet; redoes a run other programs disturbed (bounded attempts). */
async function measureQuietly(r: Running, round: number, load: LoadGenerator): Promise<Sample> {
  const spec = r.spec;
  let best: Sample | undefined;
  for (let attempt = 1; attempt <= config.attempts; attempt++) {
    await waitQuiet();
    const s = await measure(r, round, load);
    if (s.noise === null || s.noise <= config.maxNoise) return s;
    process.stderr.write(
      `  ${spec.name}: other programs used ${s.noise.toFixed(2)} cores during the run (attempt ${attempt}/${config.attempts})\n`,
    );
    if (best === undefined || s.noise < best.noise!) best = s;
  }
  // Every attempt was disturbed: keep the least disturbed one; the table flags it.
  return best!;
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

/** One request before the load: a 2xx carrying the expected headers (the filters really ran). */
async function sanity(spec: ServerSpec, url: string): Promise<void> {
  const res = await fetch(url, { headers: spec.headers, signal: AbortSignal.timeout(5000) });
  const body = await res.text();
  if (!res.ok) throw new Error(`sanity request answered ${res.status}: ${body.slice(0, 200)}`);
  for (const h of [...(spec.expectHeaders ?? []), ...(spec.filters === true && sendsFilterHeader(res.status) ? [FILTER_HEADER] : [])]) {
    if (!res.headers.has(h)) throw new Error(`sanity request: header ${h} missing`);
  }
  if (spec.filters === true) {
    // Proof that both filters run: the request filter refuses, the response filter still adds its header.
    const probe = new URL(url);
    probe.searchParams.set(REJECT_QUERY, '1');
    const refusedRes = await fetch(probe, { headers: { ...spec.headers, [REJECT_HEADER]: '1' }, signal: AbortSignal.timeout(5000) });
    await refusedRes.arrayBuffer();
    if (refusedRes.status !== 403 || !refusedRes.headers.has(FILTER_HEADER)) {
      throw new Error(
        `refusal probe answered ${refusedRes.status} (${FILTER_HEADER}: ${refusedRes.headers.get(FILTER_HEADER)}); expected 403 with the filter header`,
      );
    }
  }
}

function check(spec: ServerSpec, r: LoadResult): void {
  if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0) {
    throw new Error(`${r.non2xx} non-2xx answers, ${r.errors} errors, ${r.timeouts} timeouts under load`);
  }
  if (r.total === 0) throw new Error(`no requests answered (${spec.url})`);
}

/** Per-server medians and ratios, in the order the servers were listed. */
function summarise(servers: readonly ServerSpec[], samples: Map<string, Sample[]>) {
  const rows = servers.map((s) => {
    const list = samples.get(s.name) ?? [];
    const cpu = list.map((x) => x.cpuUsPerReq).filter((x): x is number => x !== null);
    return {
      name: s.name,
      rps: median(list.map((x) => x.rps)),
      p50: median(list.map((x) => x.p50)),
      p99: median(list.map((x) => x.p99)),
      cpuUsPerReq: cpu.length === 0 ? null : median(cpu),
      noisyRounds: list.filter((x) => x.noise !== null && x.noise > config.maxNoise).length,
      rounds: list,
    };
  });
  const base = (name: string): number | undefined => rows.find((r) => r.name === name)?.rps;
  const bare = base('bare');
  const fastify = base('fastify');
  return rows
    .map((r) => ({
      ...r,
      vsBare: bare === undefined ? null : r.rps / bare,
      vsFastify: fastify === undefined ? null : r.rps / fastify,
      pairedVsBare: bare === undefined ? null : r.name === 'bare' ? 1 : pairedRatio(r.rounds, (x) => x.rps),
      pairedCpuVsBare:
        bare === undefined
          ? null
          : r.name === 'bare'
            ? 1
            : pairedRatio(r.rounds, (x) => (x.cpuUsPerReq === null ? null : 1 / x.cpuUsPerReq)),
    }))
    .map((r) => ({
      ...r,
      // For the JSON file: the neighbouring bare runs as their req/s, not as nested samples.
      rounds: r.rounds.map(({ between, ...rest }) => ({ ...rest, bareRpsBeforeAfter: between?.map((b) => b.rps) })),
    }));
}

/**
 * Median over runs of `value(run) / value(bare)`, where bare's value is the mean of the `bare`
 * runs just before and just after the run (the runner puts one between every two runs). The
 * host's speed drifts by 10-30% within minutes on this VM; a ratio of runs two seconds apart
 * cancels much of that drift, where the ratio of two medians taken from different minutes does not.
 */
function pairedRatio(server: readonly Sample[], value: (s: Sample) => number | null): number | null {
  const ratios: number[] = [];
  for (const s of server) {
    if (s.between === undefined) continue;
    const v = value(s);
    const a = value(s.between[0]);
    const b = value(s.between[1]);
    if (v !== null && a !== null && b !== null && a + b > 0) ratios.push(v / ((a + b) / 2));
  }
  return ratios.length === 0 ? null : median(ratios);
}

type Row = ReturnType<typeof summarise>[number];

function table(rows: readonly Row[]): string {
  const ratio = (x: number | null): string => (x === null ? '-' : x.toFixed(2));
  const lines = [
    '| server | median req/s | vs bare node:http | vs bare, paired | vs bare by CPU, paired | vs fastify | p99 latency | server CPU / req |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const cpu = r.cpuUsPerReq === null ? '-' : `${r.cpuUsPerReq.toFixed(1)} us`;
    const flag = r.noisyRounds > 0 ? ` (${r.noisyRounds} noisy)` : '';
    // autocannon records whole milliseconds: 0 means under 1 ms.
    const p99 = r.p99 < 1 ? '<1 ms' : `${r.p99} ms`;
    lines.push(
      `| ${r.name}${flag} | ${Math.round(r.rps)} | ${ratio(r.vsBare)} | ${ratio(r.pairedVsBare)} | ${ratio(r.pairedCpuVsBare)} | ${ratio(r.vsFastify)} | ${p99} | ${cpu} |`,
    );
  }
  return lines.join('\n');
}

/** One head-to-head run: a server and `bare` loaded at the same time, on the same server core. */
interface Duel {
  round: number;
  rps: number;
  bareRps: number;
  cpuUsPerReq: number | null;
  bareCpuUsPerReq: number | null;
  noise: number | null;
}

/**
 * Head-to-head: `bare` and one other server run on the same core at the same time, each loaded
 * by its own autocannon instance with the same connections, so both see exactly the same host
 * at every instant. The kernel shares the core between the two busy processes, so the ratio of
 * their throughputs is the ratio of their costs per request, with the host's drift cancelled.
 * (Both pay for sharing the core, which is why absolute req/s here are about half.)
 */
async function duel(bare: Running, other: Running, round: number, load: LoadGenerator): Promise<Duel> {
  await waitQuiet();
  // Alternate which target autocannon starts first.
  const pair = round % 2 === 0 ? [bare, other] : [other, bare];
  const cpuBefore = pair.map((r) => cpuSeconds(r.child.pid));
  const busyBefore = machineBusySeconds();
  const t0 = performance.now();
  const results = await load.runTogether(pair.map((r) => ({ url: r.url, headers: r.spec.headers })));
  const wall = (performance.now() - t0) / 1000;
  const busyAfter = machineBusySeconds();
  const cpuAfter = pair.map((r) => cpuSeconds(r.child.pid));
  results.forEach((res, i) => check(pair[i]!.spec, res));
  const perReq = (i: number): number | null => {
    const a = cpuBefore[i];
    const b = cpuAfter[i];
    return a === undefined || b === undefined || results[i]!.total === 0 ? null : ((b - a) * 1e6) / results[i]!.total;
  };
  const serverCpu = cpuBefore.reduce<number>((sum, a, i) => sum + ((cpuAfter[i] ?? 0) - (a ?? 0)), 0);
  const loadCpu = results.reduce((sum, r) => sum + r.loadCpuSeconds, 0);
  const noise =
    busyBefore === undefined || busyAfter === undefined ? null : Math.max(0, (busyAfter - busyBefore - serverCpu - loadCpu) / wall);
  const b = pair[0] === bare ? 0 : 1;
  const o = 1 - b;
  return { round, rps: results[o]!.rps, bareRps: results[b]!.rps, cpuUsPerReq: perReq(o), bareCpuUsPerReq: perReq(b), noise };
}

function duelTable(duels: Map<string, Duel[]>): string {
  const lines = [
    '| server (head-to-head with bare, same core, same time) | median req/s | bare req/s in the same runs | vs bare, median of runs | range of runs | CPU / req (bare) |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const [name, list] of duels) {
    const ratios = list.map((d) => d.rps / d.bareRps);
    const cpu = list.filter((d) => d.cpuUsPerReq !== null && d.bareCpuUsPerReq !== null);
    const cpuText =
      cpu.length === 0
        ? '-'
        : `${median(cpu.map((d) => d.cpuUsPerReq!)).toFixed(1)} us (${median(cpu.map((d) => d.bareCpuUsPerReq!)).toFixed(1)} us)`;
    lines.push(
      `| ${name} | ${Math.round(median(list.map((d) => d.rps)))} | ${Math.round(median(list.map((d) => d.bareRps)))} | ${median(ratios).toFixed(2)} | ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)} | ${cpuText} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const servers = selectServers(process.env, PKG_DIR);
  const serverPin = pinning(config.serverCpu);
  const loadPin = pinning(config.loadCpu);
  const loadOpts: LoadOptions = { pin: loadPin, connections: config.connections, duration: config.duration, cwd: PKG_DIR };
  const samples = new Map<string, Sample[]>(servers.map((s) => [s.name, []]));
  const started = new Date();
  process.stderr.write(
    `bench: ${servers.length} servers x ${config.rounds} rounds x (${config.warmup} s warm-up + ${config.duration} s), ${config.connections} connections, node ${process.version}\n`,
  );
  // Every server is started, checked and warmed once, then the measured runs interleave: short
  // runs of each server in turn, many rounds. The host's speed drifts over minutes, so runs
  // seconds apart compare fairly where runs minutes apart do not (see pairedRatio).
  const running: Running[] = [];
  const duels = new Map<string, Duel[]>();
  const load = new LoadGenerator(loadOpts);
  try {
    for (const spec of servers) running.push(await launch(spec, serverPin, load));
    const bare = running.find((r) => r.spec.name === 'bare');
    const others = running.filter((r) => r !== bare);
    const run = async (r: Running, round: number): Promise<Sample> => {
      const s = await measureQuietly(r, round, load);
      samples.get(r.spec.name)!.push(s);
      const cpu =
        s.cpuUsPerReq === null
          ? ''
          : `, ${s.cpuUsPerReq.toFixed(1)} us CPU/req, noise ${s.noise?.toFixed(2)} cores, server ${s.serverLoad?.toFixed(2)} / autocannon ${s.generatorLoad.toFixed(2)} cores busy`;
      process.stderr.write(`round ${round}/${config.rounds} ${r.spec.name}: ${Math.round(s.rps)} req/s, p99 ${s.p99} ms${cpu}\n`);
      return s;
    };
    if (bare === undefined) {
      for (let round = 0; round < config.rounds; round++) {
        for (let k = 0; k < running.length; k++) await run(running[(k + round) % running.length]!, round + 1);
      }
    } else {
      // bare, X1, bare, X2, bare, ...: every run of another server sits between two bare runs.
      let previous = await run(bare, 1);
      for (let round = 0; round < config.rounds; round++) {
        for (let k = 0; k < others.length; k++) {
          const s = await run(others[(k + round) % others.length]!, round + 1);
          const next = await run(bare, round + 1);
          s.between = [previous, next];
          previous = next;
        }
      }
    }
    for (let round = 0; bare !== undefined && round < config.togetherRounds; round++) {
      for (let k = 0; k < others.length; k++) {
        const r = others[(k + round) % others.length]!;
        const d = await duel(bare, r, round + 1, load);
        if (!duels.has(r.spec.name)) duels.set(r.spec.name, []);
        duels.get(r.spec.name)!.push(d);
        process.stderr.write(
          `head-to-head ${round + 1}/${config.togetherRounds} ${r.spec.name} ${Math.round(d.rps)} vs bare ${Math.round(d.bareRps)} req/s: ${(d.rps / d.bareRps).toFixed(2)}\n`,
        );
      }
    }
  } finally {
    await Promise.all([...running.map((r) => stop(r.child)), load.close()]);
  }
  const rows = summarise(servers, samples);
  const out = table(rows);
  process.stdout.write(`\n${out}\n\n`);
  const duelOut = duels.size === 0 ? undefined : duelTable(duels);
  if (duelOut !== undefined) process.stdout.write(`${duelOut}\n\n`);
  const dir = join(PKG_DIR, 'results');
  mkdirSync(dir, { recursive: true });
  const result = {
    date: started.toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cpuCount: cpus().length,
    config,
    pinned: { server: serverPin.length > 0 ? config.serverCpu : null, load: loadPin.length > 0 ? config.loadCpu : null },
    servers: rows,
    table: out,
    headToHead: Object.fromEntries(duels),
    headToHeadTable: duelOut,
  };
  writeFileSync(join(dir, 'latest.json'), `${JSON.stringify(result, null, 2)}\n`);
  process.stderr.write(`wrote ${join(dir, 'latest.json')}\n`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);
