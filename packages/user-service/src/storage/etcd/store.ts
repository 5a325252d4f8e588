/**
 * {@link EtcdRecordStore}: the adapter of the {@link RecordStore} port that several service
 * instances share, over etcd v3 (https://etcd.io/docs/v3.4/learning/api/).
 *
 * Reads are served from a local copy that a watch keeps current (store-follower.ts); a
 * commit is one etcd transaction (store-txn.ts) and resolves once the watch has applied it,
 * so the writer's next read sees its write; `sync()` (store-sync.ts) is the read barrier for
 * writes of other instances. Key layout: store-keys.ts. Ids: store-ids.ts. Leases:
 * store-leases.ts.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { EtcdClient, type TxnOp, type TxnResult } from './client.js';
import { isLeaseNotFound, storeError, unavailable } from './store-errors.js';
import { EtcdFollower } from './store-follower.js';
import { IdBlocks } from './store-ids.js';
import { EtcdKeys } from './store-keys.js';
import { EtcdLeases } from './store-leases.js';
import { ReadBarrier } from './store-sync.js';
import { failedOf, planCommit, type CommitPlan } from './store-txn.js';
import { encodeBatch } from '../record-codec.js';
import { conflictError, RecordStoreError, type CommitOptions, type Mutation, type RecordLease, type WriteStatus } from '../record-store.js';
import { StateStore } from '../state-store.js';
import type { WriteReporters } from '../write-failure.js';
import { errorCode, type StoreObserver } from '../store-observer.js';

/** Options of {@link EtcdRecordStore}. */
export interface EtcdStoreOptions extends WriteReporters {
  /** Client URLs of the etcd members, e.g. `['http://10.0.0.1:2379']`; at least one. */
  readonly endpoints: readonly string[];
  /** Prefix of every key; instances of one service share it. Default `/user-service`. */
  readonly prefix?: string;
  /** Deadline of each etcd call, failover between members included, ms. Default 2 000. */
  readonly requestTimeoutMs?: number;
  /** TTL of the instance lease, s (renewed every third of it). Default 10. */
  readonly leaseTtlSeconds?: number;
  /** Ids reserved per collection at a time. Default 32. */
  readonly idBlockSize?: number;
  /** Told when the watch breaks (it reconnects by itself) or a stored value is unreadable. */
  readonly onWatchError?: (error: Error) => void;
  /** Told how long each commit and each round trip to etcd took (metrics); none by default. */
  readonly observer?: StoreObserver;
}

const ignore = (): void => undefined;

function integer(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new TypeError(`EtcdRecordStore option ${name} must be an integer >= ${min}, got ${String(value)}`);
  }
  return value;
}

/**
 * Record store shared by several instances through etcd.
 *
 * - `commit()` is ONE transaction: preconditions are compares (`version` n: mod_revision == n;
 *   0 or `exists`: the key's version), puts carry their lease, every commit also puts the
 *   write marker. It resolves once the change is durable in etcd AND applied locally; a refused
 *   precondition rejects with `ERR_STORE_CONFLICT` naming it; no answer before the deadline
 *   rejects with `ERR_STORE_UNAVAILABLE` (outcome unknown). A batch is never visible before etcd
 *   has it, so `rollbacks` stays 0 and `settled()` is undefined.
 * - `version()` is the key's mod_revision; `allocateId()` hands out ids from blocks reserved per
 *   instance (unique across instances, increasing per instance).
 * - `sync()` must be awaited before reads that must see other instances' writes.
 *
 * @example
 * ```ts
 * const store = new EtcdRecordStore({ endpoints: ['http://127.0.0.1:2379'] });
 * await store.open();
 * const id = await store.allocateId('users');
 * await store.commit([{ op: 'put', collection: 'users', record: { id, name: 'Ada' } }], {
 *   expect: [{ collection: 'users', id, version: 0 }],
 * });
 * await store.sync(); // elsewhere: see every write acknowledged so far
 * await store.close();
 * ```
 */
export class EtcdRecordStore extends StateStore {
  override readonly shared = true;
  /** Prefix of every key of this store. */
  readonly prefix: string;
  readonly #timeoutMs: number;
  readonly #reporters: WriteReporters;
  readonly #client: EtcdClient;
  readonly #observer: StoreObserver | undefined;
  readonly #keys: EtcdKeys;
  readonly #follower: EtcdFollower;
  readonly #ids: IdBlocks;
  readonly #leases: EtcdLeases;
  readonly #barrier: ReadBarrier;
  /** Makes marker values unique: this instance's random id, then a sequence number. */
  readonly #tokenBase = randomUUID();
  #seq = 0;
  readonly #inflight = new Set<Promise<void>>();
  #opening: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #failure: RecordStoreError | undefined;
  #failedSince = 0;

  constructor(options: EtcdStoreOptions) {
    super();
    const { prefix = '/user-service', requestTimeoutMs = 2000, leaseTtlSeconds = 10, idBlockSize = 32 } = options;
    if (typeof prefix !== 'string' || !prefix.startsWith('/') || prefix.endsWith('/')) {
      throw new TypeError(
        `EtcdRecordStore option prefix must start with "/" and not end with "/", e.g. /user-service; got ${String(prefix)}`,
      );
    }
    this.prefix = prefix;
    this.#timeoutMs = integer('requestTimeoutMs', requestTimeoutMs, 1);
    integer('leaseTtlSeconds', leaseTtlSeconds, 1);
    integer('idBlockSize', idBlockSize, 1);
    this.#reporters = options;
    this.#observer = options.observer;
    const endpoints = Array.isArray(options.endpoints) ? options.endpoints.length : 1;
    // Each attempt gets a share of the deadline, so that one stalled member leaves time for the others.
    const attemptMs = Math.max(Math.ceil(requestTimeoutMs / endpoints), Math.min(requestTimeoutMs, 500));
    try {
      this.#client = new EtcdClient({
        endpoints: options.endpoints,
        requestTimeoutMs: attemptMs,
        connectTimeoutMs: Math.min(1000, attemptMs),
        deadlineMs: requestTimeoutMs,
        ...(options.observer?.roundTrip === undefined ? {} : { onRoundTrip: options.observer.roundTrip }),
      });
    } catch (err) {
      throw new TypeError(`EtcdRecordStore: ${(err as Error).message}`, { cause: err });
    }
    this.#keys = new EtcdKeys(prefix);
    this.#follower = new EtcdFollower(this.#client, this.#keys, this.state, { requestTimeoutMs, onWatchError: options.onWatchError });
    this.#ids = new IdBlocks(this.#client, this.#keys, { blockSize: idBlockSize, requestTimeoutMs });
    this.#leases = new EtcdLeases(this.#client, {
      ttlSeconds: leaseTtlSeconds,
      requestTimeoutMs,
      onKeepAlive: (error) => (error === undefined ? this.#recovered() : void this.#failed(error)),
    });
    this.#barrier = new ReadBarrier(
      {
        readMarker: (deadlineMs) =>
          this.#client.range(this.#keys.marker, { deadlineMs }).then(
            (read) => {
              this.#recovered();
              return read.kvs[0]?.modRevision ?? 0;
            },
            (err: unknown) => {
              throw this.#failed(storeError('read barrier', err));
            },
          ),
        waitFor: (revision, timeoutMs) => this.#follower.waitFor(revision, timeoutMs),
      },
      requestTimeoutMs,
    );
  }

  /** The instance lease id (decimal): records put with `lease: 'instance'` live as long as it. */
  get instanceId(): string {
    return this.#leases.instanceId;
  }

  /**
   * Grants the instance lease, loads every record and starts the watch. Rejects with
   * `ERR_STORE_UNAVAILABLE` when etcd cannot be reached (the store may be opened again).
   */
  async open(): Promise<void> {
    if (this.phase === 'open') return;
    if (this.phase === 'closing' || this.phase === 'closed') {
      throw new RecordStoreError('ERR_STORE_CLOSED', 'a closed record store cannot be reopened');
    }
    this.#opening ??= this.#open().finally(() => {
      this.#opening = undefined;
    });
    return this.#opening;
  }

  /**
   * One cheap round trip to the cluster (the maintenance status of whichever member answers), for
   * a readiness check: resolves with the revision it reports, rejects (an `EtcdError` naming the
   * cause) when no member answers within `deadlineMs` or `signal` aborts.
   * @example await store.ping({ deadlineMs: 300 });
   */
  async ping(options: { readonly signal?: AbortSignal; readonly deadlineMs?: number } = {}): Promise<number> {
    return (await this.#client.status(options)).revision;
  }

  /** Waits for commits in flight, stops the watch, revokes the instance lease, closes the client. Idempotent. */
  async close(): Promise<void> {
    if (this.phase === 'closed') return;
    this.#closing ??= this.#close();
    return this.#closing;
  }

  override version(collection: string, id: number): number {
    this.assertReadable();
    return this.#follower.version(collection, id);
  }

  /** Resolves once reads reflect every write acknowledged, by any instance, before the call. */
  override sync(): Promise<void> {
    if (this.phase !== 'open') return Promise.reject(this.notWritable());
    return this.#barrier.sync();
  }

  override allocateId(collection: string): Promise<number> {
    if (this.phase !== 'open') return Promise.reject(this.notWritable());
    if (typeof collection !== 'string' || collection.length === 0 || /\p{Cs}/u.test(collection)) {
      return Promise.reject(new RecordStoreError('ERR_STORE_INVALID_MUTATION', 'collection must be a non-empty, well-formed string'));
    }
    return this.#ids.next(collection).catch((err: unknown) => {
      throw this.#failed(storeError('id reservation', err));
    });
  }

  async commit(mutations: Mutation[], options?: CommitOptions): Promise<void> {
    const observe = this.#observer?.commit;
    if (observe === undefined) return this.#commitNow(mutations, options);
    const start = performance.now();
    let error: string | undefined;
    try {
      await this.#commitNow(mutations, options);
    } catch (err) {
      error = errorCode(err);
      throw err;
    } finally {
      try {
        observe((performance.now() - start) / 1000, error);
      } catch {
        // An observer that throws is ignored: metrics must not fail a commit.
      }
    }
  }

  async #commitNow(mutations: Mutation[], options: CommitOptions | undefined): Promise<void> {
    if (this.phase !== 'open') throw this.notWritable();
    const batch = encodeBatch(mutations);
    const plan = planCommit(this.#keys, mutations, batch, options?.expect);
    const task = this.#commit(plan, batch.mutations.length);
    this.#inflight.add(task);
    try {
      await task;
    } finally {
      this.#inflight.delete(task);
    }
  }

  override writeStatus(): WriteStatus {
    const f = this.#failure;
    if (f === undefined) return { writable: true };
    return {
      writable: false,
      code: f.code === 'ERR_STORE_FULL' ? 'ERR_STORE_FULL' : 'ERR_STORE_FAILED',
      reason: f.message.replace(/\s+/g, ' '),
      since: new Date(this.#failedSince).toISOString(),
    };
  }

  async #open(): Promise<void> {
    this.phase = 'opening';
    try {
      await this.#leases.start();
      await this.#follower.load();
    } catch (err) {
      await this.#leases.stop();
      this.phase = 'new';
      throw storeError('open', err);
    }
    this.#follower.start();
    this.phase = 'open';
  }

  async #close(): Promise<void> {
    await this.#opening?.catch(ignore);
    this.phase = 'closing';
    await Promise.allSettled(this.#inflight);
    await this.#follower.stop();
    await this.#leases.stop();
    await this.#client.close();
    this.phase = 'closed';
  }

  async #commit(plan: CommitPlan, mutations: number): Promise<void> {
    const token = `${this.#tokenBase}.${++this.#seq}`;
    this.#follower.expectMarker(token);
    try {
      let result: TxnResult;
      try {
        result = await this.#txn(plan, token, performance.now() + this.#timeoutMs);
      } catch (err) {
        throw this.#failed(storeError('commit', err));
      }
      this.#recovered();
      if (result.succeeded) {
        await this.#follower.waitFor(result.revision, this.#timeoutMs);
      } else {
        const failed = failedOf(this.#keys, plan, result);
        // The client retries a timed-out attempt: if an earlier attempt of THIS commit was
        // applied, the retry is refused by our own write. Its marker token tells them apart.
        await this.#follower.waitFor(result.revision, this.#timeoutMs).catch(ignore);
        if (this.#follower.markerRevision(token) === 0) throw conflictError(failed ?? plan.expect[0]!);
      }
      this.countCommit(mutations);
    } finally {
      this.#follower.forgetMarker(token);
    }
  }

  /** Runs the commit's transaction; once more if etcd no longer knows a lease it names. */
  async #txn(plan: CommitPlan, token: string, deadline: number): Promise<TxnResult> {
    const remaining = (): number => {
      const ms = Math.floor(deadline - performance.now());
      if (ms <= 0) throw unavailable('commit', new Error(`no answer within ${this.#timeoutMs} ms`));
      return ms;
    };
    for (let attempt = 1; ; attempt++) {
      const success: TxnOp[] = [];
      for (const op of plan.ops) {
        success.push(
          op.op === 'delete' ? op : { op: 'put', key: op.key, value: op.value, lease: await this.#leaseId(op.lease, remaining) },
        );
      }
      success.push({ op: 'put', key: this.#keys.marker, value: token });
      try {
        return await this.#client.txn({ compare: plan.compare, success, failure: plan.failure }, { deadlineMs: remaining() });
      } catch (err) {
        if (attempt > 1 || !isLeaseNotFound(err)) throw err;
        await this.#leases.lost();
      }
    }
  }

  async #leaseId(lease: RecordLease | undefined, remaining: () => number): Promise<string | undefined> {
    if (lease === undefined) return undefined;
    if (lease === 'instance') return this.#leases.instanceId;
    return this.#leases.forTtl(lease.ttlSeconds, remaining());
  }

  /** Notes a failed etcd call for `writeStatus()` (once per streak to `onWriteError`); returns `error`. */
  #failed(error: RecordStoreError): RecordStoreError {
    const down = error.code === 'ERR_STORE_UNAVAILABLE' || error.code === 'ERR_STORE_FAILED' || error.code === 'ERR_STORE_FULL';
    if (!down || this.phase !== 'open') return error;
    if (this.#failure === undefined) {
      this.#failedSince = Date.now();
      this.#reporters.onWriteError?.(error);
    }
    this.#failure = error;
    return error;
  }

  /** Notes a successful etcd call: writes work again. */
  #recovered(): void {
    if (this.#failure === undefined) return;
    const since = new Date(this.#failedSince).toISOString();
    this.#failure = undefined;
    this.#reporters.onWriteRecovered?.(`etcd answers again (unreachable or failing since ${since})`);
  }
}
