/**
 * {@link JournalRecordStore}: the durable adapter of the {@link RecordStore} port.
 *
 * Write path: `commit()` validates the batch, applies it to memory and queues its journal line,
 * all in one synchronous step; one writer then appends every queued line with a single write
 * and a single fdatasync (group commit) and resolves those commits together. Every
 * `snapshotEvery` mutations the store switches to a new journal generation and writes a
 * snapshot in the background (see `snapshot-file.ts`, `journal-recovery.ts` for the files).
 * A failed rotation or snapshot is reported (`snapshot-cycle.ts`) and never fails the store.
 *
 * Single process: the directory must be used by one process at a time. A second store on the
 * same directory in the SAME process is refused (`ERR_STORE_LOCKED`); across processes there is
 * no lock, so deployment must guarantee it (one instance per data directory).
 */
import type { FileHandle } from 'node:fs/promises';
import { resolve } from 'node:path';
import { writeAll } from './durable-fs.js';
import { encodeLine } from './journal-format.js';
import { recover } from './journal-recovery.js';
import { encodeBatch } from './record-codec.js';
import { RecordStoreError, type Mutation } from './record-store.js';
import { SnapshotCycle } from './snapshot-cycle.js';
import type { JournalStoreHealth, SnapshotReporters } from './snapshot-monitor.js';
import { StateStore } from './state-store.js';

/**
 * Options of {@link JournalRecordStore}. Give `onSnapshotError` / `onSnapshotRecovered` (see
 * {@link SnapshotReporters}) to route snapshot trouble to the service log.
 */
export interface JournalStoreOptions extends SnapshotReporters {
  /** Directory holding the journal and snapshot files; created if missing. */
  dir: string;
  /** Mutations between snapshots. Default 10 000. */
  snapshotEvery?: number;
  /** fsync before acknowledging. Default true; false only for tests and benchmarks. */
  fsync?: boolean;
}

interface QueuedLine {
  readonly line: string;
  /** Mutations to count in stats once acknowledged; undefined for internal lines. */
  readonly mutations: number | undefined;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

/** Directories opened by a store of this process, to refuse a second writer. */
const openDirs = new Set<string>();
const ignore = (): void => undefined;

/**
 * Durable record store. A batch is visible to readers as soon as `commit()` is called (so a
 * synchronous check-then-commit, e.g. a uniqueness check, is race free, exactly as with the
 * memory store) and its promise resolves only once the batch is fsynced. Consequence: a reader
 * can see a batch up to one fsync before it is durable; if the process dies in that window the
 * batch is gone after restart (its writer was never acknowledged).
 *
 * If a write or fsync fails the store is FAILED: the failing and all later commits reject with
 * `ERR_STORE_FAILED` and memory may be ahead of disk; close it and open a new instance (recovery
 * rebuilds from disk; an unacknowledged batch may or may not be there, as after a crash). A
 * failed store never rotates or snapshots (memory holds the rejected batch; the journal may end
 * in a torn line, which must stay the newest), and a running snapshot is only published once all
 * it captured is durable (see `rotate`): a rejected batch never reaches a snapshot.
 *
 * @example
 * ```ts
 * const store = new JournalRecordStore({ dir: '/var/lib/users' });
 * await store.open();
 * const id = store.allocateId('users');
 * await store.commit([{ op: 'put', collection: 'users', record: { id, name: 'Ada' } }]);
 * await store.close();
 * ```
 */
export class JournalRecordStore extends StateStore {
  private readonly dir: string;
  private readonly fsync: boolean;
  private journal: FileHandle | undefined;
  private queue: QueuedLine[] = [];
  private draining: Promise<void> | undefined;
  /**
   * The promise of the last line queued. Groups are written in queue order and a failure rejects
   * every line still queued, so once it settles every earlier line is durable (resolved) or the
   * store failed (rejected): what gates a snapshot (see `rotate`).
   */
  private lastQueued: Promise<void> | undefined;
  private readonly snapshots: SnapshotCycle;
  private failure: RecordStoreError | undefined;
  private opening: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private readonly countSync = (): void => void this.stats.fsyncs++;

  constructor(options: JournalStoreOptions) {
    super();
    const { dir, snapshotEvery = 10_000, fsync = true } = options;
    if (typeof dir !== 'string' || dir.length === 0) throw new TypeError('dir must be a non-empty string');
    this.dir = resolve(dir);
    this.fsync = fsync;
    this.snapshots = new SnapshotCycle(this.dir, this.stats, { ...options, snapshotEvery, fsync });
  }

  /** Snapshot health: the current failure streak, if any, and the bytes a restart would replay. */
  health(): JournalStoreHealth {
    return this.snapshots.health();
  }

  /** Loads the snapshot and replays the journals. Concurrent calls share one recovery. */
  open(): Promise<void> {
    if (this.phase === 'closing' || this.phase === 'closed') return Promise.reject(this.notWritable());
    this.opening ??= this.load();
    return this.opening;
  }

  private async load(): Promise<void> {
    this.phase = 'opening';
    if (openDirs.has(this.dir)) {
      this.phase = 'closed';
      throw new RecordStoreError('ERR_STORE_LOCKED', `${this.dir} is already open in this process`);
    }
    openDirs.add(this.dir);
    try {
      const recovered = await recover(this.dir, this.state, this.stats, this.fsync);
      this.journal = recovered.journal;
      this.snapshots.resume(recovered.generation, recovered.sinceSnapshot, recovered.journalBytes);
      this.phase = 'open';
    } catch (err) {
      openDirs.delete(this.dir);
      this.phase = 'closed';
      throw err;
    }
  }

  /** Applies the batch now; resolves once it is fsynced together with its group. */
  commit(mutations: Mutation[]): Promise<void> {
    if (this.phase !== 'open') return Promise.reject(this.notWritable());
    if (this.failure !== undefined) return Promise.reject(this.failure);
    try {
      const batch = encodeBatch(mutations);
      const line = encodeLine(batch.json, this.state.takeDirtyCounters());
      this.state.apply(batch.mutations);
      this.snapshots.counted(batch.mutations.length);
      return this.enqueue(line, batch.mutations.length);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private enqueue(line: string, mutations: number | undefined): Promise<void> {
    const written = new Promise<void>((resolve, reject) => {
      this.queue.push({ line, mutations, resolve, reject });
      // Starting the writer one microtask later lets commits issued in the same tick share it.
      this.draining ??= Promise.resolve().then(() => this.drain());
    });
    this.lastQueued = written;
    return written;
  }

  /** The single writer: one write + one fsync per group of queued lines. Never rejects. */
  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const group = this.queue;
        this.queue = []; // commits arriving during this fsync form the next group
        if (!(await this.flush(group))) break; // failed: never rotate (see the class comment)
        if (this.failure === undefined && this.snapshots.due) await this.rotate();
      }
    } catch (err) {
      this.fail(err);
    }
    this.draining = undefined; // same synchronous step as the empty check: no commit is stranded
  }

  /** Writes and fsyncs one group; false (the store is then failed) if that failed. */
  private async flush(group: QueuedLine[]): Promise<boolean> {
    const journal = this.journal as FileHandle; // set for as long as the store is open
    const text = group.length === 1 ? (group[0] as QueuedLine).line : group.map((q) => q.line).join('');
    const buf = Buffer.from(text);
    try {
      await writeAll(journal, buf);
      this.snapshots.wrote(buf.length);
      this.stats.writes++;
      if (this.fsync) {
        await journal.datasync();
        this.countSync();
      }
    } catch (err) {
      this.fail(err, group);
      return false;
    }
    for (const q of group) {
      if (q.mutations !== undefined) this.countCommit(q.mutations);
      q.resolve();
    }
    return true;
  }

  /**
   * Starts journal generation N+1, then snapshots the state as generation N+1 in the background.
   * The capture may include batches still queued for journal N+1: replaying them over the
   * snapshot is harmless (puts and deletes are idempotent), and it waits until they are durable:
   * the snapshot is published only if the last line queued at capture time was written (a
   * rejected batch is in memory, so a capture holding it must never be renamed into place).
   */
  private async rotate(): Promise<void> {
    const handle = await this.snapshots.openNextJournal();
    if (handle === undefined) return; // reported; keep appending to the current journal
    const old = this.journal;
    this.journal = handle;
    // Everything in the old journal is already fsynced: a close error cannot lose data.
    await old?.close().catch(ignore);
    const last = this.lastQueued; // same synchronous step as the capture
    this.snapshots.start(this.state.capture(), () =>
      last === undefined
        ? Promise.resolve(true)
        : last.then(
            () => true,
            () => false,
          ),
    );
  }

  /** Marks the store failed and rejects `group` (the lines being written) and everything queued. */
  private fail(cause: unknown, group: readonly QueuedLine[] = []): void {
    this.failure ??= new RecordStoreError('ERR_STORE_FAILED', 'journal write failed; the store must be reopened', { cause });
    const queued = this.queue;
    this.queue = [];
    for (const q of [...group, ...queued]) q.reject(this.failure);
  }

  /** Persists pending writes and id counters, waits for a running snapshot, releases files. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    if (this.phase === 'opening') await this.opening?.catch(ignore);
    if (this.phase !== 'open') {
      this.phase = 'closed';
      return;
    }
    this.phase = 'closing';
    // Ids handed out but never committed: persist the counters so they are not reissued.
    const counters = this.state.takeDirtyCounters();
    if (counters.length > 0 && this.failure === undefined) {
      await this.enqueue(encodeLine('[]', counters), undefined).catch(ignore);
    }
    await this.draining;
    await this.snapshots.running;
    try {
      if (this.failure === undefined) {
        await this.journal?.sync();
        this.countSync();
      }
    } finally {
      await this.journal?.close().catch(ignore);
      this.journal = undefined;
      openDirs.delete(this.dir);
      this.phase = 'closed';
    }
  }
}
