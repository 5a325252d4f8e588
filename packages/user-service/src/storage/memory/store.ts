/**
 * {@link MemoryRecordStore}: the in-memory adapter of the {@link RecordStore} port. Nothing is
 * persisted; used by fast tests and as the benchmark baseline for the journal adapter.
 */
import { encodeBatch } from '../record-codec.js';
import { conflictError, failedPrecondition, RecordStoreError, type CommitOptions, type Mutation } from '../record-store.js';
import { StateStore } from '../state-store.js';

/**
 * Keeps every record in memory. `commit()` validates, copies and applies the batch
 * synchronously and returns an already-resolved promise, so its semantics match the journal
 * adapter minus durability (same validation, same JSON normalisation, same frozen records).
 *
 * @example
 * ```ts
 * const store = new MemoryRecordStore();
 * await store.open();
 * await store.commit([{ op: 'put', collection: 'users', record: { id: await store.allocateId('users') } }]);
 * ```
 */
export class MemoryRecordStore extends StateStore {
  /** Opens the store; idempotent while open. Rejects with `ERR_STORE_CLOSED` after close(). */
  async open(): Promise<void> {
    if (this.phase === 'closed') {
      throw new RecordStoreError('ERR_STORE_CLOSED', 'a closed record store cannot be reopened');
    }
    this.phase = 'open';
  }

  /** Closes the store; records are dropped with the instance. Idempotent. */
  async close(): Promise<void> {
    this.phase = 'closed';
  }

  /** Applies the batch atomically before returning; rejects without applying anything on error. */
  async commit(mutations: Mutation[], options?: CommitOptions): Promise<void> {
    if (this.phase !== 'open') throw this.notWritable();
    const batch = encodeBatch(mutations);
    const failed = failedPrecondition(options?.expect, (c, id) => this.version(c, id));
    if (failed !== undefined) throw conflictError(failed);
    this.state.apply(batch.mutations);
    this.countCommit(batch.mutations.length);
  }
}
