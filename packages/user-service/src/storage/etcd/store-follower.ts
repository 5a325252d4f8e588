/**
 * The local copy of an {@link EtcdRecordStore}'s records, kept by following etcd: a load of
 * every record at one revision, then a watch from the next revision. The watch is the only writer
 * of the local state, so every instance applies every write (its own included) in etcd's
 * revision order, one watch response (never a transaction split in two) per synchronous step.
 *
 * @module
 */
import { setTimeout as delay } from 'node:timers/promises';
import { EtcdError, type EtcdClient, type KeyValue, type WatchEvent } from './client.js';
import type { EtcdKeys } from './store-keys.js';
import { isCompacted, storeError, unavailable } from './store-errors.js';
import { deepFreeze } from '../record-codec.js';
import type { RecordState } from '../record-state.js';
import { RecordStoreError, type Mutation, type StoredRecord } from '../record-store.js';

/** Options of {@link EtcdFollower}. */
export interface FollowerOptions {
  /** Deadline of each etcd call, and how long {@link EtcdFollower.waitFor} waits. */
  readonly requestTimeoutMs: number;
  /** Told about watch failures (it reconnects by itself) and records it could not read. */
  readonly onWatchError?: (error: Error) => void;
}

/** Every record under the prefix as of one revision. */
interface Snapshot {
  readonly revision: number;
  readonly kvs: readonly KeyValue[];
}

interface Waiter {
  readonly revision: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

/** Keys per page of the initial load (halved while an answer is too large). */
const PAGE_SIZE = 1000;
/** Loads restarted because the pinned revision was compacted meanwhile, before giving up. */
const LOAD_ATTEMPTS = 5;

/**
 * Follows the records under a prefix into a {@link RecordState}.
 * @example
 * const follower = new EtcdFollower(client, keys, state, { requestTimeoutMs: 2000 });
 * await follower.load();
 * follower.start();
 * await follower.waitFor(txn.revision, 2000); // the write is now visible locally
 */
export class EtcdFollower {
  readonly #client: EtcdClient;
  readonly #keys: EtcdKeys;
  readonly #state: RecordState;
  readonly #options: FollowerOptions;
  /** Every event up to this revision is applied. */
  #applied = 0;
  /** mod_revision of every record key held locally. */
  #versions = new Map<string, Map<number, number>>();
  #waiters: Waiter[] = [];
  /** Commit tokens awaited on the marker key, with the revision they were seen at (0: not yet). */
  readonly #markers = new Map<string, number>();
  readonly #stop = new AbortController();
  /** Ends the current watch stream only (the loop then reconnects). */
  #stream: AbortController | undefined;
  #running: Promise<void> | undefined;
  #lagTimer: NodeJS.Timeout | undefined;
  #lagMark = 0;

  constructor(client: EtcdClient, keys: EtcdKeys, state: RecordState, options: FollowerOptions) {
    this.#client = client;
    this.#keys = keys;
    this.#state = state;
    this.#options = options;
  }

  /** The revision up to which every change is applied locally. */
  get appliedRevision(): number {
    return this.#applied;
  }

  /** The key's mod_revision as applied locally; 0 when the record does not exist. */
  version(collection: string, id: number): number {
    return this.#versions.get(collection)?.get(id) ?? 0;
  }

  /** Loads every record, in pages pinned at one revision, and applies them. */
  async load(): Promise<void> {
    this.#replace(await this.#snapshot());
  }

  /** Starts following changes after the loaded revision. */
  start(): void {
    this.#running = this.#run();
  }

  /** Stops the watch and rejects every waiter with `ERR_STORE_CLOSED`. Idempotent. */
  async stop(): Promise<void> {
    this.#stop.abort();
    clearInterval(this.#lagTimer);
    this.#lagTimer = undefined;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) {
      clearTimeout(w.timer);
      w.reject(new RecordStoreError('ERR_STORE_CLOSED', 'record store is closed'));
    }
    await this.#running;
  }

  /**
   * Resolves once every change up to `revision` is applied locally; rejects with
   * `ERR_STORE_UNAVAILABLE` after `timeoutMs`, `ERR_STORE_CLOSED` on {@link stop}.
   */
  waitFor(revision: number, timeoutMs: number): Promise<void> {
    if (revision <= this.#applied) return Promise.resolve();
    if (this.#stop.signal.aborted) return Promise.reject(new RecordStoreError('ERR_STORE_CLOSED', 'record store is closed'));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { revision, resolve, reject };
      waiter.timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(unavailable('a read', new Error(`the watch did not reach revision ${revision} within ${timeoutMs} ms`)));
      }, timeoutMs);
      this.#waiters.push(waiter);
      this.#watchLag();
    });
  }

  /** Starts noting when the marker key is put with `token` (see {@link markerRevision}). */
  expectMarker(token: string): void {
    this.#markers.set(token, 0);
  }

  /** The revision at which the marker was put with `token`, 0 if not seen (yet). */
  markerRevision(token: string): number {
    return this.#markers.get(token) ?? 0;
  }

  /** Stops noting `token`. */
  forgetMarker(token: string): void {
    this.#markers.delete(token);
  }

  async #run(): Promise<void> {
    const stop = this.#stop.signal;
    let failures = 0;
    while (!stop.aborted) {
      const stream = new AbortController();
      this.#stream = stream;
      try {
        const signal = AbortSignal.any([stop, stream.signal]);
        for await (const events of this.#client.watchResponses(this.#keys.all, { startRevision: this.#applied + 1, signal })) {
          failures = 0;
          this.#apply(events);
        }
        continue; // ended by `stream` (a lag restart) or by stop()
      } catch (err) {
        if (stop.aborted) break;
        if (!isCompacted(err) && !(err instanceof EtcdError && err.code === 'RESPONSE_TOO_LARGE')) this.#report(storeError('watch', err));
        else {
          // What the watch missed is gone, or comes in one answer larger than the client reads
          // (etcd sends up to 1 000 missed revisions at once): read everything again in pages.
          try {
            this.#replace(await this.#snapshot());
            failures = 0;
            continue;
          } catch (reloadError) {
            if (stop.aborted) break;
            this.#report(storeError('reload of every record', reloadError));
          }
        }
      }
      try {
        await delay(Math.min(1000, 50 * 2 ** failures++), undefined, { signal: stop });
      } catch {
        break; // stopped
      }
    }
  }

  /**
   * Every record key as of one revision, read in pages pinned at the first page's revision so
   * the pages fit together. Starts again if that revision is compacted meanwhile.
   */
  async #snapshot(): Promise<Snapshot> {
    const { requestTimeoutMs: deadlineMs } = this.#options;
    const signal = this.#stop.signal;
    for (let attempt = 1; ; attempt++) {
      let revision = 0;
      let limit = PAGE_SIZE;
      let from = this.#keys.records;
      const kvs: KeyValue[] = [];
      try {
        for (;;) {
          const page = await this.#client
            .range(from, { end: this.#keys.recordsEnd, limit, revision, deadlineMs, signal })
            .catch((err: unknown) => {
              if (err instanceof EtcdError && err.code === 'RESPONSE_TOO_LARGE' && limit > 1) return undefined;
              throw err;
            });
          if (page === undefined) {
            limit = Math.ceil(limit / 2);
            continue;
          }
          if (revision === 0) revision = page.revision;
          for (const kv of page.kvs) kvs.push(kv);
          const last = page.kvs.at(-1);
          if (!page.more || last === undefined) return { revision, kvs };
          from = `${last.key}\0`;
        }
      } catch (err) {
        if (!isCompacted(err) || attempt >= LOAD_ATTEMPTS) throw err;
      }
    }
  }

  /** Makes the local state equal `snapshot`: a change for every key whose revision differs. */
  #replace(snapshot: Snapshot): void {
    const fresh = new Map<string, Map<number, number>>();
    const mutations: Mutation[] = [];
    for (const kv of snapshot.kvs) {
      const ref = this.#keys.parseRecord(kv.key);
      if (ref === undefined) continue;
      const known = this.version(ref.collection, ref.id);
      const m = known === kv.modRevision ? undefined : this.#decode(ref, kv.value);
      if (m?.op === 'delete') continue; // unreadable: not held locally
      let ids = fresh.get(ref.collection);
      if (ids === undefined) fresh.set(ref.collection, (ids = new Map()));
      ids.set(ref.id, kv.modRevision);
      if (m !== undefined) mutations.push(m);
    }
    for (const [collection, ids] of this.#versions) {
      for (const id of ids.keys()) if (fresh.get(collection)?.has(id) !== true) mutations.push({ op: 'delete', collection, id });
    }
    this.#versions = fresh;
    this.#commit(mutations, snapshot.revision);
  }

  /** Applies the events of one watch response in one synchronous step. */
  #apply(events: readonly WatchEvent[]): void {
    const mutations: Mutation[] = [];
    let last = this.#applied;
    for (const event of events) {
      if (event.modRevision <= this.#applied) continue; // already in a reloaded snapshot
      last = Math.max(last, event.modRevision);
      if (event.key === this.#keys.marker) {
        if (event.type === 'put' && this.#markers.has(event.value)) this.#markers.set(event.value, event.modRevision);
        continue;
      }
      const ref = this.#keys.parseRecord(event.key);
      if (ref === undefined) continue; // id counters
      const m: Mutation = event.type === 'delete' ? { op: 'delete', ...ref } : this.#decode(ref, event.value);
      let ids = this.#versions.get(ref.collection);
      if (ids === undefined) this.#versions.set(ref.collection, (ids = new Map()));
      if (m.op === 'put') ids.set(ref.id, event.modRevision);
      else ids.delete(ref.id);
      mutations.push(m);
    }
    this.#commit(mutations, last);
  }

  /** Applies `mutations` (versions already updated), then marks `revision` as applied. */
  #commit(mutations: Mutation[], revision: number): void {
    try {
      if (mutations.length > 0) this.#state.apply(mutations);
    } catch (err) {
      // A change listener threw: the state is applied, and the watch must go on.
      this.#report(err instanceof Error ? err : new Error(String(err)));
    }
    if (revision <= this.#applied) return;
    this.#applied = revision;
    if (this.#waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const w of this.#waiters) {
      if (w.revision > revision) still.push(w);
      else {
        clearTimeout(w.timer);
        w.resolve();
      }
    }
    this.#waiters = still;
  }

  /** The put of a record key's value; a value that is not that record is reported and dropped. */
  #decode(ref: { collection: string; id: number }, value: string): Mutation {
    try {
      const record = JSON.parse(value) as unknown;
      if (typeof record === 'object' && record !== null && !Array.isArray(record) && (record as StoredRecord).id === ref.id) {
        return { op: 'put', collection: ref.collection, record: deepFreeze(record as StoredRecord) };
      }
    } catch {
      // reported below
    }
    const key = this.#keys.record(ref.collection, ref.id);
    this.#report(new RecordStoreError('ERR_STORE_CORRUPT', `etcd key ${key} does not hold a JSON record with id ${ref.id}; ignored`));
    return { op: 'delete', collection: ref.collection, id: ref.id };
  }

  /**
   * While reads wait, checks every quarter deadline that the watch moves; a stream that does not
   * (a member stalled without closing the connection) is ended so that the loop reconnects.
   */
  #watchLag(): void {
    if (this.#lagTimer !== undefined) return;
    this.#lagMark = this.#applied;
    this.#lagTimer = setInterval(
      () => {
        if (this.#waiters.length === 0) {
          clearInterval(this.#lagTimer);
          this.#lagTimer = undefined;
        } else if (this.#applied === this.#lagMark) {
          this.#report(unavailable('the watch', new Error(`no progress past revision ${this.#applied} while reads wait; reconnecting`)));
          this.#stream?.abort();
        }
        this.#lagMark = this.#applied;
      },
      Math.max(50, Math.floor(this.#options.requestTimeoutMs / 4)),
    );
    this.#lagTimer.unref();
  }

  #report(error: Error): void {
    try {
      this.#options.onWatchError?.(error);
    } catch {
      // a failing reporter must not stop the watch
    }
  }
}
