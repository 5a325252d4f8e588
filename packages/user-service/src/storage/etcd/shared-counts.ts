/**
 * {@link SharedCounts} on etcd: each instance's count of a client in a fixed window is one key,
 * `<prefix>/rl/<windowStart>/<client-key hash>/<instanceId>` holding the decimal count, attached
 * to a lease of that instance and window that outlives two windows (the window itself and the
 * next, in which it still weighs as the previous window), so etcd drops old counts by itself.
 * A publish is one transaction per 128 keys (etcd's default `--max-txn-ops`); a read is one
 * transaction with a prefix range per window, so a sync costs two round trips whatever the traffic.
 * The exchange of one key near its limit is one transaction: this instance's puts of that key, then
 * a prefix range of the key per window.
 */
import { randomUUID } from 'node:crypto';
import type { EtcdClient, TxnOp } from './client.js';
import type { CountWindow, KeyWindow, SharedCounts } from '../shared-counts.js';

/** etcd's default `--max-txn-ops`: the most operations one transaction may hold. */
const MAX_TXN_OPS = 128;

/** Options of {@link EtcdSharedCounts}. */
export interface EtcdSharedCountsOptions {
  readonly client: EtcdClient;
  /** Key prefix of the deployment, the same on every instance, e.g. `user-service`; counts live under `<prefix>/rl/`. */
  readonly prefix: string;
  /** This instance's id, unique among the instances, without `/`; default a random UUID. */
  readonly instanceId?: string;
  /** Deadline of each etcd call; default 2000 ms, so an outage is noticed (and retried) soon. */
  readonly deadlineMs?: number;
}

/**
 * Rate-limit counts shared through etcd (see {@link SharedRateLimiter}).
 * @example
 * const counts = new EtcdSharedCounts({ client: etcd, prefix: 'user-service', instanceId: `${hostname()}-${process.pid}` });
 * const limiter = new SharedRateLimiter({ limit: 600, counts });
 */
export class EtcdSharedCounts implements SharedCounts {
  readonly instanceId: string;
  readonly #client: EtcdClient;
  readonly #base: string;
  readonly #deadlineMs: number;
  /** This instance's lease per window start (granted once, whoever asks first). */
  readonly #leases = new Map<number, Promise<string>>();

  constructor(options: EtcdSharedCountsOptions) {
    const { client, prefix, instanceId = randomUUID(), deadlineMs = 2000 } = options;
    if (typeof prefix !== 'string' || prefix === '') {
      throw new TypeError('EtcdSharedCounts option prefix must be a non-empty string, e.g. "user-service"');
    }
    if (typeof instanceId !== 'string' || instanceId === '' || instanceId.includes('/')) {
      throw new TypeError(`EtcdSharedCounts option instanceId must be a non-empty string without "/", got ${JSON.stringify(instanceId)}`);
    }
    if (!Number.isSafeInteger(deadlineMs) || deadlineMs < 1) {
      throw new RangeError(`EtcdSharedCounts option deadlineMs must be a positive integer, got ${deadlineMs}`);
    }
    this.#client = client;
    this.#base = `${prefix}/rl/`;
    this.instanceId = instanceId;
    this.#deadlineMs = deadlineMs;
  }

  async publish(window: CountWindow, counts: ReadonlyMap<string, number>, signal: AbortSignal): Promise<void> {
    const lease = await this.#lease(window, signal);
    const puts: TxnOp[] = [];
    for (const [hash, count] of counts) puts.push(this.#put(window, hash, count, lease));
    try {
      for (let i = 0; i < puts.length; i += MAX_TXN_OPS) {
        await this.#client.txn({ compare: [], success: puts.slice(i, i + MAX_TXN_OPS) }, { signal, deadlineMs: this.#deadlineMs });
      }
    } catch (error) {
      // The lease may be gone (expired during a long pause): the next publish grants a new one.
      this.#leases.delete(window.start);
      throw error;
    }
  }

  async read(windowStarts: readonly number[], signal: AbortSignal): Promise<Map<string, number>[]> {
    const success = windowStarts.map((start): TxnOp => ({ op: 'range', key: `${this.#base}${start}/`, prefix: true }));
    const { responses } = await this.#client.txn({ compare: [], success }, { signal, deadlineMs: this.#deadlineMs });
    return windowStarts.map((start, i) => {
      const sums = new Map<string, number>();
      const response = responses[i];
      if (response?.op !== 'range') return sums;
      const windowPrefix = `${this.#base}${start}/`;
      for (const { key, value } of response.kvs) {
        const [hash, instance] = key.slice(windowPrefix.length).split('/');
        const count = this.#othersCount(instance, value);
        if (hash !== undefined && count > 0) sums.set(hash, (sums.get(hash) ?? 0) + count);
      }
      return sums;
    });
  }

  async exchange(hash: string, windows: readonly KeyWindow[], signal: AbortSignal): Promise<number[]> {
    const ops: TxnOp[] = [];
    for (const { window, own } of windows) if (own !== undefined) ops.push(this.#put(window, hash, own, await this.#lease(window, signal)));
    const puts = ops.length;
    for (const { window } of windows) ops.push({ op: 'range', key: `${this.#base}${window.start}/${hash}/`, prefix: true });
    const { responses } = await this.#client
      .txn({ compare: [], success: ops }, { signal, deadlineMs: this.#deadlineMs })
      .catch((error: unknown) => {
        // A lease may be gone (expired during a long pause): the next publish grants a new one.
        for (const { window, own } of windows) if (own !== undefined) this.#leases.delete(window.start);
        throw error;
      });
    return windows.map(({ window }, i) => {
      const response = responses[puts + i];
      if (response?.op !== 'range') return 0;
      const keyPrefix = `${this.#base}${window.start}/${hash}/`;
      let sum = 0;
      for (const { key, value } of response.kvs) sum += this.#othersCount(key.slice(keyPrefix.length), value);
      return sum;
    });
  }

  #put(window: CountWindow, hash: string, count: number, lease: string): TxnOp {
    return { op: 'put', key: `${this.#base}${window.start}/${hash}/${this.instanceId}`, value: String(count), lease };
  }

  /** The count another instance stored; 0 for this instance's own and for anything not written by this module. */
  #othersCount(instance: string | undefined, value: string): number {
    if (instance === undefined || instance === '' || instance.includes('/') || instance === this.instanceId) return 0;
    const count = Number(value);
    return Number.isSafeInteger(count) && count >= 0 ? count : 0;
  }

  /** This instance's lease for `window`, granted on first use for two windows and a second. */
  #lease(window: CountWindow, signal: AbortSignal): Promise<string> {
    for (const start of this.#leases.keys()) if (start < window.start - window.lengthMs) this.#leases.delete(start);
    let lease = this.#leases.get(window.start);
    if (lease === undefined) {
      const ttlSeconds = Math.ceil((2 * window.lengthMs) / 1000) + 1;
      lease = this.#client.grantLease(ttlSeconds, { signal, deadlineMs: this.#deadlineMs }).then((granted) => granted.id);
      this.#leases.set(window.start, lease);
      // A failed grant is asked again by the next caller.
      lease.catch(() => {
        if (this.#leases.get(window.start) === lease) this.#leases.delete(window.start);
      });
    }
    return lease;
  }
}
