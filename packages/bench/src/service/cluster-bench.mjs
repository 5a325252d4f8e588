// Benchmark of the user service on etcd (not a test; prints markdown tables, writes
// bench/results/cluster-bench.json). Same harness as service-bench.mjs: servers alternate within
// a round, medians of the rounds, autocannon (packages/bench's node_modules) pinned to the load
// core, unique e-mails per POST (autocannon's `[<id>]` body templating). Every etcd measurement
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
// Usage (after building pipeline and user-service; `etcd` on PATH):
//   node bench/cluster-bench.mjs            BENCH_ONLY=a,b,c
//   BENCH_DURATION=5 BENCH_ROUNDS=3 BENCH_WARMUP=2 BENCH_CONNECTIONS=10 BENCH_SERVER_CPU=0 BENCH_LOAD_CPU=1
//   BENCH_ETCD_CPU=<BENCH_SERVER_CPU> BENCH_WORKERS_CPU=0,1
//   BENCH_MAX_NOISE=0.15 (cores used by other programs before a run is redone) BENCH_QUIET_WAIT=30 BENCH_ATTEMPTS=2
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  benchConfig,
  cpuSeconds,
  listeningPort,
  machineBusySeconds,
  median,
  pinning,
  runWorker,
  start,
  stop,
  waitQuiet,
} from './bench-lib.mjs';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const PKG_DIR = join(BENCH_DIR, '../../../user-service');
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

/** Temporary directories still to remove, also when the run is interrupted. */
const temps = new Set();
process.once('exit', () => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
});
// Ctrl-C / SIGTERM go through 'exit', where bench-lib kills the children started here.
process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));

function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.add(dir);
  return dir;
}

function removeDir(dir) {
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  temps.delete(dir);
}

async function freePorts(n) {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => s.address().port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

async function healthy(endpoint) {
  try {
    const res = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(1000) });
    return res.ok && (await res.json()).health === 'true';
  } catch {
    return false;
  }
}

/** A fresh 3-member cluster behind `pin`; resolves once every member reports healthy (bounded). */
async function startEtcd(pin, timeoutMs = 30_000) {
  const dir = tempDir('cluster-bench-etcd-');
  const ports = await freePorts(6);
  const peer = (i) => `http://127.0.0.1:${ports[2 * i + 1]}`;
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
function childPids(pid) {
  const found = [];
  let entries = [];
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

/** Total CPU seconds of `pids`, undefined when one cannot be read. */
function cpuOf(pids) {
  let total = 0;
  for (const pid of pids) {
    const s = cpuSeconds(pid);
    if (s === undefined) return undefined;
    total += s;
  }
  return total;
}

/** The service as `node dist/main.js` with `storage`; with etcd, `workers` processes (supervisor if > 1). */
function serviceSpec(name, storage, { workers = 1, pin = serverPin, storePin = etcdPin } = {}) {
  return { name, storage, workers, pin, storePin };
}

const GET_HEADERS = { 'x-api-version': '1', origin: 'http://bench.example' };
const LOADS = {
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
async function sanity(load, url) {
  const body = load.body?.replaceAll('[<id>]', `sanity-${Date.now()}`);
  const res = await fetch(url, { method: load.method, headers: load.headers, body, signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  if (res.status !== load.status) throw new Error(`sanity ${load.label} answered ${res.status}: ${text.slice(0, 200)}`);
  if (!res.headers.has('x-rate-limit-limit')) throw new Error(`sanity ${load.label}: header x-rate-limit-limit missing`);
}

function check(what, r) {
  if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0 || r.total === 0) {
    throw new Error(`${what}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts, ${r.total} answers`);
  }
}

/** Starts `spec` (and its etcd cluster) fresh, then per load: sanity, warm-up, measured run. */
async function measure(spec, loads) {
  const dataDir = tempDir('cluster-bench-data-');
  let etcd;
  let child;
  try {
    const extra = {};
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
      [join(PKG_DIR, 'dist/main.js')],
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
      PKG_DIR,
    );
    const port = await listeningPort(child, 30_000, spec.name);
    const servicePids = [child.pid, ...childPids(child.pid)];
    if (servicePids.length !== (spec.workers > 1 ? 1 + spec.workers : 1)) {
      throw new Error(`expected ${spec.workers} worker(s), found processes ${servicePids.join(', ')}`);
    }
    const etcdPids = etcd?.pids ?? [];
    const out = {};
    for (const load of loads) {
      const url = `http://127.0.0.1:${port}${load.path}`;
      await sanity(load, url);
      const opts = {
        mode: 'throughput',
        url,
        connections: config.connections,
        method: load.method,
        headers: load.headers,
        body: load.body,
        idReplacement: load.idReplacement === true,
        fineLatency: true,
        overallRate: config.rate,
      };
      const what = `${spec.name} ${load.label}`;
      check(what, await runWorker(loadPin, { ...opts, duration: config.warmup }, (config.warmup + 30) * 1000));
      await waitQuiet(config.maxNoise, config.quietWait);
      const service0 = cpuOf(servicePids);
      const etcd0 = cpuOf(etcdPids);
      const busy0 = machineBusySeconds();
      const t0 = performance.now();
      const r = await runWorker(loadPin, { ...opts, duration: config.duration }, (config.duration + 30) * 1000);
      const wall = (performance.now() - t0) / 1000;
      const service1 = cpuOf(servicePids);
      const etcd1 = cpuOf(etcdPids);
      const busy1 = machineBusySeconds();
      check(what, r);
      const serviceCpu = service0 === undefined || service1 === undefined ? undefined : service1 - service0;
      const etcdCpu = etcd0 === undefined || etcd1 === undefined ? undefined : etcd1 - etcd0;
      const known = serviceCpu === undefined || etcdCpu === undefined || busy0 === undefined ? undefined : serviceCpu + etcdCpu;
      out[load.key] = {
        ...r,
        serviceCpuUsPerReq: serviceCpu === undefined ? null : (serviceCpu * 1e6) / r.total,
        etcdCpuUsPerReq: etcdCpu === undefined || etcdPids.length === 0 ? null : (etcdCpu * 1e6) / r.total,
        noise: known === undefined ? null : Math.max(0, (busy1 - busy0 - known - r.cpuSeconds) / wall),
      };
    }
    return out;
  } catch (e) {
    throw new Error(`${spec.name}: ${e.message}\n${child?.io.stderr().slice(-1500) ?? ''}`);
  } finally {
    if (child) await stop(child, 15_000);
    if (etcd) await etcd.stop();
    removeDir(dataDir);
  }
}

const noisy = (sample) => Object.values(sample).some((s) => s.noise !== null && s.noise > config.maxNoise);

/** Alternating rounds of `specs` under `loads`; per load, per spec the medians of the rounds. */
async function compare(title, specs, loads) {
  const samples = specs.map(() => []);
  for (let round = 0; round < config.rounds; round++) {
    for (let k = 0; k < specs.length; k++) {
      const i = (k + round) % specs.length;
      // A run other programs disturbed is redone (bounded attempts); the last one counts.
      let s;
      for (let attempt = 1; attempt <= config.attempts; attempt++) {
        s = await measure(specs[i], loads);
        if (!noisy(s)) break;
        const worst = Math.max(...Object.values(s).map((x) => x.noise ?? 0));
        process.stderr.write(`  ${specs[i].name}: other programs used ${worst.toFixed(2)} cores (attempt ${attempt}/${config.attempts})\n`);
      }
      for (const load of loads) {
        const x = s[load.key];
        process.stderr.write(
          `  ${title} | ${specs[i].name} | ${load.label} round ${round + 1}: ${Math.round(x.rps)} req/s, p50 ${ms(x.p50Us)}, p99 ${ms(x.p99Us)}, noise ${x.noise?.toFixed(2)}\n`,
        );
      }
      samples[i].push(s);
    }
  }
  const byLoad = {};
  for (const load of loads) {
    byLoad[load.key] = specs.map((spec, i) => {
      const runs = samples[i].map((s) => s[load.key]);
      const med = (f) => median(runs.map((x) => x[f] ?? Number.NaN));
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

const ms = (v) => (v === null || v === undefined || Number.isNaN(v) ? '-' : `${(v / 1000).toFixed(2)} ms`);
const us = (v) => (Number.isNaN(v) ? '-' : `${v.toFixed(1)} us`);
const rowName = (r) => `${r.name}${r.noisy ? ` (${r.noisy} noisy)` : ''}`;

function rowsTable(rows, base) {
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
async function section(key, run) {
  if (!config.only.includes(key)) return;
  try {
    out.push(await run());
  } catch (e) {
    results[key] = { error: e.message };
    out.push(`**(${key}) failed:** ${e.message.split('\n')[0]}`);
    process.stderr.write(`(${key}) failed: ${e.stack ?? e.message}\n`);
    process.exitCode = 1;
  }
}

const uptime = () => spawnSync('uptime', { encoding: 'utf8', timeout: 5000 }).stdout?.trim() ?? '';
const etcdVersion = spawnSync('etcd', ['--version'], { encoding: 'utf8', timeout: 5000 }).stdout?.split('\n')[0] ?? 'etcd not found';
const results = {
  date: new Date().toISOString(),
  node: process.version,
  etcd: etcdVersion,
  cpu: cpus()[0]?.model,
  cores: cpus().length,
  uptimeBefore: uptime(),
  config,
};
const out = [];
process.stderr.write(
  `cluster-bench: ${config.rounds} rounds x (${config.warmup} s warm-up + ${config.duration} s), ${config.connections} connections; ${results.uptimeBefore}\n`,
);

await section('a', async () => {
  const c = await compare('(a) durable POST', [serviceSpec('journal', 'journal'), serviceSpec('etcd (3 members)', 'etcd')], [LOADS.post]);
  const [journal, etcd] = c.byLoad.post;
  c.ratio = etcd.rps / journal.rps;
  results.a = c;
  return [
    `**(a) durable POST /api/users, ${config.connections} connections: etcd / journal = ${c.ratio.toFixed(2)}** ` +
      `(service on CPU ${config.serverCpu}, etcd members on CPU ${config.etcdCpu}, load on CPU ${config.loadCpu})`,
    '',
    rowsTable(c.byLoad.post, journal),
  ].join('\n');
});

await section('b', async () => {
  const c = await compare(
    '(b) reads',
    [serviceSpec('journal', 'journal'), serviceSpec('etcd (3 members)', 'etcd')],
    [LOADS.get, LOADS.search],
  );
  const parts = [];
  c.targets = {};
  for (const load of c.loads) {
    const [journal, etcd] = c.byLoad[load.key];
    const deltaUs = etcd.p99Us - journal.p99Us;
    c.targets[load.key] = { p99DeltaUs: deltaUs, met: deltaUs <= 2000 };
    parts.push(
      `**(b) ${load.label}, ${config.connections} connections:** etcd p99 - journal p99 = ${ms(deltaUs)} ` +
        `(target <= 2 ms: ${deltaUs <= 2000 ? 'met' : 'NOT met'})`,
      '',
      rowsTable(c.byLoad[load.key], journal),
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
  c.ratios = {};
  const parts = [
    `**(c) WORKERS=2 vs WORKERS=1 on etcd (3 members), ${config.connections} connections** ` +
      `(service, workers and etcd on CPUs ${config.workersCpu}; load pinned to CPU ${config.loadCpu}, so it shares a core with them)`,
    '',
  ];
  for (const load of c.loads) {
    const [one, two] = c.byLoad[load.key];
    c.ratios[load.key] = two.rps / one.rps;
    parts.push(`${load.label}: WORKERS=2 / WORKERS=1 = ${c.ratios[load.key].toFixed(2)}`, '', rowsTable(c.byLoad[load.key], one), '');
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
