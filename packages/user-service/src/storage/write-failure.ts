/**
 * How a failed journal write is reported: the error a rejected commit carries (its errno named
 * in the message, the file-system error kept as `cause`) and the callbacks through which the
 * store tells its owner that writes started failing and that they work again.
 */
import { RecordStoreError } from './record-store.js';

/** errno codes that mean "no room": the disk or the user's quota is full. */
const NO_SPACE = new Set(['ENOSPC', 'EDQUOT']);

/** Callbacks of the journal store for its write health (both optional). */
export interface WriteReporters {
  /**
   * Called once when journal writes start failing (not again until they have worked once):
   * the `ERR_STORE_FULL` / `ERR_STORE_FAILED` error whose message names the errno.
   */
  onWriteError?: (error: RecordStoreError) => void;
  /** Called once when a write succeeds again, with one line for a log. */
  onWriteRecovered?: (message: string) => void;
}

/**
 * The error of a commit rejected because the journal could not be written: `ERR_STORE_FULL` for
 * a full disk or quota (the service answers 507), `ERR_STORE_FAILED` for any other I/O error
 * (503: the store retries by itself).
 *
 * @example storeWriteError(Object.assign(new Error('no space'), { code: 'ENOSPC' })).code // 'ERR_STORE_FULL'
 */
export function storeWriteError(cause: unknown): RecordStoreError {
  const errno = (cause as NodeJS.ErrnoException | undefined)?.code;
  const detail = cause instanceof Error ? cause.message : String(cause);
  const full = typeof errno === 'string' && NO_SPACE.has(errno);
  return new RecordStoreError(full ? 'ERR_STORE_FULL' : 'ERR_STORE_FAILED', `journal write failed: ${detail}`, { cause });
}
