/**
 * Scale check of the user domain at 10^6 users (not a test: prints timings, asserts nothing).
 * Uses the real MemoryRecordStore so commit costs are realistic.
 *
 * Run: pnpm --filter @jaxrs-node/bench run domain-scale [users=1000000]
 */
import { performance } from 'node:perf_hooks';
import { serviceModules } from './service-paths.js';

const { UserService } = await serviceModules.users();
const { MemoryRecordStore } = await serviceModules.storage();

const count = Number(process.argv[2] ?? 1_000_000);
const names = ['Ann', 'Bob', 'Cyd', 'Dee', 'Eve', 'Flo', 'Gus', 'Hal', 'Ivy', 'Jo'];

function time(label: string, run: () => unknown, repeat = 5): void {
  const samples: number[] = [];
  let result: unknown;
  for (let i = 0; i < repeat; i++) {
    const start = performance.now();
    result = run();
    samples.push(performance.now() - start);
  }
  const first = samples[0] ?? 0;
  samples.sort((a, b) => a - b);
  const size = Array.isArray(result) ? result.length : (result as { content?: unknown[] }).content?.length;
  const median = samples[repeat >> 1] ?? 0;
  console.log(`${label.padEnd(40)} first ${first.toFixed(1).padStart(8)} ms  median ${median.toFixed(1).padStart(8)} ms  (items: ${size})`);
}

const store = new MemoryRecordStore();
await store.open();
const users = new UserService(store);
const fill = performance.now();
for (let i = 0; i < count; i++) {
  const first = names[i % names.length] as string;
  const last = names[(i * 7) % names.length] as string;
  await users.create({ email: `user${i}@example.com`, firstName: first, lastName: `${last}${i % 1000}`, age: 18 + (i % 83) });
}
console.log(`populated ${count} users in ${((performance.now() - fill) / 1000).toFixed(1)} s`);

const lastPage = Math.floor((count - 1) / 20);
time('list() (first 1000)', () => users.list());
time('page 0, id asc', () => users.page({ page: 0, size: 20 }));
time(`page ${lastPage}, id asc`, () => users.page({ page: lastPage, size: 20 }));
time('page 0, id desc', () => users.page({ page: 0, size: 20, sort: 'id,desc' }));
time('page 0, lastName asc', () => users.page({ page: 0, size: 20, sort: 'lastName,asc' }));
time('page 0 size 1000, age desc', () => users.page({ page: 0, size: 1000, sort: 'age,desc' }));
time(`page ${lastPage >> 1} (middle), email asc`, () => users.page({ page: lastPage >> 1, size: 20, sort: 'email' }), 3);
time(`page ${lastPage} (last), createdAt desc`, () => users.page({ page: lastPage, size: 20, sort: 'createdAt,desc' }));
time('search("user99999")', () => users.search('user99999'));
time('search("nomatch")', () => users.search('nomatch'));
time('findByEmail(last user)', () => users.findByEmail(`user${count - 1}@example.com`));
await users.patch(1, { age: 19 }); // a write invalidates the cached full sort
time(`page ${lastPage >> 1} after a write, email asc`, () => users.page({ page: lastPage >> 1, size: 20, sort: 'email' }), 3);
await store.close();
