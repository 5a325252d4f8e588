/**
 * {@link JournalRecordStore}: the durable adapter of the {@link RecordStore} port.
 *
 * Write path: `commit()` validates the batch, applies it to memory and queues its journal line,
 * all in one synchronous step; one writer then appends every queued line with a single write
 * and a single fdatasync (group commit) and resolves those commits together. Every
 * `snapshotEvery` mutations the store switches to a new journal generation and writes a
 * snapshot in the background (see `snapshot-file.ts`, `recovery.ts` for the files).
 * A failed rotation or snapshot is reported (`snapshot-cycle.ts`) and never fails the store.
 *
 * Single process: the directory must be used by one process at a time. A second store on the
 * same directory in the SAME process is refused (`ERR_STORE_LOCKED`); across processes there is
 * no lock, so deployment must guarantee it (one instance per data directory).
 */
import type { FileHandle } from 'node:fs/promises';
import { resolve } from 'node:path';
import { writeAll } from './durable-fs.js';
import { encodeLine } from './format.js';
import { recover } from './recovery.js';
import { encodeBatch } from '../record-codec.js';
import type { UndoEntry } from '../record-state.js';
import {
  conflictError,
  failedPrecondition,
  RecordStoreError,
  type CommitOptions,
  type Mutation,
  type WriteStatus,
} from '../record-store.js';
import { storeWriteError, type WriteReporters } from '../write-failure.js';
import { SnapshotCycle } from './snapshot-cycle.js';
import type { JournalStoreHealth, SnapshotReporters } from './snapshot-monitor.js';
import { StateStore } from '../state-store.js';
import { errorCode, type StoreObserver } from '../store-observer.js';

/**
 * Options of {@link JournalRecordStore}. Give `onSnapshotError` / `onSnapshotRecovered` (see
 * {@link SnapshotReporters}) to route snapshot trouble to the service log.
 */
export interface JournalStoreOptions extends SnapshotReporters, WriteReporters {
  /** Directory holding the journal and snapshot files; created if missing. */
  dir: string;
  /** Mutations between snapshots. Default 10 000. */
  snapshotEvery?: number;
  /**
   * Also wait for this fraction of the records in the last snapshot (0-1, default 0: off): with
   * 0.25 a store of 10^6 records snapshots every 250 000 mutations instead of every
   * `snapshotEvery`, so writing snapshots costs a bounded number of records per mutation (each
   * snapshot writes the whole state: at a fixed interval a bulk load rewrites it hundreds of times),
   * and a restart replays at most about that fraction of the state from the journal.
   */
  snapshotGrowth?: number;
  /** fsync before acknowledging. Default true; false only for tests and benchmarks. */
  fsync?: boolean;
  /** While journal writes fail, how often a probe line tries the disk again, ms. Default 2 000. */
  probeIntervalMs?: number;
  /** Told how long each commit and each group's write and fsync took (metrics); none by default. */
  observer?: StoreObserver;
}

interface QueuedLine {
  readonly line: string;
  /** Mutations to count in stats once acknowledged; undefined for internal lines. */
  readonly mutations: number | undefined;
  /** What the batch replaced in memory, to take it back if its write fails. */
  readonly undo: readonly UndoEntry[];
  /** Id counters this line persists; marked dirty again if it is rejected. */
  readonly counters: ReadonlyArray<[string, number]>;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

/** Directories opened by a store of this process, to refuse a second writer. */
const openDirs = new Set<string>();
const ignore = (): void => undefined;

/** Tells an observer the seconds since `start`; one that throws is ignored (metrics must not fail a write). */
function report(observe: (seconds: number, error: string | undefined) => void, start: number, error: string | undefined): void {
  try {
    observe((performance.now() - start) / 1000, error);
  } catch {
    // ignored: see above
  }
}

/**
 * Durable record store. A batch is applied to memory as soon as `commit()` is called (so a
 * synchronous check-then-commit, e.g. a uniqueness check, is race free, exactly as with the
 * memory store) and its promise resolves only once the batch is fsynced. A reader that must not
 * pass on anything that is not durable waits for {@link JournalRecordStore.settled} before
 * answering (the service does this for every GET and HEAD).
 *
 * If a write or fsync fails, the failing group and every batch queued after it are rejected
 * (`ERR_STORE_FULL` for ENOSPC/EDQUOT, else `ERR_STORE_FAILED`, the errno in the message and in
 * `cause`) and TAKEN BACK from memory, newest first; the counters they carried are written with
 * the next line, so an id handed out is never handed out again. The journal may then end in a
 * partial line: the store cuts it back to the last good line at once (ftruncate + fdatasync; if
 * that fails too, again before the next write), and the next commit, or a probe line every
 * `probeIntervalMs`, finds out whether the disk takes writes again. No restart is needed; `writeStatus()` says whether the last write
 * failed, why and since when. A rotation or snapshot never starts after a failed group (the torn
 * line must stay in the newest journal until it is cut), and a running snapshot is only
 * published once all it captured is durable (see `rotate`): a rejected batch never reaches one.
 *
 * @example
 * ```ts
 * const store = new JournalRecordStore({ dir: '/var/lib/users' });
 * await store.open();
 * const id = await store.allocateId('users');
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
  /** Bytes of the current journal up to the end of its last durable line. */
  private journalOffset = 0;
  /** A write failed: cut the journal back to `journalOffset` before writing again. */
  private needsCut = false;
  /** The failure of the latest write while it is the latest outcome; undefined once a write succeeds. */
  private failure: RecordStoreError | undefined;
  private failedSince = 0;
  private probe: NodeJS.Timeout | undefined;
  private readonly probeIntervalMs: number;
  private readonly reporters: WriteReporters;
  /** Lines queued or being written, not yet resolved or rejected. */
  private unsettled = 0;
  /** Number of failed groups that took batches back from memory; see {@link RecordStore.rollbacks}. */
  override rollbacks = 0;
  private opening: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private readonly countSync = (): void => void this.stats.fsyncs++;
  private readonly observer: StoreObserver | undefined;

  constructor(options: JournalStoreOptions) {
    super();
    const { dir, snapshotEvery = 10_000, snapshotGrowth = 0, fsync = true, probeIntervalMs = 2_000 } = options;
    if (typeof dir !== 'string' || dir.length === 0) throw new TypeError('dir must be a non-empty string');
    if (!Number.isInteger(probeIntervalMs) || probeIntervalMs <= 0) throw new TypeError('probeIntervalMs must be a positive integer');
    this.probeIntervalMs = probeIntervalMs;
    this.reporters = options;
    this.observer = options.observer;
    this.dir = resolve(dir);
    this.fsync = fsync;
    this.snapshots = new SnapshotCycle(this.dir, this.stats, { ...options, snapshotEvery, snapshotGrowth, fsync });
  }

  /** Snapshot health: the current failure streak, if any, and the bytes a restart would replay. */
  health(): JournalStoreHealth {
    return this.snapshots.health();
  }

  override writeStatus(): WriteStatus {
    const f = this.failure;
    if (f === undefined) return { writable: true };
    return { writable: false, code: f.code, reason: f.message, since: new Date(this.failedSince).toISOString() };
  }

  /**
   * Undefined when no line is queued or being written (nothing a reader sees can still be taken
   * back); else a promise of whether every line queued so far became durable (false: at least one
   * was rejected and its batch taken back from memory).
   */
  override settled(): Promise<boolean> | undefined {
    if (this.unsettled === 0 || this.lastQueued === undefined) return undefined;
    return this.lastQueued.then(
      () => true,
      () => false,
    );
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
      this.journalOffset = (await recovered.journal.stat()).size;
      this.snapshots.resume(recovered.generation, recovered.sinceSnapshot, recovered.journalBytes, this.state.records());
      this.phase = 'open';
    } catch (err) {
      openDirs.delete(this.dir);
      this.phase = 'closed';
      throw err;
    }
  }

  /**
   * Applies the batch now; resolves once it is fsynced together with its group. If that write
   * fails the batch is taken back from memory and the promise rejects (see the class comment).
   */
  commit(mutations: Mutation[], options?: CommitOptions): Promise<void> {
    const observe = this.observer?.commit;
    if (observe === undefined) return this.commitNow(mutations, options);
    const start = performance.now();
    const done = this.commitNow(mutations, options);
    // A branch of its own: the caller still gets the rejection, and an observer that throws is ignored.
    done
      .then(
        () => observe((performance.now() - start) / 1000, undefined),
        (err: unknown) => observe((performance.now() - start) / 1000, errorCode(err)),
      )
      .catch(ignore);
    return done;
  }

  private commitNow(mutations: Mutation[], options: CommitOptions | undefined): Promise<void> {
    if (this.phase !== 'open') return Promise.reject(this.notWritable());
    try {
      const batch = encodeBatch(mutations);
      // Checked in the same synchronous step that applies the batch: nothing can come between.
      const failed = failedPrecondition(options?.expect, (c, id) => this.version(c, id));
      if (failed !== undefined) throw conflictError(failed);
      const counters = this.state.takeDirtyCounters();
      const line = encodeLine(batch.json, counters);
      const undo: UndoEntry[] = [];
      this.state.apply(batch.mutations, undo);
      this.snapshots.counted(batch.mutations.length);
      return this.enqueue(line, batch.mutations.length, undo, counters);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private enqueue(
    line: string,
    mutations: number | undefined,
    undo: readonly UndoEntry[],
    counters: ReadonlyArray<[string, number]>,
  ): Promise<void> {
    this.unsettled++;
    const written = new Promise<void>((resolve, reject) => {
      this.queue.push({ line, mutations, undo, counters, resolve, reject });
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
        if (!(await this.flush(group))) {
          // Cut the rejected lines off at once (best effort; else before the next write), so that
          // a restart cannot replay a batch whose commit was rejected. No rotation before that.
          // Commits queued meanwhile were made after the failure: the loop writes them next.
          await this.cutTornTail(this.journal as FileHandle).catch(ignore);
          continue;
        }
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
    const observe = this.observer?.flush;
    const start = observe === undefined ? 0 : performance.now();
    try {
      if (this.needsCut) await this.cutTornTail(journal);
      await writeAll(journal, buf);
      this.snapshots.wrote(buf.length);
      this.stats.writes++;
      if (this.fsync) {
        await journal.datasync();
        this.countSync();
      }
    } catch (err) {
      if (observe !== undefined) report(observe, start, errorCode(err));
      this.fail(err, group);
      return false;
    }
    if (observe !== undefined) report(observe, start, undefined);
    this.journalOffset += buf.length;
    this.unsettled -= group.length;
    for (const q of group) {
      if (q.mutations !== undefined) this.countCommit(q.mutations);
      q.resolve();
    }
    if (this.failure !== undefined) this.recovered();
    return true;
  }

  /** Removes what a failed write left after the last good line, durably. */
  private async cutTornTail(journal: FileHandle): Promise<void> {
    await journal.truncate(this.journalOffset);
    if (this.fsync) {
      await journal.datasync();
      this.countSync();
    }
    this.needsCut = false;
  }

  private recovered(): void {
    const seconds = Math.round((Date.now() - this.failedSince) / 1000);
    this.failure = undefined;
    clearInterval(this.probe);
    this.probe = undefined;
    this.reporters.onWriteRecovered?.(`journal writable again after ${seconds} s`);
  }

  /** While writes fail: a line without mutations, so that the store heals without client writes. */
  private probeDisk(): void {
    if (this.phase !== 'open' || this.failure === undefined || this.unsettled > 0) return;
    this.enqueue(encodeLine('[]', []), undefined, [], []).catch(ignore);
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
    this.journalOffset = (await handle.stat()).size; // an empty journal (created or reused)
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

  /**
   * Rejects `group` (the lines being written) and everything queued after it, takes their
   * batches back from memory newest first, and arranges for the journal to be cut back to its
   * last good line before the next write.
   */
  private fail(cause: unknown, group: readonly QueuedLine[] = []): void {
    const error = storeWriteError(cause);
    if (this.failure === undefined) {
      this.failedSince = Date.now();
      this.reporters.onWriteError?.(error);
      this.probe = setInterval(() => this.probeDisk(), this.probeIntervalMs);
      this.probe.unref();
    }
    this.failure = error;
    this.needsCut = true;
    const rejected = [...group, ...this.queue];
    this.queue = [];
    let tookBack = false;
    for (let i = rejected.length - 1; i >= 0; i--) {
      const q = rejected[i] as QueuedLine;
      if (q.undo.length > 0) tookBack = true;
      this.state.undo(q.undo);
      this.state.markDirty(q.counters.map(([name]) => name));
    }
    if (tookBack) this.rollbacks++;
    this.unsettled -= rejected.length;
    for (const q of rejected) q.reject(error);
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
    clearInterval(this.probe);
    this.probe = undefined;
    // Ids handed out but never committed: persist the counters so they are not reissued.
    const counters = this.state.takeDirtyCounters();
    if (counters.length > 0) {
      await this.enqueue(encodeLine('[]', counters), undefined, [], counters).catch(ignore);
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
