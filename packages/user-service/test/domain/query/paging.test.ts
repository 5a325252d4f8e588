import { describe, expect, it } from 'vitest';
import { selectSmallest, selectWindow } from '../../../src/domain/query/paging-select.js';
import {
  MAX_PAGE_INDEX,
  normalizePageRequest,
  parsePageQuery,
  USER_SORT_FIELDS,
  userComparator,
  type SortSpec,
} from '../../../src/domain/query/paging.js';
import type { UserRepresentation } from '../../../src/domain/users/representation.js';
import { UserService } from '../../../src/domain/users/service.js';
import { FakeRecordStore, fieldsOf, manualClock, thrown } from '../fake-store.js';
import { random } from '../../helpers/random.js';

describe('parsePageQuery', () => {
  it('defaults to page 0, size 20, sort id,asc', () => {
    expect(parsePageQuery({})).toEqual({ page: 0, size: 20, sort: { field: 'id', direction: 'asc' } });
  });

  it('parses page, size and every sort field in both directions (direction optional, any case)', () => {
    expect(parsePageQuery({ page: '3', size: '1000', sort: 'lastName,desc' })).toEqual({
      page: 3,
      size: 1000,
      sort: { field: 'lastName', direction: 'desc' },
    });
    for (const field of USER_SORT_FIELDS) {
      expect(parsePageQuery({ sort: field }).sort).toEqual({ field, direction: 'asc' });
      expect(parsePageQuery({ sort: `${field},DESC` }).sort).toEqual({ field, direction: 'desc' });
      expect(parsePageQuery({ sort: ` ${field} , asc ` }).sort).toEqual({ field, direction: 'asc' });
    }
    expect(parsePageQuery({ page: String(MAX_PAGE_INDEX) }).page).toBe(MAX_PAGE_INDEX);
  });

  it.each([
    [{ page: '-1' }, ['page']],
    [{ page: '1.5' }, ['page']],
    [{ page: 'abc' }, ['page']],
    [{ page: '' }, ['page']],
    [{ page: ' 1' }, ['page']],
    [{ page: '1e3' }, ['page']],
    [{ page: '0x10' }, ['page']],
    [{ page: '2147483648' }, ['page']],
    [{ page: '99999999999999999999' }, ['page']],
    [{ size: '0' }, ['size']],
    [{ size: '1001' }, ['size']],
    [{ size: '-5' }, ['size']],
    [{ size: 'ten' }, ['size']],
    [{ sort: 'password' }, ['sort']],
    [{ sort: 'id,up' }, ['sort']],
    [{ sort: 'id,asc,x' }, ['sort']],
    [{ sort: '' }, ['sort']],
    [{ sort: 'fullName,asc' }, ['sort']],
    [{ sort: 'ID' }, ['sort']],
    [{ sort: 'id,' }, ['sort']],
    [{ page: '-1', size: '0', sort: 'nope' }, ['page', 'size', 'sort']],
  ])('rejects %j with a violation naming %j', (raw, expected) => {
    const error = thrown(() => parsePageQuery(raw));
    expect(error.status).toBe(400);
    expect(fieldsOf(error)).toEqual(expected);
  });
});

describe('normalizePageRequest', () => {
  it('fills defaults and accepts a SortSpec or a string', () => {
    expect(normalizePageRequest({ size: 5, sort: { field: 'age', direction: 'desc' } })).toEqual({
      page: 0,
      size: 5,
      sort: { field: 'age', direction: 'desc' },
    });
    expect(normalizePageRequest({ sort: 'email' }).sort).toEqual({ field: 'email', direction: 'asc' });
  });

  it.each([{ page: -1 }, { page: 0.5 }, { page: Number.NaN }, { size: 0 }, { size: 1001 }, { size: Infinity }])('rejects %j', (input) => {
    expect(thrown(() => normalizePageRequest(input)).status).toBe(400);
  });

  it('rejects a SortSpec with an unknown field', () => {
    expect(fieldsOf(thrown(() => normalizePageRequest({ sort: { field: 'x', direction: 'asc' } as unknown as SortSpec })))).toEqual([
      'sort',
    ]);
  });
});

describe('selectSmallest / selectWindow', () => {
  const numbers = [9, 3, 7, 1, 8, 2, 6, 4, 5, 0];
  const asc = (a: number, b: number): number => a - b;

  it('returns the k smallest sorted', () => {
    expect(selectSmallest(numbers, 3, asc)).toEqual([0, 1, 2]);
    expect(selectSmallest(numbers, 0, asc)).toEqual([]);
    expect(selectSmallest(numbers, 50, asc)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('returns every window equal to a full sort, from the front and from the back', () => {
    const sorted = [...numbers].sort(asc);
    for (let size = 1; size <= 11; size++) {
      for (let offset = 0; offset <= 12; offset++) {
        expect(selectWindow(() => numbers, numbers.length, offset, size, asc)).toEqual(sorted.slice(offset, offset + size));
      }
    }
  });
});

async function populated(count: number, heapWindowLimit?: number, indexes?: boolean): Promise<UserService> {
  const store = new FakeRecordStore();
  const time = manualClock();
  const users = new UserService(store, { clock: time.clock, heapWindowLimit, indexes });
  const next = random(42);
  const names = ['Ann', 'Bob', 'Cy', 'Dee', 'Eve', 'Flo', 'Gus'];
  for (let i = 0; i < count; i++) {
    const pick = (): string => names[Math.floor(next() * names.length)] as string;
    const age = next() < 0.3 ? null : 18 + Math.floor(next() * 10); // many ties and missing ages
    if (next() < 0.5) time.advance(1); // many equal timestamps
    await users.create({
      email: `${pick().toLowerCase()}${Math.floor(next() * 20)}@example.com`,
      firstName: pick(),
      lastName: pick(),
      age,
    });
    if (i % 10 === 0) await users.createVariant({ name: `${pick()} Variant`, email: 'variant@example.com' });
  }
  // Delete some and patch some so ids have gaps and updatedAt differs from createdAt.
  for (let id = 3; id < count; id += 17) await users.delete(id);
  for (let id = 5; id < count; id += 13) await users.patch(id, { age: 99 }).catch(() => undefined);
  return users;
}

/** The order pages must follow: the sort field (absent last), then id ascending. */
function referenceOrder(all: UserRepresentation[], sort: SortSpec): number[] {
  const stored = all.map((u) => ({ ...u, status: 'ACTIVE' as const }));
  return stored.sort(userComparator(sort)).map((u) => u.id);
}

describe('UserService.page', () => {
  it.each([
    ['sort indexes', undefined, true],
    ['bounded heap only', undefined, false],
    ['cached full sort for k > 8', 8, false],
    ['cached full sort always', 0, false],
  ])('matches a full sort for every field, direction, size and page (incl. past the end): %s', async (_name, limit, indexes) => {
    const users = await populated(150, limit, indexes);
    const all = users.page({ size: 1000 }).content;
    expect(all.length).toBe(users.count());
    for (const field of USER_SORT_FIELDS) {
      for (const direction of ['asc', 'desc'] as const) {
        const expected = referenceOrder(all, { field, direction });
        for (const size of [1, 7, 20, 64, 1000]) {
          const pages = Math.ceil(all.length / size) + 1;
          for (let page = 0; page <= pages; page++) {
            const result = users.page({ page, size, sort: { field, direction } });
            expect(result.content.map((u) => u.id)).toEqual(expected.slice(page * size, page * size + size));
            expect(result).toMatchObject({ page, size, totalElements: all.length, totalPages: Math.ceil(all.length / size) });
          }
        }
      }
    }
  });

  it('breaks ties by ascending id in both directions (hand-checked)', async () => {
    const users = new UserService(new FakeRecordStore());
    for (const lastName of ['Bo', 'Al', 'Bo', 'Cy', 'Al']) await users.create({ email: 'a@b.io', firstName: 'Xx', lastName });
    expect(users.page({ sort: 'lastName,asc' }).content.map((u) => u.id)).toEqual([2, 5, 1, 3, 4]);
    expect(users.page({ sort: 'lastName,desc' }).content.map((u) => u.id)).toEqual([4, 1, 3, 2, 5]);
    expect(users.page({ sort: 'lastName,desc', page: 1, size: 2 }).content.map((u) => u.id)).toEqual([3, 2]);
    expect(users.page({ sort: 'id,desc', page: 1, size: 2 }).content.map((u) => u.id)).toEqual([3, 2]);
  });

  it('reflects every write in later pages, also through the cached full sort', async () => {
    const store = new FakeRecordStore();
    const users = new UserService(store, { heapWindowLimit: 0 });
    for (const lastName of ['Cc', 'Aa', 'Bb']) await users.create({ email: 'a@b.io', firstName: 'Xx', lastName });
    const order = (): number[] => users.page({ sort: 'lastName' }).content.map((u) => u.id);
    expect(order()).toEqual([2, 3, 1]);
    await users.patch(1, { lastName: 'A' });
    expect(order()).toEqual([1, 2, 3]);
    await users.delete(2);
    expect(order()).toEqual([1, 3]);
    await users.create({ email: 'a@b.io', firstName: 'Xx', lastName: '0' });
    expect(order()).toEqual([4, 1, 3]);
    // Another instance over the same store shares the index.
    expect(new UserService(store).page({ sort: 'lastName' }).content.map((u) => u.lastName)).toEqual(['0', 'A', 'Bb']);
  });

  it('puts users without age last in both directions', async () => {
    const users = await populated(40);
    for (const direction of ['asc', 'desc'] as const) {
      const content = users.page({ size: 1000, sort: { field: 'age', direction } }).content;
      const firstMissing = content.findIndex((u) => u.age === undefined);
      expect(firstMissing).toBeGreaterThan(0);
      expect(content.slice(firstMissing).every((u) => u.age === undefined)).toBe(true);
    }
  });

  it('answers an empty store and a page far past the end with empty content', async () => {
    const users = new UserService(new FakeRecordStore());
    expect(users.page()).toEqual({ content: [], page: 0, size: 20, totalElements: 0, totalPages: 0 });
    const filled = await populated(5);
    expect(filled.page({ page: MAX_PAGE_INDEX, size: 1000, sort: 'email' }).content).toEqual([]);
    expect(filled.page({ page: MAX_PAGE_INDEX, size: 1000, sort: 'id,desc' }).content).toEqual([]);
  });

  it('rejects invalid requests with 400', async () => {
    const users = await populated(3);
    expect(fieldsOf(thrown(() => users.page({ page: -1, size: 5000 })))).toEqual(['page', 'size']);
  });
});
