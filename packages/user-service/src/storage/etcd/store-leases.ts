/**
 * Leases of {@link EtcdRecordStore}: the instance lease (kept alive every third of its TTL,
 * revoked on close, so records put with `lease: 'instance'` go with the instance) and shared
 * leases for records put with `{ ttlSeconds }`.
 *
 * A TTL lease is granted for `ttl + 60` s and reused by every put with that TTL for 60 s, so a
 * record lives between `ttl` and `ttl + 120` s (etcd may add up to its election timeout) while a
 * busy writer grants one lease per TTL and minute instead of one per put.
 *
 * @module
 */
import type { EtcdClient, Lease } from './client.js';
import { isLeaseNotFound, storeError } from './store-errors.js';
import { RecordStoreError } from '../record-store.js';

/** How long a TTL lease is handed to new puts, and how much longer than the TTL it is granted. */
const TTL_REUSE_MS = 60_000;

/** Options of {@link EtcdLeases}. */
export interface LeaseOptions {
  readonly ttlSeconds: number;
  readonly requestTimeoutMs: number;
  /** Every keep-alive outcome: an error (etcd unreachable, or the lease lost) or `undefined` (renewed). */
  readonly onKeepAlive: (error: RecordStoreError | undefined) => void;
}

interface TtlLease {
  readonly id: Promise<string>;
  readonly grantedAt: number;
}

/**
 * The leases of one store instance.
 * @example
 * const leases = new EtcdLeases(client, { ttlSeconds: 10, requestTimeoutMs: 2000, onKeepAlive: console.log });
 * await leases.start();
 * const lease = await leases.forTtl(300);
 */
export class EtcdLeases {
  readonly #client: EtcdClient;
  readonly #options: LeaseOptions;
  #instance: Lease | undefined;
  #timer: NodeJS.Timeout | undefined;
  #renewing: Promise<void> | undefined;
  readonly #ttl = new Map<number, TtlLease>();

  constructor(client: EtcdClient, options: LeaseOptions) {
    this.#client = client;
    this.#options = options;
  }

  /** The instance lease id (decimal); empty before {@link start}. */
  get instanceId(): string {
    return this.#instance?.id ?? '';
  }

  /** Grants the instance lease and starts keeping it alive. */
  async start(): Promise<void> {
    const lease = await this.#client.grantLease(this.#options.ttlSeconds, { deadlineMs: this.#options.requestTimeoutMs });
    this.#instance = lease;
    // etcd may raise a TTL below its minimum: renew at a third of what it granted.
    this.#timer = setInterval(() => void this.#renew(), Math.max(100, Math.floor((lease.ttl * 1000) / 3)));
    this.#timer.unref();
  }

  /**
   * The lease for puts with `ttlSeconds`: granted once for `ttlSeconds + 60` s and reused for 60 s.
   * `deadlineMs` bounds a grant.
   */
  forTtl(ttlSeconds: number, deadlineMs: number): Promise<string> {
    const cached = this.#ttl.get(ttlSeconds);
    if (cached !== undefined && performance.now() - cached.grantedAt < TTL_REUSE_MS) return cached.id;
    const id = this.#client.grantLease(ttlSeconds + TTL_REUSE_MS / 1000, { deadlineMs }).then(
      (lease) => lease.id,
      (err: unknown) => {
        this.#ttl.delete(ttlSeconds);
        throw storeError('lease grant', err);
      },
    );
    this.#ttl.set(ttlSeconds, { id, grantedAt: performance.now() });
    return id;
  }

  /**
   * Forgets cached leases after etcd said one named in a request does not exist; the instance
   * lease is replaced by a new one (its records are gone: etcd deleted them with the lease).
   */
  async lost(): Promise<void> {
    this.#ttl.clear();
    if (this.#instance !== undefined) {
      await this.#client.keepAlive(this.#instance.id, { deadlineMs: this.#options.requestTimeoutMs }).catch(async (err: unknown) => {
        if (isLeaseNotFound(err)) await this.#replaceInstance();
      });
    }
  }

  /** Stops the keep-alives and revokes the instance lease (best effort, bounded). */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#renewing;
    const lease = this.#instance;
    if (lease === undefined) return;
    await this.#client.revokeLease(lease.id, { deadlineMs: this.#options.requestTimeoutMs }).catch(() => undefined);
  }

  #renew(): Promise<void> {
    this.#renewing ??= this.#keepAlive().finally(() => {
      this.#renewing = undefined;
    });
    return this.#renewing;
  }

  async #keepAlive(): Promise<void> {
    const lease = this.#instance;
    if (lease === undefined || this.#timer === undefined) return;
    try {
      await this.#client.keepAlive(lease.id, { deadlineMs: this.#options.requestTimeoutMs });
      this.#options.onKeepAlive(undefined);
    } catch (err) {
      if (!isLeaseNotFound(err)) {
        this.#options.onKeepAlive(storeError('lease keep-alive', err));
        return;
      }
      this.#options.onKeepAlive(
        new RecordStoreError('ERR_STORE_FAILED', `instance lease ${lease.id} expired: etcd deleted the records put with lease 'instance'`, {
          cause: err,
        }),
      );
      await this.#replaceInstance().catch((e: unknown) => this.#options.onKeepAlive(storeError('lease grant', e)));
    }
  }

  async #replaceInstance(): Promise<void> {
    if (this.#timer === undefined) return; // stopped
    this.#instance = await this.#client.grantLease(this.#options.ttlSeconds, { deadlineMs: this.#options.requestTimeoutMs });
  }
}
