/**
 * Conditional writes against a store that other instances may write too: a read-modify-write
 * commits with a precondition on the version it read, and when another writer got there first
 * (`ERR_STORE_CONFLICT`) it catches up with the store and decides again on the fresh record, so a
 * check (If-Match, an order's state machine, a user's existence) is always made against the
 * record the write replaces.
 */
import { RecordStoreError, type RecordStore } from '../../storage/record-store.js';

/** Attempts of one conditional write before the conflict reaches the client (as a 409). */
export const CONFLICT_ATTEMPTS = 8;

/**
 * Runs `attempt` until it does not fail with `ERR_STORE_CONFLICT`, at most `attempts` times,
 * awaiting the store's read barrier between attempts.
 *
 * @example
 * await retryOnConflict(store, async () => {
 *   const current = read();
 *   await store.commit([put(next(current))], { expect: [{ collection, id, version: store.version(collection, id) }] });
 * });
 */
export async function retryOnConflict<T>(store: RecordStore, attempt: () => Promise<T>, attempts = CONFLICT_ATTEMPTS): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof RecordStoreError) || error.code !== 'ERR_STORE_CONFLICT' || i >= attempts) throw error;
      await store.sync();
    }
  }
}
