// Benchmark of the user service on etcd (not a test; prints markdown tables, writes
// results/service/cluster-bench.json). Same harness as service-bench.ts: servers alternate within
// a round, medians of the rounds, autocannon pinned to the load core, unique e-mails per POST
// (autocannon's `[<id>]` body templating). Every etcd measurement
// starts a fresh 3-member cluster on free 127.0.0.1 ports with temporary data dirs (static
// bootstrap, https://etcd.io/docs/v3.4/op-guide/clustering/#static), stopped afterwards.
//  (a) durable POST /api/users, STORAGE=journal vs STORAGE=etcd (one instance): req/s, p99, ratio.
//  (b) GET /api/users/1 and GET /api/users/search?email=example: p50 / p99 / req/s, journal vs
//      etcd; target: GET p99 on etcd within 2 ms of the journal's.
//  (c) GET /api/users/1 and POST /api/users on etcd, WORKERS=2 vs WORKERS=1.
// Pinning: (a), (b) the service and the etcd members on the server core, the load on the load
// core; (c) the service (supervisor and workers) and etcd on BENCH_WORKERS_CPU (both cores), the
// load still pinned to the load core, so it shares a core with the service.
// Latency p50 / p99 come from autocannon's per-response times (microseconds), not its 1 ms histogram.
// Usage (`etcd` on PATH): pnpm --filter @jaxrs-node/bench run cluster-bench
//   BENCH_ONLY=a,b,c
//   BENCH_DURATION=5 BENCH_ROUNDS=3 BENCH_WARMUP=2 BENCH_CONNECTIONS=10 BENCH_SERVER_CPU=0 BENCH_LOAD_CPU=1
//   BENCH_ETCD_CPU=<BENCH_SERVER_CPU> BENCH_WORKERS_CPU=0,1
//   BENCH_MAX_NOISE=0.15 (cores used by other programs before a run is redone) BENCH_QUIET_WAIT=30 BENCH_ATTEMPTS=2
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  alternatingRounds,
  benchConfig,
  listeningPort,
  measuredRun,
  median,
  pinning,
  start,
  stop,
  type Child,
  type ThroughputResult,
} from './bench-lib.js';
import { SERVICE_DIR, SERVICE_MAIN } from './service-paths.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const env = process.env;
const config = {
  ...benchConfig(env, { quietWait: 30, attempts: 2 }),
  /** Requests per second for all connections (BENCH_RATE): latency below saturation; unset: as fast as possible. */
  rate: env.BENCH_RATE === undefined || env.BENCH_RATE === '' ? undefined : Number(env.BENCH_RATE),
  etcdCpu: env.BENCH_ETCD_CPU ?? env.BENCH_SERVER_CPU ?? '0',
  workersCpu: env.BENCH_WORKERS_CPU ?? '0,1',
};
const serverPin = pinning(config.serverCpu);
const loadPin = pinning(config.loadCpu);
const etcdPin = pinning(config.etcdCpu);
const workersPin = pinning(config.workersCpu);
/** Same on every instance (the service requires it with etcd); a benchmark value, not a secret. */
const TOKEN_SECRET = 'cluster-bench-token-secret-0123456789abcdef';

/** The service to start: its storage, processes and the cores it and its etcd members run on. */
interface ServiceSpec {
  name: string;
  storage: 'journal' | 'etcd';
  workers: number;
  pin: string[];
  storePin: string[];
}
type LoadKey = 'post' | 'get' | 'search';
/** The request the load generator repeats and the status its sanity request must get. */
interface Load {
  key: LoadKey;
  label: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  idReplacement?: boolean;
  status: number;
}
/** One measured run of one load. */
type Measured = ThroughputResult & { serviceCpuUsPerReq: number | null; etcdCpuUsPerReq: number | null; noise: number | null };
/** One start of a service: a measured run per load. */
type Sample = Partial<Record<LoadKey, Measured>>;
/** Medians over the rounds of one service under one load. */
interface Row {
  name: string;
  rps: number;
  p50Us: number;
  p99Us: number;
  serviceCpuUsPerReq: number;
  etcdCpuUsPerReq: number;
  noisy: number;
  samples: Measured[];
}
interface Comparison {
  title: string;
  loads: Array<{ key: LoadKey; label: string }>;
  byLoad: Partial<Record<LoadKey, Row[]>>;
  ratio?: number;
  targets?: Partial<Record<LoadKey, { p99DeltaUs: number; met: boolean }>>;
  ratios?: Partial<Record<LoadKey, number>>;
}
/** A running three-member cluster. */
interface EtcdCluster {
  endpoints: string[];
  pids: Array<number | undefined>;
  stop(): Promise<void>;
}
/** What results/service/cluster-bench.json holds. */
interface Results {
  date: string;
  node: string;
  etcd: string;
  cpu: string | undefined;
  cores: number;
  uptimeBefore: string;
  uptimeAfter?: string;
  config: typeof config;
  a?: Comparison | { error: string };
  b?: Comparison | { error: string };
  c?: Comparison | { error: string };
}

/** Temporary directories still to remove, also when the run is interrupted. */
const temps = new Set<string>();
process.once('exit', () => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
});
// Ctrl-C / SIGTERM go through 'exit', where bench-lib kills the children started here.
process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.add(dir);
  return dir;
}

function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  temps.delete(dir);
}

async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<Server>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

async function healthy(endpoint: string): Promise<boolean> {
  try {
    const res = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(1000) });
    return res.ok && ((await res.json()) as { health?: unknown }).health === 'true';
  } catch {
    return false;
  }
}

/** A fresh 3-member cluster behind `pin`; resolves once every member reports healthy (bounded). */
async function startEtcd(pin: string[], timeoutMs = 30_000): Promise<EtcdCluster> {
  const dir = tempDir('cluster-bench-etcd-');
  const ports = await freePorts(6);
  const peer = (i: number) => `http://127.0.0.1:${ports[2 * i + 1]}`;
  const names = ['m0', 'm1', 'm2'];
  const initialCluster = names.map((name, i) => `${name}=${peer(i)}`).join(',');
  const members = names.map((name, i) => {
    const endpoint = `http://127.0.0.1:${ports[2 * i]}`;
    const child = start(
      pin,
      'etcd',
      [
        `--name=${name}`,
        `--data-dir=${join(dir, name)}`,
        `--listen-client-urls=${endpoint}`,
        `--advertise-client-urls=${endpoint}`,
        `--listen-peer-urls=${peer(i)}`,
        `--initial-advertise-peer-urls=${peer(i)}`,
        `--initial-cluster=${initialCluster}`,
        `--initial-cluster-token=cluster-bench-${ports[0]}`,
        '--initial-cluster-state=new',
        '--logger=zap',
        '--log-level=warn',
        '--log-outputs=stderr',
      ],
      { PATH: env.PATH },
      dir,
    );
    return { name, endpoint, child };
  });
  const cluster = {
    endpoints: members.map((m) => m.endpoint),
    pids: members.map((m) => m.child.pid),
    async stop() {
      await Promise.all(members.map((m) => stop(m.child, 5000)));
      removeDir(dir);
    },
  };
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      const dead = members.find((m) => m.child.exitCode !== null || m.child.signalCode !== null);
      if (dead) throw new Error(`etcd ${dead.name} exited during start-up: ${dead.child.io.stderr().slice(-1500)}`);
      if ((await Promise.all(members.map((m) => healthy(m.endpoint)))).every(Boolean)) return cluster;
      if (Date.now() > deadline) throw new Error(`etcd cluster not healthy after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (e) {
    await cluster.stop();
    throw e;
  }
}

/** Pids whose parent is `pid` (the workers of a supervisor), from /proc; [] elsewhere. */
function childPids(pid: number | undefined): number[] {
  const found: number[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The service as `node dist/main.js` with `storage`; with etcd, `workers` processes (supervisor if > 1). */
function serviceSpec(
  name: string,
  storage: 'journal' | 'etcd',
  { workers = 1, pin = serverPin, storePin = etcdPin }: { workers?: number; pin?: string[]; storePin?: string[] } = {},
): ServiceSpec {
  return { name, storage, workers, pin, storePin };
}

const GET_HEADERS = { 'x-api-version': '1', origin: 'http://bench.example' };
const LOADS: Record<'post' | 'get' | 'search', Load> = {
  post: {
    key: 'post',
    label: 'POST /api/users',
    method: 'POST',
    path: '/api/users',
    headers: { 'content-type': 'application/json', 'x-api-version': '1' },
    body: JSON.stringify({ email: 'bench-[<id>]@example.com', firstName: 'Bench', lastName: 'Mark', age: 33 }),
    idReplacement: true,
    status: 201,
  },
  get: { key: 'get', label: 'GET /api/users/1', method: 'GET', path: '/api/users/1', headers: GET_HEADERS, status: 200 },
  search: {
    key: 'search',
    label: 'GET /api/users/search?email=example',
    method: 'GET',
    path: '/api/users/search?email=example',
    headers: GET_HEADERS,
    status: 200,
  },
};

/** One request before the load: the answer must have the load's status and the rate-limit header. */
async function sanity(load: Load, url: string): Promise<void> {
  const body = load.body?.replaceAll('[<id>]', `sanity-${Date.now()}`);
  const res = await fetch(url, { method: load.method, headers: load.headers, body, signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  if (res.status !== load.status) throw new Error(`sanity ${load.label} answered ${res.status}: ${text.slice(0, 200)}`);
  if (!res.headers.has('x-rate-limit-limit')) throw new Error(`sanity ${load.label}: header x-rate-limit-limit missing`);
}

/** Starts `spec` (and its etcd cluster) fresh, then per load: sanity, warm-up, measured run. */
async function measure(spec: ServiceSpec, loads: Load[]): Promise<Sample> {
  const dataDir = tempDir('cluster-bench-data-');
  let etcd: EtcdCluster | undefined;
  let child: Child | undefined;
  try {
    const extra: Record<string, string> = {};
    if (spec.storage === 'etcd') {
      etcd = await startEtcd(spec.storePin);
      extra.ETCD_ENDPOINTS = etcd.endpoints.join(',');
      extra.ETCD_PREFIX = '/cluster-bench';
      extra.TOKEN_SECRET = TOKEN_SECRET;
      extra.FILES_DIR = join(dataDir, 'files');
      extra.WORKERS = String(spec.workers);
    }
    child = start(
      spec.pin,
      process.execPath,
      [SERVICE_MAIN],
      {
        PATH: env.PATH,
        STORAGE: spec.storage,
        RATE_LIMIT_PER_MINUTE: '1000000',
        LOG_REQUESTS: 'false',
        SEED: 'demo',
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        ...extra,
      },
      SERVICE_DIR,
    );
    const port = await listeningPort(child, 30_000, spec.name);
    const servicePids = [child.pid, ...childPids(child.pid)];
    if (servicePids.length !== (spec.workers > 1 ? 1 + spec.workers : 1)) {
      throw new Error(`expected ${spec.workers} worker(s), found processes ${servicePids.join(', ')}`);
    }
    const etcdPids = etcd?.pids ?? [];
    const out: Sample = {};
    for (const load of loads) {
      const url = `http://127.0.0.1:${port}${load.path}`;
      await sanity(load, url);
      const opts = {
        mode: 'throughput' as const,
        url,
        connections: config.connections,
        method: load.method,
        headers: load.headers,
        body: load.body,
        idReplacement: load.idReplacement === true,
        fineLatency: true,
        overallRate: config.rate,
      };
      const { result: r, cpu, noise } = await measuredRun(`${spec.name} ${load.label}`, loadPin, opts, config, [servicePids, etcdPids]);
      const [serviceCpu, etcdCpu] = cpu;
      out[load.key] = {
        ...r,
        serviceCpuUsPerReq: serviceCpu === undefined ? null : (serviceCpu * 1e6) / r.total,
        etcdCpuUsPerReq: etcdCpu === undefined || etcdPids.length === 0 ? null : (etcdCpu * 1e6) / r.total,
        noise,
      };
    }
    return out;
  } catch (e) {
    throw new Error(`${spec.name}: ${(e as Error).message}\n${child?.io.stderr().slice(-1500) ?? ''}`);
  } finally {
    if (child) await stop(child, 15_000);
    if (etcd) await etcd.stop();
    removeDir(dataDir);
  }
}

const noisy = (sample: Sample) => Object.values(sample).some((s) => s.noise !== null && s.noise > config.maxNoise);

/** Alternating rounds of `specs` under `loads`; per load, per spec the medians of the rounds. */
async function compare(title: string, specs: ServiceSpec[], loads: Load[]): Promise<Comparison> {
  const samples = await alternatingRounds(
    specs,
    config,
    (spec) => measure(spec, loads),
    (s) => (noisy(s) ? Math.max(...Object.values(s).map((x) => x.noise ?? 0)) : null),
    (spec, round, s) => {
      for (const load of loads) {
        const x = s[load.key]!;
        process.stderr.write(
          `  ${title} | ${spec.name} | ${load.label} round ${round + 1}: ${Math.round(x.rps)} req/s, p50 ${ms(x.p50Us)}, p99 ${ms(x.p99Us)}, noise ${x.noise?.toFixed(2)}\n`,
        );
      }
    },
  );
  const byLoad: Comparison['byLoad'] = {};
  for (const load of loads) {
    byLoad[load.key] = specs.map((spec, i) => {
      const runs = (samples[i] ?? []).map((s) => s[load.key]!);
      const med = (f: 'rps' | 'p50Us' | 'p99Us' | 'serviceCpuUsPerReq' | 'etcdCpuUsPerReq') => median(runs.map((x) => x[f] ?? Number.NaN));
      return {
        name: spec.name,
        rps: med('rps'),
        p50Us: med('p50Us'),
        p99Us: med('p99Us'),
        serviceCpuUsPerReq: med('serviceCpuUsPerReq'),
        etcdCpuUsPerReq: med('etcdCpuUsPerReq'),
        noisy: runs.filter((x) => x.noise !== null && x.noise > config.maxNoise).length,
        samples: runs,
      };
    });
  }
  return { title, loads: loads.map((l) => ({ key: l.key, label: l.label })), byLoad };
}

const ms = (v: number | null | undefined) => (v === null || v === undefined || Number.isNaN(v) ? '-' : `${(v / 1000).toFixed(2)} ms`);
const us = (v: number) => (Number.isNaN(v) ? '-' : `${v.toFixed(1)} us`);
const rowName = (r: Row) => `${r.name}${r.noisy ? ` (${r.noisy} noisy)` : ''}`;

function rowsTable(rows: Row[], base: Row): string {
  const lines = [
    `| server | median req/s | vs ${base.name} | p50 | p99 | service CPU / req | etcd CPU / req |`,
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${rowName(r)} | ${Math.round(r.rps)} | ${(r.rps / base.rps).toFixed(2)} | ${ms(r.p50Us)} | ${ms(r.p99Us)} | ${us(r.serviceCpuUsPerReq)} | ${us(r.etcdCpuUsPerReq)} |`,
    );
  }
  return lines.join('\n');
}

/** Runs one section; a failure (e.g. etcd mode not starting) is reported and the next section runs. */
async function section(key: 'a' | 'b' | 'c', run: () => Promise<string>): Promise<void> {
  if (!config.only.includes(key)) return;
  try {
    out.push(await run());
  } catch (err) {
    const e = err as Error;
    results[key] = { error: e.message };
    out.push(`**(${key}) failed:** ${e.message.split('\n')[0]}`);
    process.stderr.write(`(${key}) failed: ${e.stack ?? e.message}\n`);
    process.exitCode = 1;
  }
}

const uptime = () => spawnSync('uptime', { encoding: 'utf8', timeout: 5000 }).stdout?.trim() ?? '';
const etcdVersion = spawnSync('etcd', ['--version'], { encoding: 'utf8', timeout: 5000 }).stdout?.split('\n')[0] ?? 'etcd not found';
const results: Results = {
  date: new Date().toISOString(),
  node: process.version,
  etcd: etcdVersion,
  cpu: cpus()[0]?.model,
  cores: cpus().length,
  uptimeBefore: uptime(),
  config,
};
const out: string[] = [];
process.stderr.write(
  `cluster-bench: ${config.rounds} rounds x (${config.warmup} s warm-up + ${config.duration} s), ${config.connections} connections; ${results.uptimeBefore}\n`,
);

/** The rows of `load` in `c`, first the baseline, then the compared service. */
function pairOf(c: Comparison, key: LoadKey): { rows: Row[]; base: Row; other: Row } {
  const rows = c.byLoad[key] ?? [];
  const [base, other] = rows;
  if (base === undefined || other === undefined) throw new Error(`${c.title}: no rows for ${key}`);
  return { rows, base, other };
}

await section('a', async () => {
  const c = await compare('(a) durable POST', [serviceSpec('journal', 'journal'), serviceSpec('etcd (3 members)', 'etcd')], [LOADS.post]);
  const { rows, base: journal, other: etcd } = pairOf(c, 'post');
  const ratio = etcd.rps / journal.rps;
  c.ratio = ratio;
  results.a = c;
  return [
    `**(a) durable POST /api/users, ${config.connections} connections: etcd / journal = ${ratio.toFixed(2)}** ` +
      `(service on CPU ${config.serverCpu}, etcd members on CPU ${config.etcdCpu}, load on CPU ${config.loadCpu})`,
    '',
    rowsTable(rows, journal),
  ].join('\n');
});

await section('b', async () => {
  const c = await compare(
    '(b) reads',
    [serviceSpec('journal', 'journal'), serviceSpec('etcd (3 members)', 'etcd')],
    [LOADS.get, LOADS.search],
  );
  const parts: string[] = [];
  const targets: NonNullable<Comparison['targets']> = {};
  c.targets = targets;
  for (const load of c.loads) {
    const { rows, base: journal, other: etcd } = pairOf(c, load.key);
    const deltaUs = etcd.p99Us - journal.p99Us;
    targets[load.key] = { p99DeltaUs: deltaUs, met: deltaUs <= 2000 };
    parts.push(
      `**(b) ${load.label}, ${config.connections} connections:** etcd p99 - journal p99 = ${ms(deltaUs)} ` +
        `(target <= 2 ms: ${deltaUs <= 2000 ? 'met' : 'NOT met'})`,
      '',
      rowsTable(rows, journal),
      '',
    );
  }
  results.b = c;
  return parts.join('\n').trimEnd();
});

await section('c', async () => {
  const opts = { pin: workersPin, storePin: workersPin };
  const c = await compare(
    '(c) workers',
    [serviceSpec('etcd, WORKERS=1', 'etcd', { ...opts, workers: 1 }), serviceSpec('etcd, WORKERS=2', 'etcd', { ...opts, workers: 2 })],
    [LOADS.get, LOADS.post],
  );
  const ratios: NonNullable<Comparison['ratios']> = {};
  c.ratios = ratios;
  const parts = [
    `**(c) WORKERS=2 vs WORKERS=1 on etcd (3 members), ${config.connections} connections** ` +
      `(service, workers and etcd on CPUs ${config.workersCpu}; load pinned to CPU ${config.loadCpu}, so it shares a core with them)`,
    '',
  ];
  for (const load of c.loads) {
    const { rows, base: one, other: two } = pairOf(c, load.key);
    const ratio = two.rps / one.rps;
    ratios[load.key] = ratio;
    parts.push(`${load.label}: WORKERS=2 / WORKERS=1 = ${ratio.toFixed(2)}`, '', rowsTable(rows, one), '');
  }
  results.c = c;
  return parts.join('\n').trimEnd();
});

results.uptimeAfter = uptime();
mkdirSync(join(BENCH_DIR, '../../results/service'), { recursive: true });
writeFileSync(join(BENCH_DIR, '../../results/service', 'cluster-bench.json'), `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(
  `Node ${results.node}, ${results.etcd}, ${results.cores} x ${results.cpu}\n` +
    `before: ${results.uptimeBefore}\nafter: ${results.uptimeAfter}\n\n${out.join('\n\n')}\n`,
);
