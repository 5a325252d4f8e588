// Benchmark of the whole user service (not a test; prints markdown tables, writes
// results/service/service-bench.json). Same harness style as the rest of this package: every
// server runs pinned to the server core, the load generator (autocannon) pinned to the load core;
// servers alternate within a round; medians of the rounds.
//  (a) GET /api/users/1 through the whole service (request id, version check, rate limit, CORS)
//      vs the pipeline's bare JSON route (pipeline-bare-server.ts). Target ratio >= 0.75.
//  (b) durable POST /api/users, STORAGE=journal vs STORAGE=memory. Target ratio >= 0.5.
//  (c) list / page-with-sort / search / get latency with 10^3..10^6 users (scale-server.ts),
//      one connection, one request at a time: p50/p99 service time.
// Usage: pnpm --filter @jaxrs-node/bench run service-bench
//   BENCH_ONLY=a,b,c  BENCH_SIZES=1000,10000,100000,1000000
//   BENCH_DURATION=5 BENCH_ROUNDS=3 BENCH_WARMUP=2 BENCH_CONNECTIONS=10 BENCH_SERVER_CPU=0 BENCH_LOAD_CPU=1
//   BENCH_MAX_NOISE=0.15 (cores used by other programs before a run is redone) BENCH_QUIET_WAIT=120 BENCH_ATTEMPTS=3
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
  runWorker,
  start,
  stop,
  waitQuiet,
  type LatencyResult,
  type ThroughputResult,
} from './bench-lib.js';
import { SERVICE_DIR, SERVICE_MAIN } from './service-paths.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const env = process.env;
const config = {
  ...benchConfig(env, { quietWait: 120, attempts: 3 }),
  sizes: (env.BENCH_SIZES ?? '1000,10000,100000,1000000').split(',').map(Number),
};
const serverPin = pinning(config.serverCpu);
const loadPin = pinning(config.loadCpu);

/** A server to measure: `node <args>` with `env` on top of the runner's PATH, port and data dir. */
interface ServerSpec {
  name: string;
  args: string[];
  env: Record<string, string>;
}
/** The request the load generator repeats. */
interface Load {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}
/** One request before the load; throws when the answer is not the expected one. */
type Sanity = (url: string) => Promise<void>;
/** One measured run of one server. */
type Sample = ThroughputResult & { cpuUsPerReq: number | null; noise: number | null };
/** The rows of one comparison and the throughput ratio of its first two servers. */
interface Comparison {
  title: string;
  rows: Array<{ name: string; rps: number; p50: number; p99: number; cpuUsPerReq: number; noisy: number; samples: Sample[] }>;
  ratio: number;
}

/** The user service as `node dist/main.js`; the max rate limit config accepts (1e6/min) stays out of the way. */
function serviceSpec(name: string, storage: 'journal' | 'memory'): ServerSpec {
  return {
    name,
    args: [SERVICE_MAIN],
    env: { STORAGE: storage, RATE_LIMIT_PER_MINUTE: '1000000', LOG_REQUESTS: 'false', SEED: 'demo' },
  };
}
const bareSpec: ServerSpec = { name: 'pipeline bare JSON route', args: [join(BENCH_DIR, 'pipeline-bare-server.js')], env: {} };
/** Diagnostic row of (a): the bare route plus the nine response headers the service adds. */
const bareHeadersSpec: ServerSpec = { name: "bare route + the service's 9 headers", args: bareSpec.args, env: { BARE_EXTRA_HEADERS: '1' } };

/** Starts `spec` pinned on a fresh DATA_DIR, checks one answer, warms up, measures, stops. */
async function measure(spec: ServerSpec, load: Load, sanity: Sanity): Promise<Sample> {
  const dataDir = mkdtempSync(join(tmpdir(), 'service-bench-'));
  const child = start(
    serverPin,
    process.execPath,
    spec.args,
    { PATH: env.PATH, ...spec.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir },
    SERVICE_DIR,
  );
  try {
    const port = await listeningPort(child, 20_000, spec.name);
    const url = `http://127.0.0.1:${port}${load.path}`;
    await sanity(url);
    const opts = {
      mode: 'throughput' as const,
      url,
      connections: config.connections,
      method: load.method,
      headers: load.headers,
      body: load.body,
    };
    const { result: r, cpu, noise } = await measuredRun(spec.name, loadPin, opts, config, [[child.pid]]);
    const [serverCpu] = cpu;
    return { ...r, cpuUsPerReq: serverCpu === undefined ? null : (serverCpu * 1e6) / r.total, noise };
  } catch (e) {
    throw new Error(`${spec.name}: ${(e as Error).message}\n${child.io.stderr().slice(-1500)}`);
  } finally {
    await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** One request before the load; the answer must have `status` and carry `headers`. */
const sanityOf =
  (load: Load, status: number, headers: string[] = []): Sanity =>
  async (url) => {
    const res = await fetch(url, { method: load.method, headers: load.headers, body: load.body, signal: AbortSignal.timeout(5000) });
    const text = await res.text();
    if (res.status !== status) throw new Error(`sanity request answered ${res.status}: ${text.slice(0, 200)}`);
    for (const h of headers) if (!res.headers.has(h)) throw new Error(`sanity request: header ${h} missing`);
  };

/** Alternating rounds of the servers under one load; returns the rows and the ratio first/second. */
async function compare(title: string, specs: ServerSpec[], load: Load, sanity: Sanity[]): Promise<Comparison> {
  const samples = await alternatingRounds(
    specs,
    config,
    (spec, i) => measure(spec, load, sanity[i]!),
    (s) => s.noise,
    (spec, round, s) =>
      process.stderr.write(
        `  ${title} | ${spec.name} round ${round + 1}: ${Math.round(s.rps)} req/s, p99 ${s.p99} ms, noise ${s.noise?.toFixed(2)}\n`,
      ),
  );
  const rows = specs.map((spec, i) => {
    const runs = samples[i] ?? [];
    return {
      name: spec.name,
      rps: median(runs.map((s) => s.rps)),
      p50: median(runs.map((s) => s.p50)),
      p99: median(runs.map((s) => s.p99)),
      cpuUsPerReq: median(runs.map((s) => s.cpuUsPerReq ?? Number.NaN)),
      noisy: runs.filter((s) => s.noise !== null && s.noise > config.maxNoise).length,
      samples: runs,
    };
  });
  return { title, rows, ratio: (rows[0]?.rps ?? Number.NaN) / (rows[1]?.rps ?? Number.NaN) };
}

function throughputTable(c: Comparison, target: number): string {
  const base = c.rows[1] ?? { name: '-', rps: Number.NaN };
  const lines = [
    `**${c.title}** (ratio ${c.ratio.toFixed(2)}, target >= ${target})`,
    '',
    `| server | median req/s | vs ${base.name} | p50 | p99 | server CPU / req |`,
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const r of c.rows) {
    lines.push(
      `| ${r.name}${r.noisy ? ` (${r.noisy} noisy)` : ''} | ${Math.round(r.rps)} | ${(r.rps / base.rps).toFixed(2)} | ${r.p50} ms | ${r.p99} ms | ${Number.isNaN(r.cpuUsPerReq) ? '-' : `${r.cpuUsPerReq.toFixed(1)} us`} |`,
    );
  }
  return lines.join('\n');
}

const SCALE_ENDPOINTS = [
  { name: 'get /api/users/{n/2}', path: (n: number) => `/api/users/${Math.max(1, n >> 1)}` },
  { name: 'list (first 1000)', path: () => '/api/users' },
  { name: 'page 5, size 20, sort lastName,desc', path: () => '/api/users?page=5&size=20&sort=lastName,desc' },
  { name: 'search, no match (full scan)', path: () => '/api/users/search?email=nomatch' },
];

/** (c): per size one server; per endpoint a sequential latency run on the load core. */
async function scale() {
  const rows: Array<LatencyResult & { users: number; endpoint: string }> = [];
  for (const n of config.sizes) {
    const child = start(
      serverPin,
      process.execPath,
      ['--max-old-space-size=8192', join(BENCH_DIR, 'scale-server.js')],
      { PATH: env.PATH, USERS: String(n), PORT: '0' },
      SERVICE_DIR,
    );
    try {
      const port = await listeningPort(child, 300_000, `scale-server ${n}`);
      for (const { name, path } of SCALE_ENDPOINTS) {
        await waitQuiet(config.maxNoise, config.quietWait);
        const r = await runWorker(
          loadPin,
          { mode: 'latency', url: `http://127.0.0.1:${port}${path(n)}`, samples: 1000, maxSeconds: 5, warmup: 10 },
          180_000,
        );
        process.stderr.write(
          `  scale ${n} | ${name}: p50 ${(r.p50Us / 1000).toFixed(2)} ms, p99 ${(r.p99Us / 1000).toFixed(2)} ms (${r.count} samples, ${r.bytes} B)\n`,
        );
        rows.push({ users: n, endpoint: name, ...r });
      }
      process.stderr.write(`  ${child.io.stderr().trim()}\n`);
    } finally {
      await stop(child, 10_000);
    }
  }
  const lines = ['| users | endpoint | p50 | p99 | samples | body |', '|---:|---|---:|---:|---:|---:|'];
  for (const r of rows) {
    lines.push(
      `| ${r.users.toLocaleString('en-US')} | ${r.endpoint} | ${(r.p50Us / 1000).toFixed(2)} ms | ${(r.p99Us / 1000).toFixed(2)} ms | ${r.count} | ${r.bytes} B |`,
    );
  }
  return { rows, table: lines.join('\n') };
}

const results: {
  date: string;
  node: string;
  cpu: string | undefined;
  config: typeof config;
  a?: Comparison;
  b?: Comparison;
  c?: Awaited<ReturnType<typeof scale>>;
} = { date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model, config };
const out: string[] = [];
process.stderr.write(
  `service-bench: ${config.rounds} rounds x (${config.warmup} s warm-up + ${config.duration} s), ${config.connections} connections, server cpu ${config.serverCpu}, load cpu ${config.loadCpu}\n`,
);
if (config.only.includes('a')) {
  const load = { method: 'GET', path: '/api/users/1', headers: { 'x-api-version': '1', origin: 'http://bench.example' } };
  results.a = await compare(
    '(a) GET /api/users/1: user service vs pipeline bare route',
    [serviceSpec('user-service (journal)', 'journal'), bareSpec, bareHeadersSpec],
    load,
    [
      sanityOf(load, 200, ['x-api-version', 'x-rate-limit-limit', 'x-request-id', 'access-control-allow-origin']),
      sanityOf(load, 200),
      sanityOf(load, 200, ['x-request-id']),
    ],
  );
  out.push(throughputTable(results.a, 0.75));
}
if (config.only.includes('b')) {
  const load = {
    method: 'POST',
    path: '/api/users',
    headers: { 'content-type': 'application/json', 'x-api-version': '1' },
    body: JSON.stringify({ email: 'bench@example.com', firstName: 'Bench', lastName: 'Mark', age: 33 }),
  };
  const sanity = sanityOf(load, 201, ['location', 'x-rate-limit-limit']);
  results.b = await compare(
    '(b) POST /api/users: STORAGE=journal (fsync per group) vs memory',
    [serviceSpec('journal', 'journal'), serviceSpec('memory', 'memory')],
    load,
    [sanity, sanity],
  );
  out.push(throughputTable(results.b, 0.5));
}
if (config.only.includes('c')) {
  results.c = await scale();
  out.push(`**(c) latency by collection size** (one connection, sequential, MemoryRecordStore)\n\n${results.c.table}`);
}
mkdirSync(join(BENCH_DIR, '../../results/service'), { recursive: true });
writeFileSync(join(BENCH_DIR, '../../results/service', 'service-bench.json'), `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`${out.join('\n\n')}\n`);
