/**
 * The benchmark runner (`pnpm --filter @jaxrs-node/bench run bench`). For each round, for each
 * server in turn (the order rotates by one each round so no server always runs first): start it
 * pinned to the server core, check one answer, warm up, measure with autocannon pinned to the
 * load core, stop it. Prints a markdown table of medians and writes results/latest.json.
 * Before each run it waits for the machine to be quiet and redoes runs other programs disturbed.
 * Exits 1 when a server does not start, a sanity check fails, or any answer is not 2xx.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, median, type LoadOptions, type LoadResult } from './load.js';
import { capture, cpuSeconds, freePort, machineBusySeconds, pinning, start, stop, waitUntil } from './proc.js';
import { selectServers, type ServerSpec } from './servers.js';

const PKG_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

function intEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer in [${min}, ${max}], got ${raw}`);
  return n;
}

const config = {
  duration: intEnv('BENCH_DURATION', 10, 1, 600),
  rounds: intEnv('BENCH_ROUNDS', 3, 1, 50),
  warmup: intEnv('BENCH_WARMUP', 2, 1, 60),
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
}

async function measure(spec: ServerSpec, round: number, serverPin: string[], loadOpts: LoadOptions): Promise<Sample> {
  const port = await freePort();
  const url = spec.url.replaceAll('{port}', String(port));
  const cmd = spec.cmd === 'node' ? process.execPath : spec.cmd;
  const args = config.profile && spec.cmd === 'node'
    ? ['--cpu-prof', `--cpu-prof-dir=${join(PKG_DIR, 'results', 'profiles')}`, `--cpu-prof-name=${spec.name}-${round}.cpuprofile`, ...spec.args]
    : spec.args;
  const child = start(serverPin, cmd, args, { ...process.env, ...spec.env, PORT: String(port) }, PKG_DIR);
  const io = capture(child);
  try {
    const pattern = spec.ready === 'poll' ? undefined : new RegExp(spec.ready ?? '^ready\\b', 'm');
    await waitUntil(child, pattern === undefined ? () => answers(url, spec.headers) : async () => pattern.test(io.stdout()), 15000, spec.name);
    await sanity(spec, url);
    const warm = await load(url, { ...loadOpts, duration: config.warmup }, spec.headers);
    check(spec, warm);
    const before = cpuSeconds(child.pid);
    const busyBefore = machineBusySeconds();
    const t0 = performance.now();
    const r = await load(url, loadOpts, spec.headers);
    const wall = (performance.now() - t0) / 1000;
    const busyAfter = machineBusySeconds();
    const after = cpuSeconds(child.pid);
    check(spec, r);
    const ok = before !== undefined && after !== undefined && busyBefore !== undefined && busyAfter !== undefined;
    const cpuUsPerReq = !ok || r.total === 0 ? null : ((after - before) * 1e6) / r.total;
    const noise = !ok ? null : Math.max(0, (busyAfter - busyBefore - (after - before) - r.loadCpuSeconds) / wall);
    const serverLoad = !ok ? null : (after - before) / wall;
    return { ...r, round, cpuUsPerReq, noise, serverLoad, generatorLoad: r.loadCpuSeconds / wall };
  } catch (e) {
    const err = io.stderr().slice(-2000);
    throw new Error(`${spec.name}: ${(e as Error).message}${err === '' ? '' : `\n--- server stderr ---\n${err}`}`);
  } finally {
    await stop(child);
  }
}

/** Measures once the machine is quiet; redoes a run other programs disturbed (bounded attempts). */
async function measureQuietly(spec: ServerSpec, round: number, serverPin: string[], loadOpts: LoadOptions): Promise<Sample> {
  let best: Sample | undefined;
  for (let attempt = 1; attempt <= config.attempts; attempt++) {
    await waitQuiet();
    const s = await measure(spec, round, serverPin, loadOpts);
    if (s.noise === null || s.noise <= config.maxNoise) return s;
    process.stderr.write(`  ${spec.name}: other programs used ${s.noise.toFixed(2)} cores during the run (attempt ${attempt}/${config.attempts})\n`);
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

async function answers(url: string, headers: Record<string, string> | undefined): Promise<boolean> {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

/** One request before the load: a 2xx carrying the expected headers (the filters really ran). */
async function sanity(spec: ServerSpec, url: string): Promise<void> {
  const res = await fetch(url, { headers: spec.headers, signal: AbortSignal.timeout(5000) });
  const body = await res.text();
  if (!res.ok) throw new Error(`sanity request answered ${res.status}: ${body.slice(0, 200)}`);
  for (const h of spec.expectHeaders ?? []) {
    if (!res.headers.has(h)) throw new Error(`sanity request: header ${h} missing`);
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
  return rows.map((r) => ({
    ...r,
    vsBare: bare === undefined ? null : r.rps / bare,
    vsFastify: fastify === undefined ? null : r.rps / fastify,
  }));
}

type Row = ReturnType<typeof summarise>[number];

function table(rows: readonly Row[]): string {
  const ratio = (x: number | null): string => (x === null ? '-' : x.toFixed(2));
  const lines = [
    '| server | median req/s | vs bare node:http | vs fastify | p99 latency | server CPU / req |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const cpu = r.cpuUsPerReq === null ? '-' : `${r.cpuUsPerReq.toFixed(1)} us`;
    const flag = r.noisyRounds > 0 ? ` (${r.noisyRounds} noisy)` : '';
    // autocannon records whole milliseconds: 0 means under 1 ms.
    const p99 = r.p99 < 1 ? '<1 ms' : `${r.p99} ms`;
    lines.push(`| ${r.name}${flag} | ${Math.round(r.rps)} | ${ratio(r.vsBare)} | ${ratio(r.vsFastify)} | ${p99} | ${cpu} |`);
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
  process.stderr.write(`bench: ${servers.length} servers x ${config.rounds} rounds x (${config.warmup} s warm-up + ${config.duration} s), ${config.connections} connections, node ${process.version}\n`);
  for (let round = 0; round < config.rounds; round++) {
    for (let k = 0; k < servers.length; k++) {
      const spec = servers[(k + round) % servers.length]!;
      const s = await measureQuietly(spec, round + 1, serverPin, loadOpts);
      samples.get(spec.name)!.push(s);
      const cpu = s.cpuUsPerReq === null ? '' : `, ${s.cpuUsPerReq.toFixed(1)} us CPU/req, noise ${s.noise?.toFixed(2)} cores, server ${s.serverLoad?.toFixed(2)} / autocannon ${s.generatorLoad.toFixed(2)} cores busy`;
      process.stderr.write(`round ${round + 1}/${config.rounds} ${spec.name}: ${Math.round(s.rps)} req/s, p99 ${s.p99} ms${cpu}\n`);
    }
  }
  const rows = summarise(servers, samples);
  const out = table(rows);
  process.stdout.write(`\n${out}\n\n`);
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
