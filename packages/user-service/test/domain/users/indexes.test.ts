/**
 * The indexed answers (sort indexes, email index, trigram index) must be exactly today's scan:
 * a randomised run of a few thousand users and writes (creates, variants, PUT, PATCH changing sort
 * keys and emails, removing ages, deletes) compares an indexed UserService with an unindexed one
 * (`indexes: false`, the scan) over the same store, query by query. Deterministic seed, so a
 * failure reproduces.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { USER_SORT_FIELDS } from '../../../src/domain/query/paging.js';
import { TrigramIndex } from '../../../src/domain/query/trigram-index.js';
import { UserService } from '../../../src/domain/users/service.js';
import { createRecordStore } from '../../../src/storage/index.js';
import type { RecordStore } from '../../../src/storage/record-store.js';
import { FakeRecordStore, manualClock } from '../fake-store.js';
import { random } from '../../helpers/random.js';

const LOCAL = 'aAbBzZ09'.split(''); // ASCII only, like every valid email
const DOMAINS = ['ex.com', 'EX.org', 'b.io', 'Zz.net'];
const NAMES = ['Ann', 'bob', 'Cy', 'Dee', 'eve'];
const NOISE = 'abzq0@.xOM'.split('');

class Fuzz {
  readonly next: () => number;
  readonly emails: string[] = [];

  constructor(seed: number) {
    this.next = random(seed);
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  /** Emails collide often (exact lookups find several users) and differ only by case. */
  email(): string {
    if (this.emails.length > 0 && this.next() < 0.2) return this.pick(this.emails);
    let local = '';
    for (let i = 1 + this.int(5); i > 0; i--) local += this.pick(LOCAL);
    const email = `${local}@${this.pick(DOMAINS)}`;
    this.emails.push(email);
    return email;
  }

  body(): Record<string, unknown> {
    return {
      email: this.email(),
      firstName: this.pick(NAMES),
      lastName: this.pick(NAMES) + this.int(4),
      age: this.next() < 0.25 ? null : 18 + this.int(6),
    };
  }

  /** Fragments of every length 0..6: pieces of known emails with flipped case, and random text. */
  fragment(): string {
    if (this.next() < 0.3) {
      let text = '';
      for (let i = this.int(5); i > 0; i--) text += this.pick(NOISE);
      return text;
    }
    const email = this.pick(this.emails);
    const from = this.int(email.length);
    const piece = email.slice(from, from + 1 + this.int(6));
    return piece
      .split('')
      .map((c) => (this.next() < 0.5 ? c.toUpperCase() : c.toLowerCase()))
      .join('');
  }
}

/** Every query kind, indexed vs scan; returns how many comparisons were made. */
function compareAll(indexed: UserService, scan: UserService, fuzz: Fuzz): number {
  let checks = 0;
  const total = scan.count();
  expect(indexed.count()).toBe(total);
  for (const field of USER_SORT_FIELDS) {
    for (const direction of ['asc', 'desc'] as const) {
      const sort = { field, direction };
      const size = fuzz.pick([1, 7, 50, 1000]);
      const middle = Math.floor(total / size / 2);
      for (const page of [0, 1, middle, Math.floor(total / size), fuzz.int(Math.ceil(total / size) + 2)]) {
        expect(indexed.page({ page, size, sort })).toEqual(scan.page({ page, size, sort }));
        checks++;
      }
    }
  }
  for (let i = 0; i < 20; i++) {
    const email = fuzz.next() < 0.9 ? fuzz.pick(fuzz.emails) : 'nobody@ex.com';
    expect(indexed.findByEmail(email)).toEqual(scan.findByEmail(email));
    const sort = { field: fuzz.pick(USER_SORT_FIELDS), direction: fuzz.pick(['asc', 'desc'] as const) };
    expect(indexed.page({ size: 3, sort }, { email })).toEqual(scan.page({ size: 3, sort }, { email }));
    checks += 2;
  }
  for (let i = 0; i < 60; i++) {
    const fragment = fuzz.fragment();
    expect(indexed.search(fragment), `search(${JSON.stringify(fragment)})`).toEqual(scan.search(fragment));
    checks++;
  }
  for (const fragment of ['', '\u0000', 'A\u0000']) expect(indexed.search(fragment)).toEqual(scan.search(fragment));
  return checks;
}

/** Random writes through `users`; ids come from `live`, which it keeps current. */
async function randomWrites(users: UserService, fuzz: Fuzz, live: number[], advance: (s: number) => void, count: number): Promise<void> {
  for (let n = 0; n < count; n++) {
    if (fuzz.next() < 0.5) advance(1); // equal timestamps are common
    const roll = fuzz.next();
    if (roll < 0.4 || live.length === 0) {
      live.push((await users.create(fuzz.body())).id);
    } else if (roll < 0.45) {
      await users.createVariant({ name: 'Var Iant', email: fuzz.email() });
    } else if (roll < 0.6) {
      const id = fuzz.pick(live);
      await users.replace(id, fuzz.body());
    } else if (roll < 0.85) {
      const id = fuzz.pick(live);
      const change = fuzz.pick<Record<string, unknown>>([
        { email: fuzz.email() },
        { lastName: fuzz.pick(NAMES) },
        { age: null },
        { age: 18 + fuzz.int(6) },
        { firstName: fuzz.pick(NAMES), email: fuzz.email().toUpperCase() },
        {},
      ]);
      await users.patch(id, change);
    } else {
      const at = fuzz.int(live.length);
      await users.delete(live[at] as number);
      live.splice(at, 1);
    }
  }
}

describe('indexed queries equal the scan', () => {
  it('for every sort field and direction, email lookups and searches, across random writes', async () => {
    const store = new FakeRecordStore();
    const time = manualClock();
    const indexed = new UserService(store, { clock: time.clock });
    const scan = new UserService(store, { clock: time.clock, indexes: false });
    const fuzz = new Fuzz(7);
    const live: number[] = [];
    for (let i = 0; i < 2500; i++) live.push((await indexed.create(fuzz.body())).id);
    await randomWrites(indexed, fuzz, live, time.advance, 500);
    let checks = compareAll(indexed, scan, fuzz); // builds every index over the first users
    for (let round = 0; round < 6; round++) {
      // Writes go through either service: both maintain the one index of the store.
      await randomWrites(round % 2 === 0 ? indexed : scan, fuzz, live, time.advance, 500);
      checks += compareAll(indexed, scan, fuzz);
    }
    expect(scan.count()).toBeGreaterThan(2000);
    expect(checks).toBeGreaterThan(1000);
  });

  it('built in the background (buildIndexes): scans meanwhile, writes during the build kept, ready at the end', async () => {
    const store = new FakeRecordStore();
    const time = manualClock();
    const seeder = new UserService(store, { clock: time.clock, indexes: false });
    const fuzz = new Fuzz(13);
    const live: number[] = [];
    // Above the inline limit (5 000 users), so the build takes several turns of the event loop.
    for (let i = 0; i < 5050; i++) live.push((await seeder.create(fuzz.body())).id);
    const indexed = new UserService(store, { clock: time.clock });
    const scan = new UserService(store, { clock: time.clock, indexes: false });
    const built = indexed.buildIndexes();
    expect(indexed.buildIndexes()).toBe(built);
    let turns = 0;
    while (!indexed.indexesReady) {
      // Queries answer while the build runs (the missing indexes scanned, none built by a query),
      // and writes between its steps reach the indexes built before and after them.
      for (const field of USER_SORT_FIELDS) {
        const sort = { field, direction: fuzz.pick(['asc', 'desc'] as const) };
        expect(indexed.page({ page: 3, size: 50, sort })).toEqual(scan.page({ page: 3, size: 50, sort }));
      }
      const email = fuzz.pick(fuzz.emails);
      expect(indexed.findByEmail(email)).toEqual(scan.findByEmail(email));
      const fragment = fuzz.fragment();
      expect(indexed.search(fragment)).toEqual(scan.search(fragment));
      await randomWrites(turns % 2 === 0 ? indexed : scan, fuzz, live, time.advance, 40);
      await new Promise((resolve) => setImmediate(resolve));
      turns++;
    }
    await built;
    expect(turns).toBeGreaterThanOrEqual(7); // many short steps, none of them finished by a query
    compareAll(indexed, scan, fuzz);
    await randomWrites(indexed, fuzz, live, time.advance, 300);
    compareAll(indexed, scan, fuzz);
  });

  it('confirms trigram candidates: every trigram present is not the fragment present (hand-checked)', async () => {
    const users = new UserService(new FakeRecordStore());
    await users.create({ email: 'abcXbcd@ex.com', firstName: 'Xx', lastName: 'Yy' });
    await users.create({ email: 'zABCD@ex.com', firstName: 'Xx', lastName: 'Yy' });
    await users.create({ email: 'ab@B.io', firstName: 'Xx', lastName: 'Yy' });
    expect(users.search('abcd').map((u) => u.id)).toEqual([2]);
    expect(users.search('bC').map((u) => u.id)).toEqual([1, 2]);
    expect(users.search('I').map((u) => u.id)).toEqual([3]); // only in the last trigram, `io\0`
    expect(users.search('b.').map((u) => u.id)).toEqual([3]);
    expect(users.search('@').map((u) => u.id)).toEqual([1, 2, 3]);
  });

  it('keys non-ASCII trigrams apart from ASCII ones (emails are ASCII, the index does not rely on it)', () => {
    const index = TrigramIndex.of([
      { id: 1, email: 'Ünï@ex.com' },
      { id: 2, email: 'uni@ex.com' },
      { id: 3, email: 'x\u4e2d\u6587@ex.com' },
    ]);
    index.add(4, 'ÜNÏ@b.io');
    const all = (): boolean => true;
    expect(index.search('ünï', 10, all)).toEqual([1, 4]);
    expect(index.search('uni', 10, all)).toEqual([2]);
    expect(index.search('ü', 10, all)).toEqual([1, 4]);
    expect(index.search('ün', 10, all)).toEqual([1, 4]);
    expect(index.search('\u4e2d\u6587', 10, all)).toEqual([3]);
    expect(index.search('x\u4e2d\u6587@', 10, all)).toEqual([3]);
    index.remove(1, 'Ünï@ex.com');
    expect(index.search('ünï', 10, all)).toEqual([4]);
  });

  it('after a restart, rebuilt from the replayed journal', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'users-indexes-'));
    const fuzz = new Fuzz(11);
    const time = manualClock();
    let store: RecordStore = createRecordStore('journal', dir);
    try {
      await store.open();
      const before = new UserService(store, { clock: time.clock });
      const live: number[] = [];
      await randomWrites(before, fuzz, live, time.advance, 200);
      compareAll(before, new UserService(store, { indexes: false }), fuzz);
      await randomWrites(before, fuzz, live, time.advance, 200); // maintained indexes, then dropped
      const expected = before.page({ size: 1000, sort: 'email,desc' });
      await store.close();

      store = createRecordStore('journal', dir);
      await store.open();
      const after = new UserService(store, { clock: time.clock });
      expect(after.page({ size: 1000, sort: 'email,desc' })).toEqual(expected);
      compareAll(after, new UserService(store, { indexes: false }), fuzz);
      await randomWrites(after, fuzz, live, time.advance, 200);
      compareAll(after, new UserService(store, { indexes: false }), fuzz);
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
