/**
 * {@link SharedCounts} on etcd: each instance's count of a client in a fixed window is one key,
 * `<prefix>/rl/<windowStart>/<client-key hash>/<instanceId>` holding the decimal count, attached
 * to a lease of that instance and window that outlives two windows (the window itself and the
 * next, in which it still weighs as the previous window), so etcd drops old counts by itself.
 * A publish is one transaction per 128 keys (etcd's default `--max-txn-ops`); a read is one
 * transaction with a prefix range per window, so a sync costs two round trips whatever the traffic.
 */
import { randomUUID } from 'node:crypto';
import type { EtcdClient, TxnOp } from '../storage/etcd/client.js';
import type { CountWindow, SharedCounts } from './rate-limit-shared.js';

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
  /** This instance's lease per window start. */
  readonly #leases = new Map<number, string>();

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
    for (const [hash, count] of counts) {
      puts.push({ op: 'put', key: `${this.#base}${window.start}/${hash}/${this.instanceId}`, value: String(count), lease });
    }
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
        const count = Number(value);
        // Skip this instance's own counts and anything not written by this module.
        if (hash === undefined || instance === undefined || instance === this.instanceId || !Number.isSafeInteger(count) || count < 0)
          continue;
        sums.set(hash, (sums.get(hash) ?? 0) + count);
      }
      return sums;
    });
  }

  /** This instance's lease for `window`, granted on first use for two windows and a second. */
  async #lease(window: CountWindow, signal: AbortSignal): Promise<string> {
    for (const start of this.#leases.keys()) if (start < window.start - window.lengthMs) this.#leases.delete(start);
    let lease = this.#leases.get(window.start);
    if (lease === undefined) {
      const ttlSeconds = Math.ceil((2 * window.lengthMs) / 1000) + 1;
      lease = (await this.#client.grantLease(ttlSeconds, { signal, deadlineMs: this.#deadlineMs })).id;
      this.#leases.set(window.start, lease);
    }
    return lease;
  }
}
