/**
 * UserService: the user resource's domain operations over a RecordStore (collection `users`).
 *
 * Decisions (what `docs/api.md` leaves open, settled here; resources rely on them):
 * - Variant users (`POST /api/users/create`) live in the same collection and id space, marked
 *   `kind: 'variant'`, so `GET /api/users/<id>` serves them in the variant shape `{id, name, email}`
 *   ({@link toRepresentation}). The unpaged list, the email filter, paged lists and search return
 *   ONLY regular users, so every element they emit is valid against the User schema
 *   (additionalProperties false, firstName/lastName required).
 * - PUT and PATCH on a variant record update its user fields, keep it a variant, and recompute
 *   `name` as `firstName + ' ' + lastName`. DELETE works on both kinds.
 * - Server-owned fields (id, status, roles, createdAt, birthDate) are never taken from a body;
 *   `updatedAt` is set at creation and on every update. birthDate is set only by the seed.
 * - Emails are not unique. `findByEmail` is exact (case-sensitive, as stored); `search` is a
 *   case-insensitive substring match.
 * - Concurrency: every read-modify-write of one user runs under a per-id lock (KeyedLock), so
 *   concurrent PUT/PATCH/DELETE of the same user behave as if sequential within one instance, and
 *   commits with a precondition on the version it read, so they do across instances sharing a
 *   store (a lost race is decided again on the fresh record: common/conflicts.ts).
 * - Entity tags are `"<id>-<version>"` with the store's version of the record (`rev` on the
 *   journal, etcd's mod_revision on etcd), so an If-Match is a precondition of the commit.
 *
 * Performance at 10^6 users (packages/bench/src/service/indexes.ts, packages/bench/src/service/domain-scale.ts, MemoryRecordStore):
 * - Regular users are kept as an id-sorted array of the store's own records (indexes.ts).
 *   get: one store lookup. list and id-sorted pages (asc or desc): a slice, O(page size);
 *   totals O(1).
 * - By default (`indexes: true`) pages sorted by another field, findByEmail, the email filter and
 *   search use indexes maintained on every write (sort-index.ts, trigram-index.ts): a page costs
 *   O(n / 1024 + page size), an email lookup O(log n + matches), a search one posting-list walk.
 *   The server builds them in the background at start-up ({@link UserService.buildIndexes}, readiness
 *   waits for it; meanwhile queries scan); a service used on its own builds each on first use.
 * - Unindexed services (`indexes: false`: less memory, and the reference the indexed answers are
 *   tested against) scan instead. Pages sorted by another field: one pass over the array with a
 *   bounded heap (paging-select.ts), O(n log k), k = min((page+1)*size, n - page*size), so the
 *   first and last pages are cheap. When k would exceed HEAP_WINDOW_LIMIT (deep middle pages)
 *   a full sort is built once and cached until the next write; while it is valid every page of
 *   that order (shallow ones too) is a slice of it.
 *   findByEmail and search: a linear scan of the array in id order, stopped at 1000 results, the
 *   unpaged-list limit of `docs/api.md` rule 36.
 */
import { isRecordId } from '../../storage/record-codec.js';
import { localVersion, type Mutation, type Precondition, type RecordStore } from '../../storage/record-store.js';
import { retryOnConflict } from '../common/conflicts.js';
import { EntityTag, NotFoundError } from '@jaxrs-node/pipeline';
import { normalizePageRequest, toPage, userComparator, type Page, type PageRequest, type PageRequestInput } from '../query/paging.js';
import { selectWindow } from '../query/paging-select.js';
import { TrigramIndex } from '../query/trigram-index.js';
import { UsersIndex } from './indexes.js';
import { formatTimestamp, requireValid, systemClock, USERS_COLLECTION, type Clock, type StoredUser, type UserInput } from './model.js';
import {
  isVariant,
  toRepresentation,
  toUserRepresentation,
  type AnyUserRepresentation,
  type UserRepresentation,
  type VariantUserRepresentation,
} from './representation.js';
import { mergePatchUserInput, splitVariantName, validateUserInput, validateVariantInput } from './validation.js';

/** Most items an unpaged list, email filter or search returns (`docs/api.md` rule 36). */
export const MAX_LIST_ITEMS = 1000;

/**
 * Largest heap a page selection builds; beyond it (deep pages of big collections) a full sort,
 * cached until the next write, is about as cheap once and free for the following deep pages.
 */
export const HEAP_WINDOW_LIMIT = 10_000;

const ISO_DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

export interface UserServiceOptions {
  /** Source of timestamps; defaults to the wall clock. */
  clock?: Clock;
  /** Tuning/testing: largest heap a page selection builds (default {@link HEAP_WINDOW_LIMIT}). */
  heapWindowLimit?: number;
  /**
   * Serve sorted pages, email lookups and searches from indexes maintained on write (default
   * true); false scans instead (less memory, slower at scale). Same answers either way.
   */
  indexes?: boolean;
}

/** Server-side extras for {@link UserService.create}; never fed from a request body. */
export interface CreateUserOptions {
  /** `YYYY-MM-DD`. */
  birthDate?: string;
  /**
   * More mutations committed in the same atomic batch as the user, made from its representation
   * (an Idempotency-Key's stored answer, an async job's progress).
   */
  alsoCommit?: (created: AnyUserRepresentation) => Mutation[];
  /** More preconditions of that batch (e.g. the job still owned by this instance). */
  expect?: readonly Precondition[];
}

/** Domain operations of `/api/users`. All results are ready-to-serialize representations. */
export class UserService {
  private readonly index: UsersIndex;
  private readonly clock: Clock;
  private readonly heapWindowLimit: number;
  private readonly indexed: boolean;

  constructor(
    private readonly store: RecordStore,
    options: UserServiceOptions = {},
  ) {
    this.index = UsersIndex.of(store);
    this.clock = options.clock ?? systemClock;
    this.heapWindowLimit = options.heapWindowLimit ?? HEAP_WINDOW_LIMIT;
    this.indexed = options.indexes ?? true;
  }

  /**
   * Creates a regular user: status ACTIVE, roles [USER].
   * @throws BadRequestError listing every violation.
   */
  async create(body: unknown, options: CreateUserOptions = {}): Promise<UserRepresentation> {
    const input = requireValid(validateUserInput(body));
    if (options.birthDate !== undefined && !ISO_DATE.test(options.birthDate)) {
      throw new TypeError(`birthDate must be YYYY-MM-DD, got ${options.birthDate}`);
    }
    const record = await this.newRecord(input);
    if (options.birthDate !== undefined) record.birthDate = options.birthDate;
    const representation = toUserRepresentation(record);
    await this.store.commit([{ op: 'put', collection: USERS_COLLECTION, record }, ...(options.alsoCommit?.(representation) ?? [])], {
      expect: [absent(record.id), ...(options.expect ?? [])],
    });
    return representation;
  }

  /**
   * Creates a variant user from `{ name, email }`; first/last name are derived from `name`.
   * @throws BadRequestError listing every violation.
   */
  async createVariant(body: unknown, options: Pick<CreateUserOptions, 'alsoCommit'> = {}): Promise<VariantUserRepresentation> {
    const { name, email } = requireValid(validateVariantInput(body));
    const record = await this.newRecord({ email, ...splitVariantName(name) });
    record.kind = 'variant';
    record.name = name;
    const representation = { id: record.id, name, email };
    await this.store.commit([{ op: 'put', collection: USERS_COLLECTION, record }, ...(options.alsoCommit?.(representation) ?? [])], {
      expect: [absent(record.id)],
    });
    return representation;
  }

  /** The stored record, or undefined. For other domain services (orders, XML view). */
  getRecord(id: number): StoredUser | undefined {
    if (!isRecordId(id)) return undefined; // never hand odd keys to the store
    return this.store.get<StoredUser>(USERS_COLLECTION, id);
  }

  /** @throws NotFoundError when absent (including after deletion). */
  get(id: number): AnyUserRepresentation {
    return toRepresentation(this.requireRecord(id));
  }

  /** The representation and its entity tag, read together. @throws NotFoundError when absent. */
  getTagged(id: number): { user: AnyUserRepresentation; tag: EntityTag } {
    const record = this.requireRecord(id);
    return { user: toRepresentation(record), tag: this.tagOf(record) };
  }

  /**
   * PUT: every client-controlled field is replaced (an absent `age` removes it); id unchanged.
   * @throws NotFoundError, BadRequestError listing every violation.
   */
  replace(id: number, body: unknown, options: WriteOptions = {}): Promise<AnyUserRepresentation> {
    return this.update(id, () => requireValid(validateUserInput(body)), options);
  }

  /**
   * PATCH with RFC 7396 JSON merge patch semantics, then validated like a PUT body.
   * @throws NotFoundError, BadRequestError listing every violation.
   */
  patch(id: number, body: unknown, options: WriteOptions = {}): Promise<AnyUserRepresentation> {
    return this.update(id, (current) => requireValid(mergePatchUserInput(inputOf(current), body)), options);
  }

  /** @throws NotFoundError when absent; whatever `options.check` throws (412) before anything changes. */
  delete(id: number, options: WriteOptions = {}): Promise<void> {
    return this.index.lock.run(String(id), () =>
      retryOnConflict(this.store, async () => {
        const current = this.requireRecord(id); // before `check?.()`: optional chaining would skip it
        options.check?.(this.tagOf(current));
        await this.store.commit([{ op: 'delete', collection: USERS_COLLECTION, id }], { expect: [this.unchanged(id)] });
      }),
    );
  }

  /** Regular users by ascending id, at most {@link MAX_LIST_ITEMS}. */
  list(): UserRepresentation[] {
    return this.index.records().slice(0, MAX_LIST_ITEMS).map(toUserRepresentation);
  }

  /** Regular users whose email equals `email` exactly (emails are not unique). */
  findByEmail(email: string): UserRepresentation[] {
    const byEmail = this.indexed ? this.index.sortIndex('email') : undefined;
    if (byEmail !== undefined) return byEmail.equal(email, MAX_LIST_ITEMS).map(toUserRepresentation);
    return this.scan((user) => user.email === email);
  }

  /** Regular users whose email contains `fragment`, ignoring case, ascending id, capped. */
  search(fragment: string): UserRepresentation[] {
    const needle = fragment.toLowerCase();
    const contains = (user: StoredUser): boolean => user.email.toLowerCase().includes(needle);
    // The empty fragment matches everyone: the scan stops after the first MAX_LIST_ITEMS users.
    const grams = this.indexed && needle !== '' && TrigramIndex.answers(needle) ? this.index.trigrams() : undefined;
    if (grams === undefined) return this.scan(contains);
    const ids = grams.search(needle, MAX_LIST_ITEMS, (id) => contains(this.requireRecord(id)));
    return ids.map((id) => toUserRepresentation(this.requireRecord(id)));
  }

  /**
   * Builds every index in the background (see `UsersIndex.build`): from then on no query builds
   * one; until it resolves, queries whose index is missing scan. The composition root calls it at
   * start-up and keeps readiness DOWN until it resolves ({@link indexesReady}).
   */
  buildIndexes(): Promise<void> {
    return this.indexed ? this.index.build() : Promise.resolve();
  }

  /** Whether every index is built (always true for an unindexed service). */
  get indexesReady(): boolean {
    return !this.indexed || this.index.ready;
  }

  /** Number of regular users (the paged total). */
  count(): number {
    return this.index.records().length;
  }

  /**
   * One page of regular users. Defaults: page 0, size 20, sort id,asc.
   *
   * `request` is either a {@link PageRequest} already validated by the caller (the HTTP resource
   * passes the result of `parsePageQuery`), used as is, or raw input (jobs, tests, other
   * services), validated here; either way it is validated exactly once.
   * @throws BadRequestError naming every invalid parameter.
   */
  page(request: PageRequest | PageRequestInput = {}, filter: { email?: string } = {}): Page<UserRepresentation> {
    const req = normalizePageRequest(request);
    const email = filter.email;
    if (email !== undefined) {
      // Filtered pages: the matches are few (emails are not unique, but one address has few users).
      const byEmail = this.indexed ? this.index.sortIndex('email') : undefined;
      const matches = (byEmail !== undefined ? byEmail.equal(email, Infinity) : this.index.records().filter((u) => u.email === email)).sort(
        userComparator(req.sort),
      );
      const offset = req.page * req.size;
      return toPage(matches.slice(offset, offset + req.size).map(toUserRepresentation), req, matches.length);
    }
    const records = this.index.records();
    const total = records.length;
    const offset = req.page * req.size;
    const { field, direction } = req.sort;
    let users: readonly StoredUser[];
    const sortIndex = field !== 'id' && this.indexed ? this.index.sortIndex(field) : undefined;
    if (field === 'id') {
      // Natural order: no sorting, just positions in the id index (from the end for desc).
      users =
        direction === 'asc'
          ? records.slice(offset, offset + req.size)
          : records.slice(Math.max(0, total - offset - req.size), Math.max(0, total - offset)).reverse();
    } else if (sortIndex !== undefined) {
      users = sortIndex.page(direction, offset, req.size);
    } else {
      const sortKey = `${field},${direction}`;
      const compare = userComparator(req.sort);
      // A full sort an earlier deep page paid for (no write since) serves every page of its order
      // as a slice; without one, shallow windows use the bounded heap and deep ones build the sort.
      let sorted = this.index.cachedSort(sortKey);
      if (sorted === undefined && Math.min(offset + req.size, total - offset) > this.heapWindowLimit) {
        sorted = this.index.sortedBy(sortKey, compare);
      }
      users =
        sorted === undefined ? selectWindow(() => records, total, offset, req.size, compare) : sorted.slice(offset, offset + req.size);
    }
    return toPage(users.map(toUserRepresentation), req, total);
  }

  private async newRecord(input: UserInput): Promise<StoredUser> {
    const id = await this.store.allocateId(USERS_COLLECTION);
    const now = formatTimestamp(this.clock());
    return storedUser(id, input, { status: 'ACTIVE', roles: ['USER'], createdAt: now, updatedAt: now, rev: 1 });
  }

  /** Read-modify-write of one user under its lock; `next` validates and may throw 400. */
  private update(id: number, next: (current: StoredUser) => UserInput, options: WriteOptions): Promise<AnyUserRepresentation> {
    return this.index.lock.run(String(id), () => retryOnConflict(this.store, () => this.updateOnce(id, next, options)));
  }

  private async updateOnce(id: number, next: (current: StoredUser) => UserInput, options: WriteOptions): Promise<AnyUserRepresentation> {
    const current = this.requireRecord(id);
    // The tag checked is the one the write replaces: the commit's precondition (no lost update).
    options.check?.(this.tagOf(current));
    const expect = this.unchanged(id);
    const input = next(current);
    // A fresh record (the store's is frozen); server-owned fields carried over, never from input.
    const record = storedUser(id, input, {
      status: current.status,
      roles: [...current.roles],
      createdAt: current.createdAt,
      updatedAt: formatTimestamp(this.clock()),
      birthDate: current.birthDate,
      rev: localVersion(current) + 1, // the local stores' version moves with every write
    });
    if (isVariant(current)) {
      record.kind = 'variant';
      record.name = input.firstName + ' ' + input.lastName;
    }
    await this.store.commit([{ op: 'put', collection: USERS_COLLECTION, record }], { expect: [expect] });
    options.written?.(this.tagOf(record));
    return toRepresentation(record);
  }

  /** The entity tag of a stored user: `"<id>-<version>"` (see {@link RecordStore.version}). */
  tagOf(user: StoredUser): EntityTag {
    return new EntityTag(`${user.id}-${this.store.version(USERS_COLLECTION, user.id)}`);
  }

  /** The precondition that user `id` is still at the version just read. */
  private unchanged(id: number): Precondition {
    return { collection: USERS_COLLECTION, id, version: this.store.version(USERS_COLLECTION, id) };
  }

  /** The stored record; @throws NotFoundError when absent. For the XML view and the methods here. */
  requireRecord(id: number): StoredUser {
    const user = this.getRecord(id);
    if (user === undefined) throw new NotFoundError(`User ${id} not found`);
    return user;
  }

  private scan(matches: (user: StoredUser) => boolean): UserRepresentation[] {
    const out: UserRepresentation[] = [];
    for (const user of this.index.records()) {
      if (matches(user)) {
        out.push(toUserRepresentation(user));
        if (out.length >= MAX_LIST_ITEMS) break;
      }
    }
    return out;
  }
}

/** Conditional writes (If-Match): `check` sees the current tag under the user's lock and may throw (412). */
export interface WriteOptions {
  readonly check?: (current: EntityTag) => void;
  /** Called with the new tag once the write is durable. */
  readonly written?: (tag: EntityTag) => void;
}

/** The precondition that user `id` does not exist yet (a freshly allocated id). */
function absent(id: number): Precondition {
  return { collection: USERS_COLLECTION, id, version: 0 };
}

/** Server-owned part of a stored user. */
type ServerOwned = Pick<StoredUser, 'status' | 'roles' | 'createdAt' | 'updatedAt' | 'birthDate' | 'rev'>;

/** Builds a stored user in one key order (stable shape) from validated input only. */
function storedUser(id: number, input: UserInput, owned: ServerOwned): StoredUser {
  const record = { id, email: input.email, firstName: input.firstName, lastName: input.lastName } as StoredUser;
  if (input.age !== undefined) record.age = input.age;
  record.status = owned.status;
  record.roles = owned.roles;
  record.createdAt = owned.createdAt;
  record.updatedAt = owned.updatedAt;
  if (owned.birthDate !== undefined) record.birthDate = owned.birthDate;
  record.rev = owned.rev;
  return record;
}

/** The client-controlled part of a stored user, the base a merge patch applies to. */
function inputOf(user: StoredUser): UserInput {
  const input: UserInput = { email: user.email, firstName: user.firstName, lastName: user.lastName };
  if (user.age !== undefined) input.age = user.age;
  return input;
}
