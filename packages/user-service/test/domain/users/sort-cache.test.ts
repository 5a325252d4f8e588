/**
 * Shallow sorted pages reuse a full sort that a deep page has already cached (same order, no
 * write since) instead of scanning every user again with the bounded heap.
 *
 * Observed through the records themselves: the store hands out proxies that count reads of
 * `lastName`, the sort field. Every way of ordering users by lastName (heap or full sort) reads
 * it at least once per user; slicing a cached sort reads it only to build the page's items.
 */
import { describe, expect, it } from 'vitest';
import { UserService } from '../../../src/domain/users/service.js';
import type { StoredRecord } from '../../../src/storage/record-store.js';
import { FakeRecordStore } from '../fake-store.js';

/** A fake store whose scanned records count how often their `lastName` is read. */
class CountingStore extends FakeRecordStore {
  lastNameReads = 0;

  override *values<T extends StoredRecord>(collection: string): IterableIterator<T> {
    for (const record of super.values<T>(collection)) {
      yield new Proxy(record, {
        get: (target, key, receiver) => {
          if (key === 'lastName') this.lastNameReads++;
          return Reflect.get(target, key, receiver) as unknown;
        },
      });
    }
  }

  /** Reads of `lastName` while `run` executes. */
  readsDuring(run: () => void): number {
    const before = this.lastNameReads;
    run();
    return this.lastNameReads - before;
  }
}

const USERS = 300;
const PAGE_SIZE = 5;

async function setup(): Promise<{ store: CountingStore; users: UserService }> {
  const store = new CountingStore();
  // Limit 10: page 20 of size 5 needs a window of 105 > 10, so it builds and caches a full sort.
  // The cache serves unindexed services only (indexed ones use sort-index.ts).
  const users = new UserService(store, { heapWindowLimit: 10, indexes: false });
  for (let i = 0; i < USERS; i++) {
    await users.create({ email: `u${i}@example.com`, firstName: 'Xx', lastName: `L${(i * 7919) % 1000}` });
  }
  return { store, users };
}

describe('shallow sorted pages and the cached full sort', () => {
  it('serve the first page from the cached sort once a deep page built it, with the same content', async () => {
    const { store, users } = await setup();
    const firstPage = (): number[] => users.page({ size: PAGE_SIZE, sort: 'lastName' }).content.map((u) => u.id);
    let heapResult: number[] = [];
    // No cache yet: the bounded heap reads every user's lastName at least once.
    expect(
      store.readsDuring(() => {
        heapResult = firstPage();
      }),
    ).toBeGreaterThanOrEqual(USERS);

    expect(store.readsDuring(() => users.page({ page: 20, size: PAGE_SIZE, sort: 'lastName' }))).toBeGreaterThanOrEqual(USERS);

    let cachedResult: number[] = [];
    // Cached: only the page's own items are read (a few reads each), not the whole collection.
    expect(
      store.readsDuring(() => {
        cachedResult = firstPage();
      }),
    ).toBeLessThanOrEqual(PAGE_SIZE * 3);
    expect(cachedResult).toEqual(heapResult);
    expect(store.readsDuring(() => users.page({ page: 1, size: PAGE_SIZE, sort: 'lastName,asc' }))).toBeLessThanOrEqual(PAGE_SIZE * 3);
  });

  it('do not use a sort cached for another order', async () => {
    const { store, users } = await setup();
    users.page({ page: 20, size: PAGE_SIZE, sort: 'lastName,asc' });
    const desc = (): unknown => users.page({ size: PAGE_SIZE, sort: 'lastName,desc' });
    expect(store.readsDuring(desc)).toBeGreaterThanOrEqual(USERS);
  });

  it('stop using the cached sort after a write and show the write', async () => {
    const { store, users } = await setup();
    users.page({ page: 20, size: PAGE_SIZE, sort: 'lastName' });
    await users.patch(42, { lastName: 'A' }); // sorts before every `L...`
    let first: number[] = [];
    const reads = store.readsDuring(() => {
      first = users.page({ size: PAGE_SIZE, sort: 'lastName' }).content.map((u) => u.id);
    });
    // The patched record is the store's new object (not a counting proxy): the others still count.
    expect(reads).toBeGreaterThanOrEqual(USERS - 1);
    expect(first[0]).toBe(42);
  });
});
