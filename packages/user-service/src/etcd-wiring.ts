/**
 * What `STORAGE=etcd` adds to the service: the shared record store, and rate limits counted
 * across the instances. Loaded by server.ts only in that mode, so a journal deployment never
 * loads the etcd client.
 */
import type { AppConfig } from './domain/config/app-config.js';
import { EtcdSharedCounts } from './storage/etcd/shared-counts.js';
import { SharedRateLimiter } from './domain/limits/rate-limit-shared.js';
import { SharedRateLimitStore } from './domain/limits/shared-rate-limit-store.js';
import { EtcdClient } from './storage/etcd/client.js';
import { EtcdRecordStore } from './storage/etcd/store.js';
import { FailedAuthLimiter, type HealthCheck } from '@jaxrs-node/pipeline';
import type { RecordStore } from './storage/record-store.js';
import type { WriteReporters } from './storage/write-failure.js';
import type { StoreObserver } from './storage/store-observer.js';

/**
 * The record store on the configured cluster, not yet opened. Ids are reserved one
 * reservation per wave of concurrent creates (`idBlockSize: 1`), so they increase across every
 * instance in creation order, as they do on the journal: a client that creates A and then B sees
 * B's id above A's whichever instances answered.
 */
export function etcdStore(
  config: AppConfig,
  reporters: WriteReporters,
  onWatchError: (error: Error) => void,
  observer?: StoreObserver,
): RecordStore {
  return new EtcdRecordStore({
    endpoints: config.etcdEndpoints,
    prefix: config.etcdPrefix,
    leaseTtlSeconds: config.etcdLeaseTtlSeconds,
    idBlockSize: 1,
    ...reporters,
    onWatchError,
    ...(observer === undefined ? {} : { observer }),
  });
}

/** The rate limiters of an instance sharing its counts with the others, and how to stop them. */
export interface SharedLimits {
  readonly rateLimiter: SharedRateLimiter | null;
  readonly authFailures: FailedAuthLimiter | null;
  close(): Promise<void>;
}

/**
 * Limiters whose counts every instance publishes to etcd every 250 ms and, for a client near its
 * limit, exchanges before deciding (rate-limit-shared.ts has the bound). Their keys sit beside the
 * store's prefix (`<prefix>.limits`), not under it, so the store's watch never sees them. The
 * failed-authentication limiter exchanges once a client is within half its limit: its checks run on
 * every credentialed request, which must not all wait for etcd; its failures are always exchanged.
 */
export function sharedLimits(
  config: AppConfig,
  onError: (error: unknown) => void,
  onRoundTrip?: (path: string, seconds: number, error: string | undefined) => void,
): SharedLimits {
  const client = new EtcdClient({ endpoints: config.etcdEndpoints, ...(onRoundTrip === undefined ? {} : { onRoundTrip }) });
  const counts = (name: string): EtcdSharedCounts => new EtcdSharedCounts({ client, prefix: `${config.etcdPrefix}.${name}` });
  const rateLimiter =
    config.rateLimitPerMinute === 0
      ? null
      : new SharedRateLimiter({ limit: config.rateLimitPerMinute, windowMs: 60_000, counts: counts('limits'), onError });
  const authLimiter =
    config.authFailuresPerMinute === 0
      ? null
      : new SharedRateLimiter({
          limit: config.authFailuresPerMinute,
          windowMs: 60_000,
          syncMargin: Math.ceil(config.authFailuresPerMinute / 2),
          maxKeys: 20_000,
          counts: counts('auth-failures'),
          onError,
        });
  return {
    rateLimiter,
    authFailures:
      authLimiter === null
        ? null
        : new FailedAuthLimiter({ limit: authLimiter.limit, windowMs: authLimiter.windowMs, store: new SharedRateLimitStore(authLimiter) }),
    async close() {
      await rateLimiter?.close();
      await authLimiter?.close();
      await client.close();
    },
  };
}

/** Longest wait for etcd's answer in the readiness check: a probe must answer within a second. */
const ETCD_PING_MS = 300;

/**
 * The readiness check of an instance on etcd: one maintenance-status round trip (the cheapest call
 * the cluster answers), DOWN with the client's reason when no member answers within 300 ms.
 * Undefined for a store that is not on etcd (a test's own store).
 */
export function etcdReachable(store: RecordStore): HealthCheck | undefined {
  if (!(store instanceof EtcdRecordStore)) return undefined;
  return {
    name: 'etcd',
    kind: 'readiness',
    timeoutMs: ETCD_PING_MS + 100,
    check: async (signal) => ({ status: 'UP', data: { revision: await store.ping({ signal, deadlineMs: ETCD_PING_MS }) } }),
  };
}
