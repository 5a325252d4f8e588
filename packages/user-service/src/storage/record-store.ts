/**
 * The storage PORT of the user service: named collections of JSON records keyed by positive
 * integer ids. Adapters: {@link MemoryRecordStore} (tests, bench baseline) and
 * {@link JournalRecordStore} (append-only journal + snapshots, durable before acknowledging).
 *
 * Ownership rule shared by every adapter: `commit()` stores a JSON-normalised COPY of each record
 * (exactly what `JSON.parse(JSON.stringify(record))` yields, so what you read before a restart is
 * what you read after it) and deep-freezes that copy. Reads return the frozen stored object
 * without copying; mutating it throws a `TypeError` (ES modules run in strict mode).
 *
 * @module
 */

/**
 * A stored record: a plain JSON object whose `id` is a positive safe integer. Domain types used
 * as `T` in `get<T>()`/`values<T>()` must satisfy the index signature: declare them as
 * `interface User extends StoredRecord {...}` or as a `type` alias (a plain interface fails).
 */
export interface StoredRecord {
  id: number;
  [k: string]: unknown;
}

/**
 * How long a put record lives. `{ ttlSeconds }`: the store may drop it once at least that long has
 * passed (etcd: a lease; the local adapters keep it until it is deleted, so its writer also records
 * an expiry and sweeps). `'instance'`: it lives as long as this store instance (etcd: bound to the
 * instance's lease, gone within the lease TTL after the process dies; local adapters, which are
 * the only instance, treat it as a plain put).
 */
export type RecordLease = { readonly ttlSeconds: number } | 'instance';

/** One change inside an atomic batch given to {@link RecordStore.commit}. */
export type Mutation =
  { op: 'put'; collection: string; record: StoredRecord; lease?: RecordLease } | { op: 'delete'; collection: string; id: number };

/**
 * A condition checked inside a commit, atomically with its batch (etcd: a compare of the same
 * transaction; local adapters: checked in the same synchronous step that applies the batch).
 * `version`: the record's {@link RecordStore.version} must equal it (0: the record must not exist).
 * `exists`: the record must exist, whatever its version.
 */
export type Precondition =
  | { readonly collection: string; readonly id: number; readonly version: number }
  | { readonly collection: string; readonly id: number; readonly exists: true };

/** Options of {@link RecordStore.commit}. */
export interface CommitOptions {
  /** Every one must hold, else nothing is applied and the commit rejects with `ERR_STORE_CONFLICT`. */
  readonly expect?: readonly Precondition[];
}

/** Told about every applied change of a record, by this instance or (shared stores) another one. */
export type ChangeListener = (collection: string, id: number) => void;

/**
 * A record store. Reads are synchronous and served from memory; writes go through `commit()`.
 *
 * @example
 * ```ts
 * const store = createRecordStore('journal', './data');
 * await store.open();
 * const id = await store.allocateId('users');
 * await store.commit([{ op: 'put', collection: 'users', record: { id, name: 'Ada' } }]);
 * store.get('users', id); // { id, name: 'Ada' } (frozen)
 * await store.close();
 * ```
 */
export interface RecordStore {
  /** Loads or recovers state. Every other method throws `ERR_STORE_NOT_OPEN` before it resolves. */
  open(): Promise<void>;
  /** Flushes pending writes, does a final fsync and releases file descriptors. Idempotent. */
  close(): Promise<void>;
  /**
   * Returns a new id of `collection`: unique and never reused (not after a delete, not after a
   * restart, not by another instance of a shared store). Local adapters hand out strictly
   * increasing ids, and a put with a larger caller-chosen id moves the counter past it; a shared
   * store reserves blocks of ids per instance, so ids increase per instance.
   */
  allocateId(collection: string): Promise<number>;
  /**
   * The record's version, 0 when it does not exist; a {@link Precondition} compares it. Local
   * adapters: the record's own `rev` field when it is a positive integer (writers that want
   * version checks increment it), else 1. etcd: the key's `mod_revision`, new with every write.
   */
  version(collection: string, id: number): number;
  /** Several instances may share this store (etcd): reads go through {@link RecordStore.sync}. */
  readonly shared: boolean;
  /**
   * The read barrier of a shared store: resolves once reads of this instance reflect every write
   * acknowledged (by any instance) before the call; `undefined` when there is nothing to wait for
   * (local adapters, where every acknowledged write is already in memory).
   */
  sync(): Promise<void> | undefined;
  /**
   * Calls `listener` after every applied change of a record (a put, a delete, or a batch taken
   * back), whoever wrote it, so that indexes over the records stay current. Returns the function
   * that stops it.
   */
  onChange(listener: ChangeListener): () => void;
  /** The stored (frozen) record, or `undefined`. */
  get<T extends StoredRecord>(collection: string, id: number): T | undefined;
  /**
   * The stored (frozen) records in ascending id order. A live view: commits made while the
   * iteration is suspended may or may not be seen; take `Array.from()` for a stable list.
   */
  values<T extends StoredRecord>(collection: string): IterableIterator<T>;
  /** Number of records in `collection` (0 for an unknown collection). */
  size(collection: string): number;
  /**
   * Applies `mutations` atomically, in order: all or nothing. Readers never see a half-applied
   * batch. Both adapters make the batch visible synchronously inside the call (so a synchronous
   * check-then-commit cannot race another request); the promise resolves once it is also
   * durable for that adapter (journal: fsynced).
   * Deleting a missing id is a no-op. Rejects with `ERR_STORE_INVALID_MUTATION` (nothing applied)
   * for a malformed batch, with `ERR_STORE_CONFLICT` (nothing applied) when a precondition of
   * `options.expect` does not hold. If the batch cannot be made durable it is taken back from memory
   * before the promise rejects (`ERR_STORE_FULL` / `ERR_STORE_FAILED`), and so is every batch
   * committed after it that was not yet durable; {@link RecordStore.rollbacks} then grows.
   */
  commit(mutations: Mutation[], options?: CommitOptions): Promise<void>;
  /**
   * The read barrier. `undefined` when every batch applied so far is durable; else a promise,
   * true once every batch applied before the call is durable, false if one of them was taken
   * back. Whoever answers a client from memory awaits it first, so that no client ever sees a
   * write that is not durable (commit-wait).
   */
  settled(): Promise<boolean> | undefined;
  /**
   * How many times batches were taken back from memory since `open()`. A reader compares the
   * value from before its reads with the value after {@link RecordStore.settled}: a change means
   * what it read may have been taken back.
   */
  readonly rollbacks: number;
  /** Whether writes currently work: after a failed write, its reason until a write succeeds again. */
  writeStatus(): WriteStatus;
}

/** What {@link RecordStore.writeStatus} reports. */
export type WriteStatus =
  | { readonly writable: true }
  | {
      readonly writable: false;
      /** `ERR_STORE_FULL` (disk or quota full) or `ERR_STORE_FAILED` (another I/O error). */
      readonly code: RecordStoreErrorCode;
      /** One line naming the errno, e.g. `journal write failed: ENOSPC: no space left on device, write`. */
      readonly reason: string;
      /** ISO 8601 time of the first failure of the current streak. */
      readonly since: string;
    };

/** Counters exposed by the adapters (`store.stats`), for tests and benchmarks. */
export interface RecordStoreStats {
  /** Batches acknowledged by `commit()`. */
  commits: number;
  /** Mutations acknowledged by `commit()`. */
  mutations: number;
  /** Journal `write` calls (one per group commit). Always 0 for the memory store. */
  writes: number;
  /** fsync/fdatasync calls on journal, snapshot and directory files. */
  fsyncs: number;
  /** Snapshots completed (renamed into place). */
  snapshots: number;
  /** Journal batches replayed by the last `open()`. */
  replayedBatches: number;
  /** Bytes of a torn or corrupt journal tail cut off by the last `open()`. */
  truncatedBytes: number;
}

/** Stable error codes of {@link RecordStoreError}. */
export type RecordStoreErrorCode =
  /** A method other than `open()` was called before `open()` resolved. */
  | 'ERR_STORE_NOT_OPEN'
  /** The store was closed (or is closing). */
  | 'ERR_STORE_CLOSED'
  /** A batch failed validation; nothing was applied. */
  | 'ERR_STORE_INVALID_MUTATION'
  /** A journal write or fsync failed (an errno other than a full disk); the batch was taken back. */
  | 'ERR_STORE_FAILED'
  /** A journal write failed for lack of space (ENOSPC, EDQUOT); the batch was taken back. */
  | 'ERR_STORE_FULL'
  /** The files on disk are damaged in a way that could lose acknowledged writes. */
  | 'ERR_STORE_CORRUPT'
  /** Another store in this process already has the directory open. */
  | 'ERR_STORE_LOCKED'
  /** A precondition of the commit did not hold; nothing was applied. */
  | 'ERR_STORE_CONFLICT'
  /**
   * A shared store could not be reached within its deadline. For a commit the outcome is
   * unknown: it may have been applied (a retry with the same Idempotency-Key is safe).
   */
  | 'ERR_STORE_UNAVAILABLE'
  /**
   * A background snapshot (or the journal rotation before it) failed. Never thrown: it is only
   * reported (`onSnapshotError`), because the journal still holds every acknowledged write.
   */
  | 'ERR_STORE_SNAPSHOT_FAILED';

/** The one error class of the storage layer; `code` is stable, `message` is for humans. */
export class RecordStoreError extends Error {
  override readonly name = 'RecordStoreError';
  readonly code: RecordStoreErrorCode;
  /** For `ERR_STORE_CONFLICT`: the precondition that did not hold. */
  readonly failed: Precondition | undefined;

  constructor(code: RecordStoreErrorCode, message: string, options?: { cause?: unknown; failed?: Precondition }) {
    super(message, options);
    this.code = code;
    this.failed = options?.failed;
  }
}

/** The version a local adapter reports for `record` (see {@link RecordStore.version}). */
export function localVersion(record: StoredRecord | undefined): number {
  if (record === undefined) return 0;
  const rev = record.rev;
  return typeof rev === 'number' && Number.isSafeInteger(rev) && rev > 0 ? rev : 1;
}

/** The first precondition of `expect` that `version` says does not hold, if any. */
export function failedPrecondition(
  expect: readonly Precondition[] | undefined,
  version: (collection: string, id: number) => number,
): Precondition | undefined {
  if (expect === undefined) return undefined;
  for (const p of expect) {
    const current = version(p.collection, p.id);
    if ('exists' in p ? current === 0 : current !== p.version) return p;
  }
  return undefined;
}

/** The `ERR_STORE_CONFLICT` error for precondition `p`. */
export function conflictError(p: Precondition): RecordStoreError {
  const wanted = 'exists' in p ? 'to exist' : p.version === 0 ? 'to be absent' : `at version ${p.version}`;
  return new RecordStoreError('ERR_STORE_CONFLICT', `precondition failed: ${p.collection}/${p.id} was expected ${wanted}`, { failed: p });
}

/** A fresh, zeroed {@link RecordStoreStats}. */
export function emptyStats(): RecordStoreStats {
  return {
    commits: 0,
    mutations: 0,
    writes: 0,
    fsyncs: 0,
    snapshots: 0,
    replayedBatches: 0,
    truncatedBytes: 0,
  };
}
