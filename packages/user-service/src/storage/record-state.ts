/**
 * The in-memory state behind every adapter: per collection, a Map of frozen records plus the id
 * counter. Adapters decide WHEN a batch is applied; this class only knows how.
 */
import type { Mutation, StoredRecord } from './record-store.js';

interface Collection {
  /** Records in ascending id order, unless `unordered` is set. */
  records: Map<number, StoredRecord>;
  /** The next id `allocateId()` hands out. */
  nextId: number;
  /** Largest id inserted since the last re-sort: a new id below it breaks the order. */
  maxKey: number;
  unordered: boolean;
}

/** One collection as captured for a snapshot: frozen records shared, not copied. */
export interface CollectionImage {
  readonly name: string;
  readonly nextId: number;
  readonly records: readonly StoredRecord[];
}

/** What one mutation replaced: the record before it, or `undefined` if there was none. */
export interface UndoEntry {
  readonly collection: string;
  readonly id: number;
  readonly previous: StoredRecord | undefined;
}

/** Collections, id counters and ordering. Synchronous; never throws on validated input. */
export class RecordState {
  private readonly collections = new Map<string, Collection>();
  /** Collections whose counter moved by `allocateId()` since the last `takeDirtyCounters()`. */
  private readonly dirty = new Set<string>();
  /** Told about every key `apply` or `undo` changed, after the change. */
  onChange: ((collection: string, id: number) => void) | undefined;

  private collection(name: string): Collection {
    let c = this.collections.get(name);
    if (c === undefined) {
      c = { records: new Map(), nextId: 1, maxKey: 0, unordered: false };
      this.collections.set(name, c);
    }
    return c;
  }

  /** Hands out the next id of `name` and remembers that the counter must be persisted. */
  allocateId(name: string): number {
    const c = this.collection(name);
    this.dirty.add(name);
    return c.nextId++;
  }

  /** Moves the counter of `name` to at least `next` (counters only grow). */
  raiseCounter(name: string, next: number): void {
    const c = this.collection(name);
    if (next > c.nextId) c.nextId = next;
  }

  /** Counters changed by `allocateId()` since the previous call, as `[collection, nextId]`. */
  takeDirtyCounters(): Array<[string, number]> {
    const out: Array<[string, number]> = [];
    for (const name of this.dirty) out.push([name, this.collection(name).nextId]);
    this.dirty.clear();
    return out;
  }

  /**
   * Applies an already validated batch, in order, within one synchronous call. With `undo`, the
   * previous record (or `undefined`) of every key it touches is pushed there first, in order, so
   * that {@link RecordState.undo} can take the batch back if it never becomes durable.
   */
  apply(mutations: readonly Mutation[], undo?: UndoEntry[]): void {
    for (const m of mutations) {
      if (undo !== undefined) {
        const key = m.op === 'put' ? m.record.id : m.id;
        undo.push({ collection: m.collection, id: key, previous: this.get(m.collection, key) });
      }
      const c = this.collection(m.collection);
      // Every id ever seen, deleted ones included, pushes the counter: ids are never reused.
      const id = m.op === 'put' ? m.record.id : m.id;
      if (id >= c.nextId) c.nextId = id + 1;
      if (m.op === 'delete') {
        c.records.delete(id);
      } else if (c.records.has(id)) {
        c.records.set(id, m.record); // Map.set on an existing key keeps its position
      } else {
        // Ids are allocated in order but commits may land out of order (a request that
        // allocated early can commit late): note it and re-sort lazily in values().
        if (id < c.maxKey) c.unordered = true;
        else c.maxKey = id;
        c.records.set(id, m.record);
      }
    }
    if (this.onChange !== undefined) for (const m of mutations) this.onChange(m.collection, m.op === 'put' ? m.record.id : m.id);
  }

  /**
   * Takes back batches applied with an undo list, newest entry first (give the lists of several
   * batches newest batch first). Counters are left alone: an id handed out is never handed out
   * again, even when the record that used it is taken back.
   */
  undo(entries: readonly UndoEntry[]): void {
    for (let i = entries.length - 1; i >= 0; i--) {
      const { collection, id, previous } = entries[i] as UndoEntry;
      const c = this.collection(collection);
      if (previous === undefined) {
        c.records.delete(id);
      } else if (c.records.has(id)) {
        c.records.set(id, previous);
      } else {
        if (id < c.maxKey) c.unordered = true;
        else c.maxKey = id;
        c.records.set(id, previous);
      }
    }
    if (this.onChange !== undefined) for (let i = entries.length - 1; i >= 0; i--) this.onChange(entries[i]!.collection, entries[i]!.id);
  }

  /** Marks counters as changed again (their journal line was rejected, so they must be written). */
  markDirty(names: Iterable<string>): void {
    for (const name of names) this.dirty.add(name);
  }

  get(name: string, id: number): StoredRecord | undefined {
    return this.collections.get(name)?.records.get(id);
  }

  size(name: string): number {
    return this.collections.get(name)?.records.size ?? 0;
  }

  /** Records in every collection. */
  records(): number {
    let count = 0;
    for (const c of this.collections.values()) count += c.records.size;
    return count;
  }

  /**
   * Records of `name` in ascending id order. After an out-of-order insert the Map is rebuilt once
   * (TimSort on nearly sorted input is linear), so the cost stays within a constant factor of
   * the full iteration that a caller of an unpaginated listing pays anyway.
   */
  values(name: string): IterableIterator<StoredRecord> {
    const c = this.collections.get(name);
    if (c === undefined) return new Map<number, StoredRecord>().values();
    if (c.unordered) this.sort(c);
    return c.records.values();
  }

  /** Every collection with its counter and records in id order, for a snapshot. */
  capture(): CollectionImage[] {
    const out: CollectionImage[] = [];
    for (const [name, c] of this.collections) {
      if (c.unordered) this.sort(c);
      out.push({ name, nextId: c.nextId, records: Array.from(c.records.values()) });
    }
    return out;
  }

  private sort(c: Collection): void {
    // A new Map rather than clear()+refill: iterators already handed out keep walking the old
    // one instead of seeing entries twice.
    const entries = Array.from(c.records).sort((a, b) => a[0] - b[0]);
    c.records = new Map(entries);
    c.maxKey = entries.length > 0 ? (entries[entries.length - 1] as [number, unknown])[0] : 0;
    c.unordered = false;
  }
}
