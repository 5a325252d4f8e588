/**
 * The snapshot cycle of the journal store: decide when a snapshot is due, create the next
 * journal generation, write the snapshot in the background, delete the journals it covers, and
 * keep the health figures.
 *
 * Nothing here throws at the store. A failure at any step leaves the journal generations on
 * disk untouched, so they stay authoritative (recovery replays them all); it is reported through
 * a {@link SnapshotMonitor} and the next attempt waits for the store's next normal trigger.
 *
 * A snapshot is only renamed into place once every batch in its captured state is durable in
 * the journal: the capture can include batches still queued, and if their write fails (the store
 * is then failed and those commits were rejected) the snapshot is dropped, unreported, so a
 * rejected batch never becomes persistent through it.
 */
import { lstat, open, readdir, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDir } from './durable-fs.js';
import { journalGeneration, journalName } from './format.js';
import type { CollectionImage } from '../record-state.js';
import type { RecordStoreStats } from '../record-store.js';
import { SNAPSHOT_FILE, writeSnapshot } from './snapshot-file.js';
import { SnapshotMonitor, type JournalStoreHealth, type SnapshotReporters } from './snapshot-monitor.js';

const ignore = (): void => undefined;

/** Settings of a {@link SnapshotCycle}, defaults already applied by the store. */
export interface SnapshotCycleOptions extends SnapshotReporters {
  /** Mutations between snapshot attempts; a positive integer. */
  readonly snapshotEvery: number;
  /** Also at least this fraction of the records of the last snapshot (0-1; 0: off). */
  readonly snapshotGrowth: number;
  readonly fsync: boolean;
}

/** Rotation and background snapshots of one journal store directory. */
export class SnapshotCycle {
  /** The background snapshot being written, if any. At most one runs at a time. */
  running: Promise<void> | undefined;
  /** Generation of the journal the store appends to. */
  generation = 0;
  private readonly dir: string;
  private readonly stats: RecordStoreStats;
  private readonly snapshotEvery: number;
  private readonly snapshotGrowth: number;
  /** Records in the last snapshot started (or, before any, in the recovered state). */
  private lastRecords = 0;
  private readonly fsync: boolean;
  private readonly monitor: SnapshotMonitor;
  /** Mutations since the last attempt (successful or not), not since the last snapshot. */
  private sinceAttempt = 0;
  /** Bytes in the journal generations kept on disk (not yet covered by a snapshot). */
  private journalBytes = 0;
  /** Of `journalBytes`, those in the generations the running snapshot covers. */
  private coveredBytes = 0;
  private readonly countSync = (): void => void this.stats.fsyncs++;

  /** `dir` is the store's absolute directory; `stats` receives the fsync and snapshot counts. */
  constructor(dir: string, stats: RecordStoreStats, options: SnapshotCycleOptions) {
    if (!Number.isSafeInteger(options.snapshotEvery) || options.snapshotEvery < 1) {
      throw new TypeError('snapshotEvery must be a positive integer');
    }
    this.dir = dir;
    this.stats = stats;
    if (!(options.snapshotGrowth >= 0 && options.snapshotGrowth <= 1)) throw new TypeError('snapshotGrowth must be from 0 to 1');
    this.snapshotEvery = options.snapshotEvery;
    this.snapshotGrowth = options.snapshotGrowth;
    this.fsync = options.fsync;
    this.monitor = new SnapshotMonitor(options);
  }

  /** Takes over what recovery found: current generation, mutations and bytes not snapshotted. */
  resume(generation: number, mutations: number, journalBytes: number, records = 0): void {
    this.lastRecords = records;
    this.generation = generation;
    this.sinceAttempt = mutations;
    this.journalBytes = journalBytes;
  }

  /** Counts mutations applied (and queued for the journal). */
  counted(mutations: number): void {
    this.sinceAttempt += mutations;
  }

  /** Whether the store should rotate now: enough mutations and no snapshot still running. */
  get due(): boolean {
    const every = Math.max(this.snapshotEvery, Math.ceil(this.lastRecords * this.snapshotGrowth));
    return this.sinceAttempt >= every && this.running === undefined;
  }

  /** Snapshot health; see {@link JournalStoreHealth}. */
  health(): JournalStoreHealth {
    const error = this.monitor.error;
    const health = { snapshotFailures: this.monitor.failures, journalBytes: this.journalBytes };
    return error === undefined ? health : { ...health, snapshotError: error.message };
  }

  /** Counts bytes appended to the journal. */
  wrote(bytes: number): void {
    this.journalBytes += bytes;
  }

  /**
   * Creates the next journal generation, durably when fsync is on, and makes it current. An
   * EMPTY file already there (left by an earlier attempt whose clean-up failed) is reused; a
   * non-empty one is never touched and fails the attempt. On failure reports it and returns
   * `undefined`: the caller keeps appending to its current journal, which is intact.
   */
  async openNextJournal(): Promise<FileHandle | undefined> {
    // Reset whether or not this attempt works: a failed one is retried at the next normal
    // trigger, not after every group commit (a tight loop on a full disk).
    this.sinceAttempt = 0;
    const generation = this.generation + 1;
    const file = join(this.dir, journalName(generation));
    let handle: FileHandle | undefined;
    try {
      handle = await createJournal(file);
      // The new journal must exist durably before a commit written to it is acknowledged.
      if (this.fsync) await syncDir(this.dir, this.countSync);
      this.generation = generation;
      return handle;
    } catch (err) {
      // Remove the empty file we created or reused, so that nothing is left for recovery to
      // wonder about. A file we did not open (open failed) is left alone.
      if (handle !== undefined) {
        await handle.close().catch(ignore);
        const removed = await rm(file, { force: true }).then(
          () => true,
          () => false,
        );
        // Best effort: make the removal durable too (the directory sync may fail again).
        if (removed && this.fsync) await syncDir(this.dir, this.countSync).catch(ignore);
      }
      this.monitor.failed('rotate', file, generation, this.journalBytes, err);
      return undefined;
    }
  }

  /**
   * Starts writing the snapshot of the current generation in the background. Call right after
   * switching the store to the journal of {@link openNextJournal}, with the state captured then.
   * `durable` resolves to true once every batch in that state is durable in the journal, or to
   * false if the store failed first: the snapshot is then dropped (see the module comment).
   */
  start(images: readonly CollectionImage[], durable: () => Promise<boolean>): void {
    this.coveredBytes = this.journalBytes;
    this.lastRecords = images.reduce((sum, image) => sum + image.records.length, 0);
    this.running = this.snapshot(this.generation, images, durable);
  }

  private async snapshot(generation: number, images: readonly CollectionImage[], durable: () => Promise<boolean>): Promise<void> {
    const file = join(this.dir, SNAPSHOT_FILE);
    try {
      // Dropped, not a snapshot failure: the store itself failed and reports that to every commit.
      if (!(await writeSnapshot(this.dir, generation, images, this.fsync, this.countSync, durable))) return;
      // The snapshot is in place and durable: from here on a restart replays only this generation.
      // The covered journals go first (best effort, never throws), so whoever sees the count or
      // the report sees the directory compacted.
      await removeJournalsBefore(this.dir, generation);
      this.stats.snapshots++;
      this.journalBytes -= this.coveredBytes;
      this.monitor.succeeded(file, generation);
    } catch (err) {
      // Every journal generation is kept and replayed on restart, so no acknowledged write
      // depends on this snapshot; the next rotation writes a complete one again.
      this.monitor.failed('snapshot', file, generation, this.journalBytes, err);
    } finally {
      this.running = undefined;
    }
  }
}

/**
 * Deletes the journals a published snapshot covers, best effort and one by one: one that cannot
 * go (an I/O error, something else in its place) is neither a failed snapshot nor a reason to
 * keep the others. Recovery deletes any that are left (recovery.ts), never replaying them.
 */
async function removeJournalsBefore(dir: string, generation: number): Promise<void> {
  const names = await readdir(dir).catch((): string[] => []);
  for (const name of names) {
    const g = journalGeneration(name);
    if (g !== undefined && g < generation) await rm(join(dir, name), { force: true }).catch(ignore);
  }
}

/**
 * Creates journal `file` for appending. When it already exists as an empty regular file (a
 * leftover of a failed attempt), reuses it rather than failing every later rotation on EEXIST;
 * anything else there (data, a directory) is left alone and the EEXIST error is thrown.
 */
async function createJournal(file: string): Promise<FileHandle> {
  try {
    return await open(file, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const info = await lstat(file).catch(() => undefined);
    if (info === undefined || !info.isFile() || info.size !== 0) throw err;
    const handle = await open(file, 'a');
    // Checked again through the handle: it is what the store will append to.
    const now = await handle.stat().catch(() => undefined);
    if (now !== undefined && now.isFile() && now.size === 0) return handle;
    await handle.close().catch(ignore);
    throw err;
  }
}
