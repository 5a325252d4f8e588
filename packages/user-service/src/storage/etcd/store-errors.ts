/**
 * How {@link EtcdRecordStore} turns etcd client failures into {@link RecordStoreError}s.
 *
 * @module
 */
import { EtcdError } from './client.js';
import { RecordStoreError } from '../record-store.js';

/**
 * `ERR_STORE_UNAVAILABLE`: etcd did not answer in time. For a write the outcome is unknown.
 * @example
 * throw unavailable('commit', new Error('no answer within 2000 ms'));
 */
export function unavailable(what: string, cause?: unknown): RecordStoreError {
  const detail = cause instanceof Error ? `: ${cause.message}` : '';
  return new RecordStoreError('ERR_STORE_UNAVAILABLE', `etcd unavailable during ${what}${detail}`, { cause });
}

/**
 * The store error for a failed etcd call made for `what`: etcd refusing the request itself
 * (too many operations, too large: `INVALID_ARGUMENT`, or over gRPC's message limit) is
 * `ERR_STORE_INVALID_MUTATION` (nothing was applied), its space quota `ERR_STORE_FULL`, a member or
 * network failure (retriable, a timeout, rate limiting) `ERR_STORE_UNAVAILABLE`, anything else
 * `ERR_STORE_FAILED`.
 * @example
 * try { await client.txn(request); } catch (err) { throw storeError('commit', err); }
 */
export function storeError(what: string, err: unknown): RecordStoreError {
  if (err instanceof RecordStoreError) return err;
  if (!(err instanceof EtcdError)) return new RecordStoreError('ERR_STORE_FAILED', `${what} failed: ${String(err)}`, { cause: err });
  if (err.code === 'INVALID_ARGUMENT') {
    return new RecordStoreError('ERR_STORE_INVALID_MUTATION', `etcd refused the ${what}: ${err.message}`, { cause: err });
  }
  if (err.code === 'RESOURCE_EXHAUSTED') {
    // One gRPC code, three causes: the space quota, a message over gRPC's size limit, rate limiting.
    if (/space exceeded/i.test(err.message)) return new RecordStoreError('ERR_STORE_FULL', `etcd is full: ${err.message}`, { cause: err });
    if (/larger than max/i.test(err.message)) {
      return new RecordStoreError('ERR_STORE_INVALID_MUTATION', `etcd refused the ${what}: ${err.message}`, { cause: err });
    }
    return unavailable(what, err);
  }
  if (err.retriable || err.code === 'TIMEOUT' || err.code === 'DEADLINE_EXCEEDED') return unavailable(what, err);
  return new RecordStoreError('ERR_STORE_FAILED', `etcd ${what} failed: ${err.message}`, { cause: err });
}

/**
 * Whether `err` says a lease named in the request does not exist (expired or revoked).
 * @example
 * if (isLeaseNotFound(err)) await leases.lost();
 */
export function isLeaseNotFound(err: unknown): boolean {
  return err instanceof EtcdError && err.code === 'NOT_FOUND';
}

/**
 * Whether `err` says a read or watch revision was compacted away.
 * @example
 * if (isCompacted(err)) await reloadEverything();
 */
export function isCompacted(err: unknown): boolean {
  return err instanceof EtcdError && (err.code === 'COMPACTED' || err.code === 'OUT_OF_RANGE');
}
