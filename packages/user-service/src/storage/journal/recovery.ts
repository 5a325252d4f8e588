/**
 * Recovery of a journal store directory: load the snapshot, replay the journal generations it
 * does not cover, cut a torn tail off the newest non-empty journal, and hand back the newest
 * journal open for appending. Runs once, inside `JournalRecordStore.open()`.
 *
 * A torn tail is accepted only where it cannot hold an acknowledged write: in the newest
 * journal, or in journal g when every later generation is EMPTY (a commit is acknowledged only
 * once its whole line is written and fsynced, and the store writes to one journal at a time, so
 * nothing after the torn line was ever written). Such a tail is cut off (durably when fsync is
 * on) before any new write can land in a later journal. A torn tail followed by a non-empty
 * journal is `ERR_STORE_CORRUPT`.
 *
 * Directory layout:
 *
 *     snapshot.json            state including every journal generation below its `generation`
 *     snapshot.json.tmp        a snapshot being written (garbage after a crash)
 *     journal-00000007.jsonl   batches of generation 7, replayed in generation order
 */
import { mkdir, open, readFile, readdir, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { syncDir, type SyncCounter } from './durable-fs.js';
import { journalGeneration, journalName, parseJournal } from './format.js';
import { deepFreeze } from '../record-codec.js';
import type { RecordState } from '../record-state.js';
import { RecordStoreError, type RecordStoreStats } from '../record-store.js';
import { SNAPSHOT_TMP_FILE, readSnapshot } from './snapshot-file.js';

/** What recovery hands back to the store. */
export interface Recovered {
  /** The newest journal, open for appending. */
  readonly journal: FileHandle;
  readonly generation: number;
  /** Mutations in the journals replayed, i.e. not yet covered by a snapshot. */
  readonly sinceSnapshot: number;
  /** Bytes of those journals (after cutting a torn tail). */
  readonly journalBytes: number;
}

/** Creates `dir` if needed and persists the entries of every directory that was created. */
async function ensureDir(dir: string, fsync: boolean, count: SyncCounter): Promise<void> {
  const created = await mkdir(dir, { recursive: true });
  if (created === undefined || !fsync) return;
  // Each new directory's entry lives in its parent: sync parents from `dir` up to `created`.
  for (let d = dir; ; d = dirname(d)) {
    await syncDir(dirname(d), count);
    if (d === created || d === dirname(d)) break;
  }
}

/** Whether every journal of `generations` in `dir` is empty. */
async function allEmpty(dir: string, generations: readonly number[]): Promise<boolean> {
  for (const g of generations) {
    if ((await stat(join(dir, journalName(g)))).size !== 0) return false;
  }
  return true;
}

/** Truncates `handle` to `length` bytes, durably when `fsync` is on. */
async function cut(handle: FileHandle, length: number, fsync: boolean, count: SyncCounter): Promise<void> {
  await handle.truncate(length);
  if (fsync) {
    await handle.datasync();
    count();
  }
}

/**
 * Rebuilds `state` from `dir` (an absolute path). Throws `ERR_STORE_CORRUPT` when acknowledged
 * writes could be missing: damaged snapshot, missing journal generation, damaged line followed
 * by good ones, or a damaged tail in a journal followed by a non-empty one.
 */
export async function recover(dir: string, state: RecordState, stats: RecordStoreStats, fsync: boolean): Promise<Recovered> {
  const count = (): void => void stats.fsyncs++;
  await ensureDir(dir, fsync, count);
  const snapshot = await readSnapshot(dir);
  const base = snapshot?.generation ?? 1;
  for (const c of snapshot?.collections ?? []) {
    state.raiseCounter(c.name, c.nextId);
    state.apply(c.records.map((r) => ({ op: 'put' as const, collection: c.name, record: deepFreeze(r) })));
  }

  const names = await readdir(dir);
  if (names.includes(SNAPSHOT_TMP_FILE)) await rm(join(dir, SNAPSHOT_TMP_FILE), { force: true });
  const generations = names
    .map(journalGeneration)
    .filter((g): g is number => g !== undefined)
    .sort((a, b) => a - b);
  const stale = generations.filter((g) => g < base);
  if (stale.length > 0) {
    // The snapshot that supersedes them must be durable before they go (its rename may not be).
    if (fsync) await syncDir(dir, count);
    for (const g of stale) await rm(join(dir, journalName(g)), { force: true });
  }

  const live = generations.filter((g) => g >= base);
  live.forEach((g, i) => {
    if (g !== base + i) {
      throw new RecordStoreError('ERR_STORE_CORRUPT', `${journalName(base + i)} is missing`);
    }
  });
  let sinceSnapshot = 0;
  let journalBytes = 0;
  let cutAt: number | undefined;
  for (const [i, g] of live.entries()) {
    const buf = await readFile(join(dir, journalName(g)));
    const parsed = parseJournal(buf, journalName(g));
    if (parsed.validLength < buf.length) {
      // A crash (or a failed write) tears only the end of the journal being written; older ones
      // were fully fsynced before the store moved on, unless it moved on without writing.
      const later = live.slice(i + 1);
      if (!(await allEmpty(dir, later))) {
        throw new RecordStoreError('ERR_STORE_CORRUPT', `${journalName(g)}: damaged tail`);
      }
      stats.truncatedBytes += buf.length - parsed.validLength;
      if (later.length === 0) {
        cutAt = parsed.validLength; // cut below, through the handle kept for appending
      } else {
        // Cut now: the first commit after open lands in a later journal, and from then on this
        // tail would be a damaged tail followed by a non-empty journal.
        const torn = await open(join(dir, journalName(g)), 'r+');
        try {
          await cut(torn, parsed.validLength, fsync, count);
        } finally {
          await torn.close();
        }
      }
    }
    for (const batch of parsed.batches) {
      state.apply(batch.mutations);
      for (const [name, next] of batch.counters) state.raiseCounter(name, next);
      sinceSnapshot += batch.mutations.length;
    }
    stats.replayedBatches += parsed.batches.length;
    journalBytes += parsed.validLength; // a shorter one was either cut below or threw above
  }

  const generation = live.at(-1) ?? base;
  const journal = await open(join(dir, journalName(generation)), 'a');
  try {
    if (cutAt !== undefined) await cut(journal, cutAt, fsync, count);
    if (live.length === 0 && fsync) await syncDir(dir, count); // persist the new journal's entry
  } catch (err) {
    await journal.close();
    throw err;
  }
  return { journal, generation, sinceSnapshot, journalBytes };
}
