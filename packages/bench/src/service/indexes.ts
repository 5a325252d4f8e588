// Benchmark of the user indexes (not a test; prints a markdown table, writes
// results/service/indexes.json). Loads 10^3..10^6 users into the domain UserService over the
// MemoryRecordStore (no HTTP) and records, per size:
//  - heap per user: loaded without indexes (store + id array), and the indexes on top of it
//    (every sort index, the email index and the trigram index), measured after forced GCs;
//  - build time of all indexes (each is built on first use);
//  - p50/p99 of a middle page (size 20) for every sort field in both directions, findByEmail,
//    search with fragments of different selectivity, and create/patch with the indexes maintained;
//  - for the choice of structure: p50 of inserting into and deleting from the middle of one plain
//    sorted array of that size (what a sorted-array index would pay per field per write).
// Usage: pnpm --filter @jaxrs-node/bench run indexes (node --expose-gc --max-old-space-size=4096)
//   BENCH_SIZES=1000,10000,100000,1000000 BENCH_REPS=1000
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { serviceModules } from './service-paths.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const { UserService } = await serviceModules.users();
const { MemoryRecordStore } = await serviceModules.storage();

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  console.error('run with node --expose-gc (heap per user needs forced GCs)');
  process.exit(2);
}
const env = process.env;
const SIZES = (env.BENCH_SIZES ?? '1000,10000,100000,1000000').split(',').map(Number);
const REPS = Number(env.BENCH_REPS ?? 1000);
const FIELDS = ['id', 'email', 'firstName', 'lastName', 'age', 'createdAt', 'updatedAt'];
const FIRST = ['Ann', 'Bob', 'Cyd', 'Dee', 'Eve', 'Flo', 'Gus', 'Hal', 'Ivy', 'Jo', 'Kim', 'Lou', 'Max', 'Ned', 'Oda', 'Pia'];
const LAST = ['Smith', 'Jones', 'Brown', 'Taylor', 'Wilson', 'Davies', 'Evans', 'Thomas', 'Roberts', 'Walker', 'Wright', 'Hughes'];
const DOMAINS = ['example.com', 'mail.test', 'corp.example.org', 'Uni.example.edu'];

/** Deterministic pseudo-random generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const next = random(1);
const pick = (items: string[]): string => items[Math.floor(next() * items.length)] ?? '';

/** p50 / p99 in milliseconds. */
interface Quantiles {
  p50: number;
  p99: number;
}

function userBody(i: number) {
  const first = pick(FIRST);
  const last = pick(LAST);
  const body: { email: string; firstName: string; lastName: string; age?: number } = {
    email: `${first}.${last}${i}@${pick(DOMAINS)}`,
    firstName: first,
    lastName: last,
  };
  if (next() < 0.9) body.age = 18 + Math.floor(next() * 70);
  return body;
}

function heapUsed() {
  for (let i = 0; i < 3; i++) gc?.();
  return process.memoryUsage().heapUsed;
}

function percentiles(samples: number[]): Quantiles {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { p50: +at(0.5).toFixed(4), p99: +at(0.99).toFixed(4) };
}

/** Untimed calls before each measurement, so p99 is not the JIT's warm-up. */
const WARMUP = 20;

function timeSync(reps: number, run: (i: number) => unknown): Quantiles {
  for (let i = 0; i < WARMUP; i++) run(i);
  const samples: number[] = [];
  for (let i = 0; i < reps; i++) {
    const start = performance.now();
    run(i);
    samples.push(performance.now() - start);
  }
  return percentiles(samples);
}

async function timeAsync(reps: number, run: (i: number) => Promise<unknown>): Promise<Quantiles> {
  for (let i = 0; i < WARMUP; i++) await run(i);
  const samples: number[] = [];
  for (let i = 0; i < reps; i++) {
    const start = performance.now();
    await run(i);
    samples.push(performance.now() - start);
  }
  return percentiles(samples);
}

/** p50 (ms) of one insert plus one delete in the middle of a plain array of `n` references. */
function arraySplice(n: number): number {
  const array = Array.from({ length: n }, (_, i) => ({ i }));
  const item = { i: -1 };
  return timeSync(Math.min(REPS, 100), () => {
    array.splice(n >> 1, 0, item);
    array.splice(n >> 1, 1);
  }).p50;
}

async function run(n: number) {
  const before = heapUsed();
  const store = new MemoryRecordStore();
  await store.open();
  const users = new UserService(store);
  const loadStart = performance.now();
  for (let i = 0; i < n; i++) await users.create(userBody(i));
  const loadSeconds = (performance.now() - loadStart) / 1000;
  users.count(); // the id array, which unindexed services use too
  const loaded = heapUsed();

  const buildStart = performance.now();
  for (const field of FIELDS) users.page({ sort: `${field},asc` });
  users.search('smith');
  const buildMs = performance.now() - buildStart;
  const indexed = heapUsed();

  const middle = Math.floor(n / 20 / 2);
  const pages: Record<string, Quantiles> = {};
  for (const field of FIELDS) {
    for (const direction of ['asc', 'desc']) {
      pages[`${field},${direction}`] = timeSync(REPS, () => users.page({ page: middle, size: 20, sort: `${field},${direction}` }));
    }
  }
  const emails = Array.from({ length: REPS }, () => users.get(1 + Math.floor(next() * n)).email);
  const findByEmail = timeSync(REPS, (i) => users.findByEmail(emails[i] ?? ''));
  // Emails are `First.Last<i>@domain`: 'smith' is in 1 of 12, '123@uni' in 1 of 4000 (ids ending
  // in 123, one domain of 4), `emails[0]` in one user, 'zzq' in none; '@' in all (capped at 1000).
  const fragments = { 'all (capped)': '@', '1 in 12': 'smith', '1 in 4000': '123@uni', one: emails[0] ?? '', none: 'zzq' };
  const search: Record<string, Quantiles> = {};
  for (const [label, fragment] of Object.entries(fragments)) search[label] = timeSync(REPS, () => users.search(fragment));
  let created = n;
  const create = await timeAsync(REPS, () => users.create(userBody(created++)));
  const patch = await timeAsync(REPS, () =>
    users.patch(1 + Math.floor(next() * n), { lastName: pick(LAST), age: 18 + Math.floor(next() * 70), email: `moved${next()}@mail.test` }),
  );
  await store.close();

  const worst = (table: Record<string, Quantiles>) =>
    Object.values(table).reduce((a, b) => ({ p50: Math.max(a.p50, b.p50), p99: Math.max(a.p99, b.p99) }));
  return {
    users: n,
    loadSeconds: +loadSeconds.toFixed(1),
    heapPerUserBytes: Math.round((loaded - before) / n),
    indexHeapPerUserBytes: Math.round((indexed - loaded) / n),
    indexBuildMs: Math.round(buildMs),
    pages,
    pageWorst: worst(pages),
    findByEmail,
    search,
    searchWorst: worst(search),
    create,
    patch,
    sortedArraySpliceMs: arraySplice(n),
  };
}

const rows = [];
for (const n of SIZES) {
  rows.push(await run(n));
  console.error(`done: ${n} users`);
}
mkdirSync(join(BENCH_DIR, '../../results/service'), { recursive: true });
writeFileSync(
  join(BENCH_DIR, '../../results/service', 'indexes.json'),
  JSON.stringify({ node: process.version, reps: REPS, rows }, null, 2) + '\n',
);

const ms = (x: number) => x.toFixed(3);
console.log(
  '| users | heap/user (no indexes) | index heap/user | index build | page p50 / p99 (worst field) | findByEmail p50 / p99 | search p50 / p99 (worst fragment) | create p50 / p99 | patch p50 / p99 | sorted-array splice |',
);
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(
    `| ${r.users} | ${r.heapPerUserBytes} B | ${r.indexHeapPerUserBytes} B | ${r.indexBuildMs} ms | ${ms(r.pageWorst.p50)} / ${ms(r.pageWorst.p99)} ms` +
      ` | ${ms(r.findByEmail.p50)} / ${ms(r.findByEmail.p99)} ms | ${ms(r.searchWorst.p50)} / ${ms(r.searchWorst.p99)} ms` +
      ` | ${ms(r.create.p50)} / ${ms(r.create.p99)} ms | ${ms(r.patch.p50)} / ${ms(r.patch.p99)} ms | ${ms(r.sortedArraySpliceMs)} ms |`,
  );
}
