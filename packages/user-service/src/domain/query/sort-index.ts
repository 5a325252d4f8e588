/**
 * One sort index of the regular users: the records ordered by a field ascending, exactly as
 * {@link userComparator} orders them (absent values last, ties by ascending id), kept in
 * {@link SortedBlocks} so a write costs O(log n + block) and a page O(blocks + page size).
 *
 * Descending pages are served from the same ascending index, so each field costs one index, not
 * two: the descending order is not the ascending one reversed (ties stay id-ascending and absent
 * values stay last), so it is walked value group by value group from the end of the present part.
 */
import { userComparator, type SortDirection, type UserSortField } from './paging.js';
import { sortInTurns, type Turn } from './in-turns.js';
import { SortedBlocks } from './sorted-blocks.js';
import type { StoredUser } from '../users/model.js';

/** The sortable fields that get an index (id order is the id array itself). */
export type IndexedSortField = Exclude<UserSortField, 'id'>;

type Key = string | number;

/**
 * Regular users ordered by `field`.
 *
 * @example
 * const byAge = new UserSortIndex('age', users);
 * byAge.page('desc', 40, 20); // the third page of `sort=age,desc`
 */
export class UserSortIndex {
  private readonly items: SortedBlocks<StoredUser>;

  /** Builds the index over `records` with one full sort (`sorted`: already in this index's order). */
  constructor(
    readonly field: IndexedSortField,
    records: readonly StoredUser[],
    sorted = false,
  ) {
    const compare = userComparator({ field, direction: 'asc' });
    this.items = SortedBlocks.fromSorted(sorted ? records : [...records].sort(compare), compare);
  }

  /**
   * The index of `records` sorted in short steps with a `turn()` between them ({@link sortInTurns}),
   * for the background build. `records` must not change meanwhile.
   */
  static async build(field: IndexedSortField, records: readonly StoredUser[], turn: Turn): Promise<UserSortIndex> {
    const sorted = await sortInTurns(records, userComparator({ field, direction: 'asc' }), turn);
    return new UserSortIndex(field, sorted, true);
  }

  /** Adds a record (or replaces the one with the same id and key). */
  add(record: StoredUser): void {
    this.items.insert(record);
  }

  /** Removes `record` (found by its key and id). */
  remove(record: StoredUser): void {
    this.items.delete(record);
  }

  /** Swaps in the new version of a record; moves it only if its key changed. */
  replace(previous: StoredUser, next: StoredUser): void {
    if (previous[this.field] !== next[this.field]) this.items.delete(previous);
    this.items.insert(next);
  }

  /** Records at positions `[offset, offset + size)` of `sort=<field>,<direction>`. */
  page(direction: SortDirection, offset: number, size: number): StoredUser[] {
    const items = this.items;
    if (direction === 'asc') return items.slice(offset, offset + size);
    const field = this.field;
    const present = items.rank((u) => u[field] !== undefined);
    const end = Math.min(offset + size, items.size);
    const out: StoredUser[] = [];
    let at = offset;
    while (at < end && at < present) {
      // The value group holding descending position `at`, located in the ascending index.
      const value = (items.get(items.cursorAt(present - 1 - at)) as StoredUser)[field] as Key;
      const groupStart = items.rank((u) => (u[field] as Key | undefined) !== undefined && (u[field] as Key) < value);
      const groupEnd = items.rank((u) => (u[field] as Key | undefined) !== undefined && (u[field] as Key) <= value);
      const from = groupStart + at - (present - groupEnd);
      const take = Math.min(end, present - groupStart) - at;
      for (const user of items.slice(from, from + take)) out.push(user);
      at += take;
    }
    // Absent values: last in both directions, ids ascending, i.e. the ascending tail as is.
    if (at < end) for (const user of items.slice(at, end)) out.push(user);
    return out;
  }

  /** Records whose field equals `value`, ascending id, at most `limit` (Infinity: all). */
  equal(value: Key, limit: number): StoredUser[] {
    const field = this.field;
    const items = this.items;
    const out: StoredUser[] = [];
    const cursor = items.seek((u) => (u[field] as Key | undefined) !== undefined && (u[field] as Key) < value);
    for (let user = items.get(cursor); user !== undefined && user[field] === value && out.length < limit; user = items.get(cursor)) {
      out.push(user);
      items.advance(cursor);
    }
    return out;
  }
}
