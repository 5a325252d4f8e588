/**
 * Id allocation of {@link EtcdRecordStore}: each instance reserves blocks of ids per collection
 * with a compare-and-swap on the collection's counter key and hands them out from memory.
 *
 * A reservation takes `max(blockSize, callers waiting)` ids, so one transaction serves every
 * caller of the instance that waits at that moment; callers arriving meanwhile wait for the next
 * one. With `blockSize` 1 no id is held back: ids then increase across all instances in the order
 * their reservations commit, and an id allocated after another one's create was acknowledged is
 * larger, whichever instance allocates it. The counter's last known value and revision are kept,
 * so a reservation is one round trip unless another instance moved the counter meanwhile.
 *
 * Why a block is never handed out twice: a reservation reads the counter `n` at mod_revision `r`
 * and succeeds only if the counter is still at `r` (absent: `version == 0`), moving it to
 * `n + blockSize` in the same transaction. Of two reservations that read the same `(n, r)` at
 * most one succeeds (the first changes the mod_revision), so the blocks `[n, n + blockSize)` of
 * successful reservations are disjoint; the counter only grows, so each instance's blocks (and
 * ids) increase. A transaction retried after a timeout whose first attempt was applied fails its
 * compare and reserves the next block: the first block is then skipped, never handed out.
 *
 * @module
 */
import type { EtcdClient } from './client.js';
import type { EtcdKeys } from './store-keys.js';
import { storeError, unavailable } from './store-errors.js';
import { RecordStoreError } from '../record-store.js';

interface Block {
  next: number;
  readonly end: number;
}

/** An id counter as read or written: its value and the revision that wrote it. */
interface Counter {
  readonly value: string;
  readonly modRevision: number;
}

/**
 * Hands out ids from reserved blocks.
 * @example
 * const ids = new IdBlocks(client, keys, { blockSize: 32, requestTimeoutMs: 2000 });
 * const id = await ids.next('users');
 */
export class IdBlocks {
  readonly #client: EtcdClient;
  readonly #keys: EtcdKeys;
  readonly #blockSize: number;
  readonly #timeoutMs: number;
  readonly #blocks = new Map<string, Block>();
  /** The reservation in flight per collection. */
  readonly #reserving = new Map<string, Promise<void>>();
  /** Callers waiting for the next reservation, per collection. */
  readonly #waiting = new Map<string, Array<{ resolve: (id: number) => void; reject: (error: unknown) => void }>>();
  /** The counter as this instance last saw it (absent from the map: unknown, read it first). */
  readonly #counters = new Map<string, Counter | undefined>();

  constructor(client: EtcdClient, keys: EtcdKeys, options: { readonly blockSize: number; readonly requestTimeoutMs: number }) {
    this.#client = client;
    this.#keys = keys;
    this.#blockSize = options.blockSize;
    this.#timeoutMs = options.requestTimeoutMs;
  }

  /** The next id of `collection`, reserving a new block when the current one is used up. */
  next(collection: string): Promise<number> {
    const block = this.#blocks.get(collection);
    if (block !== undefined && block.next < block.end) return Promise.resolve(block.next++);
    return new Promise<number>((resolve, reject) => {
      let waiting = this.#waiting.get(collection);
      if (waiting === undefined) this.#waiting.set(collection, (waiting = []));
      waiting.push({ resolve, reject });
      if (!this.#reserving.has(collection)) this.#serve(collection);
    });
  }

  /** Reserves for every caller waiting on `collection` now, then again while callers keep coming. */
  #serve(collection: string): void {
    const waiters = this.#waiting.get(collection) ?? [];
    this.#waiting.delete(collection);
    if (waiters.length === 0) return;
    const reservation = this.#reserve(collection, Math.max(this.#blockSize, waiters.length), waiters.length).then(
      (first) => {
        waiters.forEach((waiter, i) => waiter.resolve(first + i));
      },
      (error: unknown) => {
        for (const waiter of waiters) waiter.reject(error);
      },
    );
    this.#reserving.set(
      collection,
      reservation.finally(() => {
        this.#reserving.delete(collection);
        // Ids left in the block go to callers that came meanwhile; the rest share one reservation.
        const queued = this.#waiting.get(collection) ?? [];
        const block = this.#blocks.get(collection);
        while (queued.length > 0 && block !== undefined && block.next < block.end) queued.shift()!.resolve(block.next++);
        if (queued.length > 0) this.#serve(collection);
      }),
    );
  }

  /** Reserves `count` ids; resolves with the first, keeps those beyond the `taken` first as the block. */
  async #reserve(collection: string, count: number, taken: number): Promise<number> {
    const key = this.#keys.counter(collection);
    const deadline = performance.now() + this.#timeoutMs;
    const remaining = (): number => {
      const ms = Math.floor(deadline - performance.now());
      if (ms <= 0) throw unavailable('an id reservation', new Error(`no block of ids reserved within ${this.#timeoutMs} ms`));
      return ms;
    };
    try {
      let current = this.#counters.has(collection)
        ? this.#counters.get(collection)
        : (await this.#client.range(key, { deadlineMs: remaining() })).kvs[0];
      for (;;) {
        const next = counterValue(key, current);
        const value = String(next + count);
        const result = await this.#client.txn(
          {
            compare: [
              current === undefined
                ? { key, target: 'version', result: 'EQUAL', value: 0 }
                : { key, target: 'mod_revision', result: 'EQUAL', value: current.modRevision },
            ],
            success: [{ op: 'put', key, value }],
            failure: [{ op: 'range', key }],
          },
          { deadlineMs: remaining() },
        );
        if (result.succeeded) {
          this.#counters.set(collection, { value, modRevision: result.revision });
          this.#blocks.set(collection, { next: next + taken, end: next + count });
          return next;
        }
        // Another instance reserved meanwhile: try again from the counter as it is now.
        const read = result.responses[0];
        current = read?.op === 'range' ? read.kvs[0] : undefined;
        this.#counters.set(collection, current);
      }
    } catch (err) {
      this.#counters.delete(collection); // unknown after a failure: read it again next time
      throw storeError('id reservation', err);
    }
  }
}

/** The counter's value: the next id not yet reserved (1 when absent). */
function counterValue(key: string, kv: Counter | undefined): number {
  if (kv === undefined) return 1;
  const n = /^[1-9][0-9]*$/.test(kv.value) ? Number(kv.value) : NaN;
  if (!Number.isSafeInteger(n)) {
    throw new RecordStoreError('ERR_STORE_CORRUPT', `etcd id counter ${key} holds ${JSON.stringify(kv.value)}, not a positive integer`);
  }
  return n;
}
