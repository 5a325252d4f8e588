/**
 * What `METRICS_PORT` adds to the service: a metrics registry, the pipeline's HTTP server metrics
 * recorded into it, and the store's own latencies as histograms beside them (names in the
 * service's namespace, seconds, OpenTelemetry naming; the Prometheus names add `_seconds`).
 * Served by `serveMetrics` on its own listener, never on the public port.
 */
import { HttpMetricsFeature, MetricsRegistry, type MetricAttributes, type MetricsHistogram } from '@jaxrs-node/pipeline';
import type { StoreObserver } from './storage/store-observer.js';

/** Bucket upper bounds (seconds) of the store histograms: an fsync takes from tens of µs to seconds on a sick disk. */
export const STORE_BUCKETS: readonly number[] = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** The registry, the feature recording HTTP metrics into it, and the observers of the store and of etcd. */
export interface ServiceMetrics {
  readonly registry: MetricsRegistry;
  readonly http: HttpMetricsFeature;
  /** Give to the record store (journal: commits and flushes; etcd: commits and its round trips). */
  readonly store: StoreObserver;
  /** Give to any other etcd client of the service (the shared rate limits): its round trips. */
  readonly etcdRoundTrip: (path: string, seconds: number, error: string | undefined) => void;
}

/**
 * Builds the service's metrics for a store of `kind`:
 * - `user_service.store.commit.duration`: from `commit()` to its acknowledgment (journal: written
 *   and fsynced with its group; etcd: the transaction and its watch), `store.kind`, `error.type`
 *   (the store error code) when rejected;
 * - `user_service.store.flush.duration` (journal): one group's write and fsync;
 * - `user_service.etcd.request.duration` (etcd): one HTTP round trip to a member, by
 *   `etcd.path` (`/v3/kv/txn`) and `etcd.client` (`store` or `limits`), `error.type` when it failed.
 * @example
 * const metrics = serviceMetrics('journal');
 * const store = createRecordStore('journal', dir, { observer: metrics.store });
 */
export function serviceMetrics(kind: 'journal' | 'memory' | 'etcd'): ServiceMetrics {
  const registry = new MetricsRegistry();
  const seconds = (name: string, description: string): MetricsHistogram =>
    registry.createHistogram(name, { description, unit: 's', advice: { explicitBucketBoundaries: [...STORE_BUCKETS] } });
  const commit = seconds('user_service.store.commit.duration', 'Record store commits, from commit() to acknowledgment.');
  const flush = kind === 'journal' ? seconds('user_service.store.flush.duration', 'Journal group writes, write and fsync.') : undefined;
  const etcd = kind === 'etcd' ? seconds('user_service.etcd.request.duration', 'HTTP round trips to an etcd member.') : undefined;
  // Attribute objects made once per distinct value and frozen: the registry finds their series by identity.
  const labels = new Map<string, MetricAttributes>();
  const attrs = (key: string, make: () => MetricAttributes): MetricAttributes => {
    let a = labels.get(key);
    if (a === undefined) labels.set(key, (a = Object.freeze(make())));
    return a;
  };
  const storeAttrs = (error: string | undefined): MetricAttributes =>
    attrs(`store ${error ?? ''}`, () => (error === undefined ? { 'store.kind': kind } : { 'store.kind': kind, 'error.type': error }));
  const roundTrip =
    (client: string) =>
    (path: string, s: number, error: string | undefined): void =>
      etcd?.record(
        s,
        attrs(`etcd ${client} ${path} ${error ?? ''}`, () =>
          error === undefined
            ? { 'etcd.client': client, 'etcd.path': path }
            : { 'etcd.client': client, 'etcd.path': path, 'error.type': error },
        ),
      );
  return {
    registry,
    http: new HttpMetricsFeature({ meter: registry }),
    store: {
      commit: (s, error) => commit.record(s, storeAttrs(error)),
      ...(flush === undefined ? {} : { flush: (s: number, error: string | undefined) => flush.record(s, storeAttrs(error)) }),
      ...(etcd === undefined ? {} : { roundTrip: roundTrip('store') }),
    },
    etcdRoundTrip: roundTrip('limits'),
  };
}
