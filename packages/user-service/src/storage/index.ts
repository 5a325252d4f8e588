/**
 * Storage layer of the user service: the {@link RecordStore} port and its adapters.
 *
 * @example
 * ```ts
 * import { createRecordStore } from './storage/index.js';
 * const store = createRecordStore('journal', process.env.DATA_DIR ?? './data');
 * await store.open();
 * ```
 */
import { JournalRecordStore, type JournalStoreOptions } from './journal/store.js';
import { MemoryRecordStore } from './memory/store.js';

// Types only: the etcd adapter (and its HTTP client) loads only where it is imported directly,
// from './etcd/store.js', so a local deployment never loads it.
export type { EtcdRecordStore, EtcdStoreOptions } from './etcd/store.js';
export { JournalRecordStore, type JournalStoreOptions } from './journal/store.js';
export { MemoryRecordStore } from './memory/store.js';
export type { JournalStoreHealth, SnapshotRecovery, SnapshotReporters } from './journal/snapshot-monitor.js';
export {
  RecordStoreError,
  type ChangeListener,
  type CommitOptions,
  type Precondition,
  type RecordLease,
  type Mutation,
  type RecordStore,
  type RecordStoreErrorCode,
  type RecordStoreStats,
  type StoredRecord,
  type WriteStatus,
} from './record-store.js';
export { storeWriteError, type WriteReporters } from './write-failure.js';

/** Which adapter {@link createRecordStore} builds. */
export type RecordStoreKind = 'memory' | 'journal';

/**
 * Builds a store (not yet opened). `dir` is required for `'journal'` and ignored for
 * `'memory'`; `options` tunes the journal adapter.
 *
 * @example
 * ```ts
 * const store = createRecordStore('memory');
 * await store.open();
 * ```
 */
export function createRecordStore(kind: 'memory'): MemoryRecordStore;
export function createRecordStore(kind: 'journal', dir: string, options?: Omit<JournalStoreOptions, 'dir'>): JournalRecordStore;
export function createRecordStore(
  kind: RecordStoreKind,
  dir?: string,
  options?: Omit<JournalStoreOptions, 'dir'>,
): MemoryRecordStore | JournalRecordStore;
export function createRecordStore(
  kind: RecordStoreKind,
  dir?: string,
  options: Omit<JournalStoreOptions, 'dir'> = {},
): MemoryRecordStore | JournalRecordStore {
  if (kind === 'memory') return new MemoryRecordStore();
  if (kind !== 'journal') throw new TypeError(`unknown record store kind ${String(kind)}`);
  if (dir === undefined) throw new TypeError("createRecordStore('journal') needs a directory");
  return new JournalRecordStore({ ...options, dir });
}
