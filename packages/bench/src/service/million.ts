/**
 * The reference server at N users, measured from outside over HTTP (issue 27): the built service
 * (`dist/main.js`, journal store, a temporary DATA_DIR, rate limit and access log off) in a child
 * process; N users created through the async endpoint (`POST /api/async/users`, jobs of 1000); then,
 * on one keep-alive connection, one request at a time, p50 / p99 / max of each route, in two
 * conditions: right after the users were created, and after a restart (SIGTERM, the same data
 * directory: the store loads its snapshot and journal; time to listening and to ready).
 *
 * Run: USERS=2000,1000000 pnpm --filter @jaxrs-node/bench run million
 * Knobs: USERS (comma list, default 2000), BENCH_REQUESTS (per route and condition, default 2000),
 * BENCH_JOBS_IN_FLIGHT (default 2), BENCH_NODE_ARGS (extra node flags of the server, e.g.
 * `--trace-gc`), BENCH_SERVER_LOG (a file that receives the server's whole stdout and stderr),
 * BENCH_SERVICE_MAIN (another build's main.js, see million-server.ts).
 * Prints a markdown table; writes results/service/million.json.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MemoryAnswer } from './million-server.js';
import { SERVICE_DIR } from './service-paths.js';
import { PKG_DIR } from '../runner-util.js';

const SERVER = fileURLToPath(new URL('./million-server.js', import.meta.url));
const JOB_ITEMS = 1000;
const NAMES = ['Ann', 'Bob', 'Cyd', 'Dee', 'Eve', 'Flo', 'Gus', 'Hal', 'Ivy', 'Jo'];

const sizes = (process.env.USERS ?? '2000').split(',').map((s) => {
  const n = Number(s.trim());
  if (!Number.isSafeInteger(n) || n < 1 || n > 10_000_000) throw new Error(`USERS: bad size ${s}`);
  return n;
});
const requestsPerRoute = positiveInt('BENCH_REQUESTS', 2000);
const jobsInFlight = positiveInt('BENCH_JOBS_IN_FLIGHT', 2);
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter((s) => s !== '');
const serverLog = process.env.BENCH_SERVER_LOG;

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name}: a positive integer, got ${raw}`);
  return n;
}

/** The user `i` the runner creates: spread last names (sorting has work), distinct emails. */
function userBody(i: number): { email: string; firstName: string; lastName: string; age: number } {
  const last = `${NAMES[(i * 7) % NAMES.length] ?? 'Lee'}${(i * 7919) % 100_000}`;
  return {
    email: `user${i}.${last.toLowerCase()}@example${i % 50}.com`,
    firstName: NAMES[i % NAMES.length] ?? 'Ann',
    lastName: last,
    age: 18 + (i % 83),
  };
}

// ---- HTTP ----------------------------------------------------------------------------------

interface Answer {
  status: number;
  body: string;
  ms: number;
}

/** One request on `agent` (false: a fresh connection); the time runs until the body's last byte. */
function send(port: number, agent: Agent | false, method: string, path: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        }),
      );
      res.on('error', reject);
    });
    req.setTimeout(120_000, () => req.destroy(new Error(`${method} ${path}: no answer in 120 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

async function expectOk(port: number, agent: Agent | false, method: string, path: string, body?: string): Promise<Answer> {
  const answer = await send(port, agent, method, path, body);
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.body.slice(0, 300)}`);
  return answer;
}

// ---- the server process ----------------------------------------------------------------------

interface Server {
  child: ChildProcess;
  port: number;
  /** ms from fork to `listening on`. */
  listeningMs: number;
  /** ms from fork to the first 200 of /api/health/ready. */
  readyMs: number;
  output: () => string;
}

async function startServer(dataDir: string): Promise<Server> {
  const started = performance.now();
  const child = fork(SERVER, [], {
    cwd: SERVICE_DIR,
    execArgv: ['--expose-gc', ...nodeArgs],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      STORAGE: 'journal',
      SEED: 'none',
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_REQUESTS: 'false',
      NODE_ENV: 'development',
    },
  });
  let out = '';
  const keep = (text: string): void => {
    out = (out + text).slice(-65_536);
    if (serverLog !== undefined) appendFileSync(serverLog, text);
  };
  child.stdout?.setEncoding('utf8').on('data', keep);
  child.stderr?.setEncoding('utf8').on('data', keep);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server not listening after 600 s: ${out.slice(-1500)}`)), 600_000);
    const look = (): void => {
      const m = /listening on http:\/\/[^:\s]+:(\d+)/.exec(out);
      if (m === null) return;
      clearTimeout(timer);
      child.stdout?.off('data', look);
      resolve(Number(m[1]));
    };
    child.stdout?.on('data', look);
    child.once('exit', (code, signal) => reject(new Error(`server exited (code ${code}, signal ${signal}): ${out.slice(-1500)}`)));
  });
  const listeningMs = performance.now() - started;
  // Readiness on fresh connections, as a kubelet probes; bounded.
  for (;;) {
    const ready = await send(port, false, 'GET', '/api/health/ready');
    if (ready.status === 200) break;
    if (performance.now() - started > 600_000) throw new Error(`not ready after 600 s: ${ready.body}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return { child, port, listeningMs, readyMs: performance.now() - started, output: () => out };
}

function stopServer(server: Server): Promise<void> {
  const child = server.child;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function memoryOf(server: Server): Promise<MemoryAnswer> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no memory answer in 60 s')), 60_000);
    const onMessage = (m: unknown): void => {
      if ((m as { type?: unknown }).type !== 'memory') return;
      clearTimeout(timer);
      server.child.off('message', onMessage);
      resolve(m as MemoryAnswer);
    };
    server.child.on('message', onMessage);
    server.child.send('memory');
  });
}

// ---- creating the users ----------------------------------------------------------------------

async function createUsers(port: number, count: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 2 });
  const started = performance.now();
  const pending: number[] = [];
  let next = 0;
  let lastReport = started;
  const waitFor = async (jobId: number): Promise<void> => {
    for (;;) {
      const job = JSON.parse((await expectOk(port, agent, 'GET', `/api/async/users/jobs/${jobId}`)).body) as {
        status: string;
        failed: unknown[];
      };
      if (job.status === 'COMPLETED') {
        if (job.failed.length > 0) throw new Error(`job ${jobId}: ${job.failed.length} users failed: ${JSON.stringify(job.failed[0])}`);
        return;
      }
      if (job.status === 'FAILED') throw new Error(`job ${jobId} failed`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  while (next < count || pending.length > 0) {
    while (next < count && pending.length < jobsInFlight) {
      const items = [];
      for (let i = next; i < Math.min(count, next + JOB_ITEMS); i++) items.push(userBody(i));
      next += items.length;
      const answer = await expectOk(port, agent, 'POST', '/api/async/users', JSON.stringify(items));
      pending.push((JSON.parse(answer.body) as { id: number }).id);
    }
    await waitFor(pending.shift() as number);
    if (performance.now() - lastReport > 30_000) {
      lastReport = performance.now();
      process.stderr.write(
        `  created ${next - pending.length * JOB_ITEMS} of ${count} in ${((lastReport - started) / 1000).toFixed(0)} s\n`,
      );
    }
  }
  agent.destroy();
  return performance.now() - started;
}

// ---- measuring -------------------------------------------------------------------------------

/** A route's timings in ms: p50, p99, max, or one single timing. */
interface Timing {
  p50: number;
  p99: number;
  max: number;
  n: number;
}

interface Condition {
  /** The first request of a sorted page and of a search after creating / starting, ms. */
  firstPage: number;
  firstSearch: number;
  routes: Record<RouteName, Timing>;
  rssMiB: number;
  heapUsedMiB: number;
  heapPerUserBytes: number;
  listeningMs?: number;
  readyMs?: number;
}

const ROUTES = ['get by id', 'page of 20 by lastName, random page', 'search by e-mail fragment', 'exact e-mail filter'] as const;
type RouteName = (typeof ROUTES)[number];

function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
}

/** Seeded so both conditions and both runs ask for the same things. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

async function measure(server: Server, count: number): Promise<Condition> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const port = server.port;
  const pages = Math.max(1, Math.floor(count / 20));
  const firstPage = (await expectOk(port, agent, 'GET', '/api/users?page=0&size=20&sort=lastName,asc')).ms;
  const firstSearch = (await expectOk(port, agent, 'GET', `/api/users/search?email=${encodeURIComponent(`user${count >> 1}.`)}`)).ms;
  const rnd = random(27);
  const pick = (): number => Math.floor(rnd() * count);
  const paths: Record<RouteName, () => string> = {
    // Ids are 1..count: the store's first ids go to the users, the jobs have their own counter.
    'get by id': () => `/api/users/${1 + pick()}`,
    'page of 20 by lastName, random page': () => `/api/users?page=${Math.floor(rnd() * pages)}&size=20&sort=lastName,asc`,
    'search by e-mail fragment': () => `/api/users/search?email=${encodeURIComponent(`user${pick()}.`)}`,
    'exact e-mail filter': () => `/api/users?email=${encodeURIComponent(userBody(pick()).email)}`,
  };
  const samples = new Map<RouteName, number[]>(ROUTES.map((r) => [r, []]));
  // Interleaved, so a slow phase of the server (a GC cycle) falls on every route alike.
  for (let i = 0; i < requestsPerRoute; i++) {
    for (const route of ROUTES) {
      const answer = await expectOk(port, agent, 'GET', paths[route]());
      if (route !== 'page of 20 by lastName, random page' && answer.body.length < 3) throw new Error(`${route}: empty answer`);
      samples.get(route)?.push(answer.ms);
    }
  }
  agent.destroy();
  const routes = {} as Record<RouteName, Timing>;
  for (const route of ROUTES) {
    const sorted = (samples.get(route) ?? []).sort((a, b) => a - b);
    routes[route] = {
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      max: sorted[sorted.length - 1] ?? Number.NaN,
      n: sorted.length,
    };
  }
  const memory = await memoryOf(server);
  return {
    firstPage,
    firstSearch,
    routes,
    rssMiB: memory.rss / 2 ** 20,
    heapUsedMiB: memory.heapUsed / 2 ** 20,
    heapPerUserBytes: memory.heapUsed / count,
  };
}

interface SizeResult {
  users: number;
  createSeconds: number;
  afterCreate: Condition;
  afterRestart: Condition;
}

async function run(count: number): Promise<SizeResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'million-bench-'));
  try {
    process.stderr.write(`${count} users: starting the service (DATA_DIR ${dataDir})\n`);
    let server = await startServer(dataDir);
    const createMs = await createUsers(server.port, count);
    process.stderr.write(`  created ${count} users in ${(createMs / 1000).toFixed(1)} s; measuring\n`);
    const afterCreate = await measure(server, count);
    await stopServer(server);
    process.stderr.write(`  restarting\n`);
    server = await startServer(dataDir);
    const afterRestart = { ...(await measure(server, count)), listeningMs: server.listeningMs, readyMs: server.readyMs };
    await stopServer(server);
    return { users: count, createSeconds: createMs / 1000, afterCreate, afterRestart };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---- the table -------------------------------------------------------------------------------

const ms = (x: number): string => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const cell = (t: Timing, base: Timing | undefined): string =>
  `${ms(t.p50)} / ${ms(t.p99)} (${ms(t.max)})` + (base === undefined ? '' : ` ${(t.p50 / base.p50).toFixed(2)}x`);

function table(results: readonly SizeResult[]): string {
  const base = results[0];
  const header = ['request'];
  for (const r of results) header.push(`${r.users} users, after creating`, `${r.users} users, after a restart`);
  const rows: string[][] = [];
  for (const route of ROUTES) {
    const row: string[] = [`${route}: p50 / p99 (max) ms${results.length > 1 ? `, p50 vs ${base?.users}` : ''}`];
    for (const r of results) {
      const first = r === base;
      row.push(cell(r.afterCreate.routes[route], first ? undefined : base?.afterCreate.routes[route]));
      row.push(cell(r.afterRestart.routes[route], first ? undefined : base?.afterRestart.routes[route]));
    }
    rows.push(row);
  }
  const each = (f: (c: Condition, r: SizeResult) => string): string[] =>
    results.flatMap((r) => [f(r.afterCreate, r), f(r.afterRestart, r)]);
  rows.push(['the first sorted page, ms', ...each((c) => ms(c.firstPage))]);
  rows.push(['the first search, ms', ...each((c) => ms(c.firstSearch))]);
  rows.push(['RSS, MiB', ...each((c) => c.rssMiB.toFixed(0))]);
  rows.push([
    'heap used after a full GC, MiB (bytes per user)',
    ...each((c) => `${c.heapUsedMiB.toFixed(0)} (${c.heapPerUserBytes.toFixed(0)})`),
  ]);
  if (base !== undefined && results.length > 1) {
    // What each user adds: the heap above the smallest run's, which carries the fixed part.
    const marginal = (c: Condition, b: Condition, users: number): string =>
      users === base.users ? '-' : `${(((c.heapUsedMiB - b.heapUsedMiB) * 2 ** 20) / (users - base.users)).toFixed(0)}`;
    rows.push([
      `heap per user above the ${base.users}-user run, bytes`,
      ...results.flatMap((r) => [marginal(r.afterCreate, base.afterCreate, r.users), marginal(r.afterRestart, base.afterRestart, r.users)]),
    ]);
  }
  rows.push([
    'create (async jobs) / restart to listening, to ready',
    ...results.flatMap((r) => [
      `${r.createSeconds.toFixed(1)} s`,
      `${((r.afterRestart.listeningMs ?? 0) / 1000).toFixed(2)} s, ${((r.afterRestart.readyMs ?? 0) / 1000).toFixed(2)} s`,
    ]),
  ]);
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

const results: SizeResult[] = [];
for (const size of sizes) results.push(await run(size));
const version = JSON.parse(readFileSync(join(SERVICE_DIR, 'package.json'), 'utf8')) as { version: string };
const out = join(PKG_DIR, 'results/service/million.json');
writeFileSync(
  out,
  JSON.stringify({ date: new Date().toISOString(), node: process.version, service: version.version, requestsPerRoute, results }, null, 2) +
    '\n',
);
process.stdout.write(
  `\nNode ${process.version}, ${requestsPerRoute} requests per route and condition, one keep-alive connection, sequential:\n\n${table(results)}\n\n(${out})\n`,
);
