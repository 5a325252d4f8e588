/**
 * In-memory index of the regular (non-variant) users: the store's own frozen records in an array
 * sorted by id, shared by every UserService over the same store.
 *
 * Why: lists, pages and searches show only regular users. Walking a plain array is an order of
 * magnitude cheaper than the store's iterator plus a variant filter (measured with
 * packages/bench/src/service/domain-scale.ts: a 10^6-user scan drops from ~90 ms to a few ms), `list()` and id-sorted
 * pages become a slice, and the page total is `length`. The array holds references to the records
 * the store already keeps, so it costs one pointer per user.
 *
 * Beside it, built in the background at start-up ({@link UsersIndex.build}: the service's readiness
 * waits for it) or, for a domain service used on its own, on first use, and from then on maintained
 * by every write (create, replace, patch, delete): one sort index per sortable field (sort-index.ts) and a trigram index
 * of the lower-cased emails (trigram-index.ts). At 10^6 users they turn sorted pages, email
 * lookups and searches from linear scans into logarithmic lookups (packages/bench/src/service/indexes.ts). After a
 * restart (a new store object, replayed from its journal) everything is rebuilt from the store.
 *
 * The id array is built by one scan and then maintained from the store's change notifications
 * (`onChange`), whoever wrote. It lives in a WeakMap
 * keyed by the store so two service instances (the app's and the seeder's) never disagree.
 */
import type { RecordStore } from '../../storage/record-store.js';
import { USER_SORT_FIELDS } from '../query/paging.js';
import { UserSortIndex, type IndexedSortField } from '../query/sort-index.js';
import { nextTurn } from '../query/in-turns.js';
import { TrigramIndex } from '../query/trigram-index.js';
import { KeyedLock } from './keyed-lock.js';
import { USERS_COLLECTION, type StoredUser } from './model.js';
import { isVariant } from './representation.js';

const indexes = new WeakMap<RecordStore, UsersIndex>();

/** Every field with a sort index (id order is the id array itself). */
/**
 * Up to this many users {@link UsersIndex.build} builds everything at once (about 75 ms at 5 000,
 * measured with packages/bench/src/service/indexes.ts) instead of over several turns.
 */
const INLINE_BUILD_LIMIT = 5000;

const INDEXED_FIELDS: readonly IndexedSortField[] = USER_SORT_FIELDS.filter((f): f is IndexedSortField => f !== 'id');

/**
 * Regular users sorted by id, their sort and search indexes, one cached full sort (unindexed
 * services) and the per-user write lock; one per store.
 */
export class UsersIndex {
  /** Serializes read-modify-write cycles per user id. */
  readonly lock = new KeyedLock();
  private sorted: StoredUser[] | undefined;
  private changes = 0;
  private cache: { key: string; version: number; records: StoredUser[] } | undefined;
  private readonly fields = new Map<IndexedSortField, UserSortIndex>();
  private grams: TrigramIndex | undefined;
  private building: Promise<void> | undefined;
  /** Ids written while a background build runs (see {@link build}). */
  private touched: Set<number> | undefined;

  private constructor(private readonly store: RecordStore) {
    // Every applied change, this instance's or (a shared store) another's, keeps the index current.
    store.onChange((collection, id) => {
      if (collection !== USERS_COLLECTION) return;
      if (store.get(USERS_COLLECTION, id) === undefined) this.removed(id);
      else this.stored(id);
    });
  }

  /** The index shared by every service over `store`. */
  static of(store: RecordStore): UsersIndex {
    let index = indexes.get(store);
    if (index === undefined) {
      index = new UsersIndex(store);
      indexes.set(store, index);
    }
    return index;
  }

  /** Regular users, ascending id. Do not mutate. */
  records(): readonly StoredUser[] {
    if (this.sorted === undefined) {
      const records: StoredUser[] = [];
      // values() is ascending by id (RecordStore contract), so the array comes out sorted.
      for (const user of this.store.values<StoredUser>(USERS_COLLECTION)) {
        if (!isVariant(user)) records.push(user);
      }
      this.sorted = records;
    }
    return this.sorted;
  }

  /**
   * The sort index of `field`, then maintained by writes; `undefined` while {@link build} has
   * started but not reached it (the caller scans meanwhile). Without a {@link build} (a domain
   * service used on its own) it is built here, on first use, by one full sort.
   */
  sortIndex(field: IndexedSortField): UserSortIndex | undefined {
    let index = this.fields.get(field);
    if (index === undefined && this.building === undefined) {
      index = new UserSortIndex(field, this.records());
      this.fields.set(field, index);
    }
    return index;
  }

  /** The trigram index of the emails, like {@link sortIndex}: `undefined` while a build is under way. */
  trigrams(): TrigramIndex | undefined {
    if (this.grams === undefined && this.building === undefined) this.grams = TrigramIndex.of(this.records());
    return this.grams;
  }

  /** True once every index exists (built by {@link build} or on first use). */
  get ready(): boolean {
    return this.sorted !== undefined && this.grams !== undefined && this.fields.size === INDEXED_FIELDS.length;
  }

  /**
   * Builds every index in the background, in short synchronous steps (a few milliseconds each,
   * see query/in-turns.ts), so no request ever waits for one and the event loop keeps answering:
   * until all are there the queries scan (same answers, slower), and the service's readiness check
   * stays DOWN. The indexes are built over the users of the moment the build starts; ids written
   * meanwhile are noted, and at the end, in one step, their old entries are taken out and their
   * current records put in, so a write during the build is never lost. Small stores are indexed at
   * once. Idempotent: a second call returns the same promise.
   */
  build(): Promise<void> {
    if (this.building !== undefined) return this.building;
    const base = this.records().slice();
    if (base.length <= INLINE_BUILD_LIMIT) {
      // Small stores (tests, the demo data) are indexed at once: ready as soon as the call returns.
      for (const field of INDEXED_FIELDS) if (!this.fields.has(field)) this.fields.set(field, new UserSortIndex(field, base));
      this.grams ??= TrigramIndex.of(base);
      this.building = Promise.resolve();
      return this.building;
    }
    const touched = new Set<number>();
    this.touched = touched;
    this.building = (async () => {
      const fields = new Map<IndexedSortField, UserSortIndex>();
      for (const field of INDEXED_FIELDS) fields.set(field, await UserSortIndex.build(field, base, nextTurn));
      const grams = await TrigramIndex.build(base, nextTurn);
      // One synchronous step: the writes made during the build, then the indexes go live.
      for (const id of touched) {
        const at = lowerBound(base, id);
        const before = base[at]?.id === id ? base[at] : undefined;
        const now = this.store.get<StoredUser>(USERS_COLLECTION, id);
        const after = now !== undefined && !isVariant(now) ? now : undefined;
        for (const index of fields.values()) {
          if (before !== undefined) index.remove(before);
          if (after !== undefined) index.add(after);
        }
        if (before !== undefined) grams.remove(id, before.email);
        if (after !== undefined) grams.add(id, after.email);
      }
      this.touched = undefined;
      for (const [field, index] of fields) this.fields.set(field, index);
      this.grams = grams;
    })();
    return this.building;
  }

  /**
   * The regular users fully sorted by `compare`, cached under `key` until the next change. For
   * deep pages only: building costs a full sort, so callers use it when a bounded heap would be
   * nearly as big, and repeated deep paging between writes then costs a slice.
   */
  sortedBy(key: string, compare: (a: StoredUser, b: StoredUser) => number): readonly StoredUser[] {
    const cached = this.cachedSort(key);
    if (cached !== undefined) return cached;
    const records = [...this.records()].sort(compare);
    this.cache = { key, version: this.changes, records };
    return records;
  }

  /**
   * The full sort cached under `key` if no write happened since it was built, else `undefined`;
   * never builds one. Lets shallow pages reuse a sort a deep page already paid for.
   */
  cachedSort(key: string): readonly StoredUser[] | undefined {
    const cached = this.cache;
    return cached !== undefined && cached.key === key && cached.version === this.changes ? cached.records : undefined;
  }

  /**
   * Records a committed put of user `id`, reading back what the store now holds (its frozen copy).
   * Idempotent; usually an append (ids grow) or an in-place replacement.
   */
  stored(id: number): void {
    this.changes++; // invalidates the cached sort
    this.touched?.add(id);
    const records = this.sorted;
    const record = this.store.get<StoredUser>(USERS_COLLECTION, id);
    if (records === undefined || record === undefined || isVariant(record)) return; // lazy scan will see it
    const last = records[records.length - 1];
    let previous: StoredUser | undefined;
    if (last === undefined || last.id < id) {
      records.push(record);
    } else {
      // Concurrent creates may commit out of id order.
      const at = lowerBound(records, id);
      previous = records[at]?.id === id ? records[at] : undefined;
      if (previous !== undefined) records[at] = record;
      else records.splice(at, 0, record);
    }
    for (const index of this.fields.values()) {
      if (previous === undefined) index.add(record);
      else index.replace(previous, record);
    }
    if (this.grams !== undefined && previous?.email.toLowerCase() !== record.email.toLowerCase()) {
      if (previous !== undefined) this.grams.remove(id, previous.email);
      this.grams.add(id, record.email);
    }
  }

  /** Records a committed delete. Idempotent. */
  removed(id: number): void {
    this.changes++; // invalidates the cached sort
    this.touched?.add(id);
    const records = this.sorted;
    if (records === undefined) return;
    const at = lowerBound(records, id);
    const previous = records[at];
    if (previous?.id !== id) return;
    records.splice(at, 1);
    for (const index of this.fields.values()) index.remove(previous);
    this.grams?.remove(id, previous.email);
  }
}

/** First index whose record id is >= `id`. */
function lowerBound(records: readonly StoredUser[], id: number): number {
  let lo = 0;
  let hi = records.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((records[mid] as StoredUser).id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
