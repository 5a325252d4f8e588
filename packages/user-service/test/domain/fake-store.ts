/**
 * In-memory RecordStore fake for domain tests. Mirrors the port's ownership rules (commit stores a
 * JSON-normalised, deep-frozen copy; reads return the frozen object) and its batch validation.
 * Known departures from the contract (fake-store-contract.test.ts): no open/close lifecycle
 * (domain tests never open it), and `deferred` visibility applies a batch only a macrotask after
 * commit() is called, which neither real adapter does (the port makes a batch visible inside the
 * call); it is a harsher setting to expose check-then-commit races.
 */
import { WebApplicationError } from '@jaxrs-node/pipeline';
import { encodeBatch } from '../../src/storage/record-codec.js';
import {
  conflictError,
  failedPrecondition,
  localVersion,
  type ChangeListener,
  type CommitOptions,
  type Mutation,
  type RecordStore,
  type StoredRecord,
  type WriteStatus,
} from '../../src/storage/record-store.js';

export interface FakeStoreOptions {
  /** `sync`: applied when commit() is called; `deferred`: applied a macrotask later, then resolved. */
  visibility?: 'sync' | 'deferred';
}

export class FakeRecordStore implements RecordStore {
  readonly commits: Mutation[][] = [];
  /** Set to make the next commit reject without applying anything. */
  failNext: Error | undefined;
  private readonly collections = new Map<string, Map<number, StoredRecord>>();
  private readonly counters = new Map<string, number>();
  private readonly visibility: 'sync' | 'deferred';

  constructor(options: FakeStoreOptions = {}) {
    this.visibility = options.visibility ?? 'sync';
  }

  /** The fake never takes a batch back: a failing commit applies nothing. */
  readonly rollbacks = 0;
  readonly shared = false;
  private readonly listeners = new Set<ChangeListener>();

  sync(): Promise<void> | undefined {
    return undefined;
  }

  version(collection: string, id: number): number {
    return localVersion(this.get(collection, id));
  }

  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async open(): Promise<void> {}
  async close(): Promise<void> {}

  settled(): Promise<boolean> | undefined {
    return undefined;
  }

  writeStatus(): WriteStatus {
    return { writable: true };
  }

  async allocateId(collection: string): Promise<number> {
    const next = (this.counters.get(collection) ?? 0) + 1;
    this.counters.set(collection, next);
    return next;
  }

  get<T extends StoredRecord>(collection: string, id: number): T | undefined {
    return this.collections.get(collection)?.get(id) as T | undefined;
  }

  *values<T extends StoredRecord>(collection: string): IterableIterator<T> {
    const records = this.collections.get(collection);
    if (records === undefined) return;
    for (const id of [...records.keys()].sort((a, b) => a - b)) yield records.get(id) as T;
  }

  size(collection: string): number {
    return this.collections.get(collection)?.size ?? 0;
  }

  async commit(mutations: Mutation[], options?: CommitOptions): Promise<void> {
    if (this.failNext !== undefined) {
      const error = this.failNext;
      this.failNext = undefined;
      throw error;
    }
    // The adapters' shared codec: the same validation (ERR_STORE_INVALID_MUTATION, nothing
    // applied), JSON normalisation and deep freeze, so a batch the real stores refuse fails here too.
    const copies = encodeBatch(mutations).mutations;
    if (this.visibility === 'deferred') await new Promise<void>((resolve) => setImmediate(resolve));
    const failed = failedPrecondition(options?.expect, (c, id) => this.version(c, id));
    if (failed !== undefined) throw conflictError(failed);
    for (const m of copies) {
      let records = this.collections.get(m.collection);
      if (records === undefined) this.collections.set(m.collection, (records = new Map()));
      if (m.op === 'put') {
        records.set(m.record.id, m.record);
        if (m.record.id > (this.counters.get(m.collection) ?? 0)) this.counters.set(m.collection, m.record.id);
      } else {
        records.delete(m.id);
      }
    }
    this.commits.push([...copies]);
    for (const m of copies) for (const listener of this.listeners) listener(m.collection, m.op === 'put' ? m.record.id : m.id);
  }
}

/** A clock the test moves by hand; starts at 2024-01-15T10:30:00.250Z. */
export function manualClock(start = Date.UTC(2024, 0, 15, 10, 30, 0, 250)): {
  clock: () => Date;
  advance: (seconds: number) => void;
} {
  let now = start;
  return {
    clock: () => new Date(now),
    advance: (seconds) => {
      now += seconds * 1000;
    },
  };
}

/** The error a sync call throws (fails the test when it does not throw). */
export function thrown(fn: () => unknown): WebApplicationError {
  try {
    fn();
  } catch (error) {
    if (error instanceof WebApplicationError) return error;
    throw error;
  }
  throw new Error('expected a WebApplicationError, nothing was thrown');
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejected(promise: Promise<unknown>): Promise<WebApplicationError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof WebApplicationError) return error;
    throw error;
  }
  throw new Error('expected a WebApplicationError, the promise resolved');
}

/** Violated field names of a validation error, sorted. */
export function fieldsOf(error: WebApplicationError): string[] {
  return (error.details as { field: string }[]).map((v) => v.field).sort();
}
