/**
 * What a record store tells an observer about its own latency (the service turns it into
 * metrics). Storage knows nothing of metrics: it calls these plain functions, and only when an
 * observer is given, so a store without one pays nothing.
 */

/** Timings of a store's writes and, for the etcd store, of its requests to the cluster (all optional). */
export interface StoreObserver {
  /**
   * A commit settled, `seconds` after `commit()` was called: journal, queued, written and fsynced
   * with its group; etcd, its transaction answered and seen by the watch. `error` is the code of
   * the error it was rejected with (`ERR_STORE_CONFLICT`, `ERR_STORE_FULL`...), undefined when
   * it was acknowledged.
   */
  readonly commit?: (seconds: number, error: string | undefined) => void;
  /** Journal: one group of lines written and fsynced (`seconds` for both), or failed (`error`: the errno). */
  readonly flush?: (seconds: number, error: string | undefined) => void;
  /**
   * etcd: one HTTP round trip to a member (one attempt of a call: a retry on another member is
   * another round trip), named by the gateway path (`/v3/kv/txn`); `error` is the client's error
   * code (`TIMEOUT`, `CONNECTION`...) when it failed.
   */
  readonly roundTrip?: (path: string, seconds: number, error: string | undefined) => void;
}

/** The `code` of a rejection (a RecordStoreError, an EtcdError, an errno), or `'Error'`. */
export function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code !== '' ? code : err instanceof Error ? err.constructor.name : 'Error';
}
