/**
 * Base class of the adapters: the synchronous read side of {@link RecordStore} over a
 * {@link RecordState}, plus the open/closed lifecycle checks. Adapters add open/close/commit.
 */
import { RecordState } from './record-state.js';
import {
  RecordStoreError,
  emptyStats,
  localVersion,
  type ChangeListener,
  type CommitOptions,
  type Mutation,
  type RecordStore,
  type RecordStoreStats,
  type StoredRecord,
  type WriteStatus,
} from './record-store.js';

/** Lifecycle of a store instance. An instance is opened once; after close it stays closed. */
export type StorePhase = 'new' | 'opening' | 'open' | 'closing' | 'closed';

/** Shared read side and lifecycle of the adapters. Not exported from the package index. */
export abstract class StateStore implements RecordStore {
  /** Counters for tests and benchmarks; see {@link RecordStoreStats}. */
  readonly stats: RecordStoreStats = emptyStats();
  protected readonly state = new RecordState();
  protected phase: StorePhase = 'new';

  abstract open(): Promise<void>;
  abstract close(): Promise<void>;
  abstract commit(mutations: Mutation[], options?: CommitOptions): Promise<void>;
  /** Adapters whose batches are durable when applied never take one back. */
  readonly rollbacks: number = 0;
  /** A local adapter is the only instance over its records. */
  readonly shared: boolean = false;
  private readonly listeners = new Set<ChangeListener>();

  constructor() {
    this.state.onChange = (collection, id) => {
      for (const listener of this.listeners) listener(collection, id);
    };
  }

  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every acknowledged write of a local adapter is already in memory. */
  sync(): Promise<void> | undefined {
    return undefined;
  }

  version(collection: string, id: number): number {
    this.assertReadable();
    return localVersion(this.state.get(collection, id));
  }

  /** Adapters whose batches are durable when applied have nothing to wait for. */
  settled(): Promise<boolean> | undefined {
    return undefined;
  }

  writeStatus(): WriteStatus {
    return { writable: true };
  }

  allocateId(collection: string): Promise<number> {
    if (this.phase !== 'open') return Promise.reject(this.notWritable());
    if (typeof collection !== 'string' || collection.length === 0) {
      return Promise.reject(new RecordStoreError('ERR_STORE_INVALID_MUTATION', 'collection must be a non-empty string'));
    }
    return Promise.resolve(this.state.allocateId(collection));
  }

  get<T extends StoredRecord>(collection: string, id: number): T | undefined {
    this.assertReadable();
    return this.state.get(collection, id) as T | undefined;
  }

  values<T extends StoredRecord>(collection: string): IterableIterator<T> {
    this.assertReadable();
    return this.state.values(collection) as IterableIterator<T>;
  }

  size(collection: string): number {
    this.assertReadable();
    return this.state.size(collection);
  }

  /**
   * Reads stay allowed while closing so that requests still draining during a graceful
   * shutdown can answer; they stop once the store is closed.
   */
  protected assertReadable(): void {
    if (this.phase === 'open' || this.phase === 'closing') return;
    throw this.phase === 'closed'
      ? new RecordStoreError('ERR_STORE_CLOSED', 'record store is closed')
      : new RecordStoreError('ERR_STORE_NOT_OPEN', 'record store is not open; await open() first');
  }

  /** The error for a write attempted in any phase other than `open`. */
  protected notWritable(): RecordStoreError {
    return this.phase === 'closing' || this.phase === 'closed'
      ? new RecordStoreError('ERR_STORE_CLOSED', 'record store is closed')
      : new RecordStoreError('ERR_STORE_NOT_OPEN', 'record store is not open; await open() first');
  }

  /** Counts an acknowledged batch; call in the same synchronous step that applies it. */
  protected countCommit(mutations: number): void {
    this.stats.commits++;
    this.stats.mutations += mutations;
  }
}
