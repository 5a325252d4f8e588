// Benchmark of the storage adapters (not a test): commits/s and fsyncs per commit at several
// concurrency levels, memory store as the baseline.
// Usage: pnpm --filter @jaxrs-node/bench run store-bench [path/to/storage/index.js]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { serviceModules } from './service-paths.js';

/** Another build of the storage entry (same exports) may be measured instead of the service's. */
type StorageModule = Awaited<ReturnType<typeof serviceModules.storage>>;
const entry = process.argv[2];
const { createRecordStore } =
  entry === undefined ? await serviceModules.storage() : ((await import(pathToFileURL(entry).href)) as StorageModule);
const COMMITS = 4000;

async function run(kind: 'memory' | 'journal', concurrency: number) {
  const dir = await mkdtemp(join(tmpdir(), 'store-bench-'));
  const store = kind === 'memory' ? createRecordStore('memory') : createRecordStore('journal', dir);
  await store.open();
  const fsyncsBefore = store.stats.fsyncs;
  let next = 0;
  const worker = async () => {
    while (next < COMMITS) {
      next++;
      const id = await store.allocateId('users');
      const record = { id, name: `user-${id}`, email: `user-${id}@example.test`, roles: ['user'] };
      await store.commit([{ op: 'put', collection: 'users', record }]);
    }
  };
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const fsyncs = store.stats.fsyncs - fsyncsBefore;
  await store.close();
  await rm(dir, { recursive: true, force: true });
  return { kind, concurrency, commitsPerSec: Math.round(COMMITS / seconds), fsyncsPerCommit: +(fsyncs / COMMITS).toFixed(3) };
}

const rows = [];
for (const concurrency of [1, 16, 256]) {
  for (const kind of ['memory', 'journal'] as const) rows.push(await run(kind, concurrency));
}
console.table(rows);
