/**
 * Recovery of a journal store directory: load the snapshot, replay the journal generations it
 * does not cover, cut a torn tail off the newest journal, and hand back that journal open for
 * appending. Runs once, inside `JournalRecordStore.open()`.
 *
 * Directory layout:
 *
 *     snapshot.json            state including every journal generation below its `generation`
 *     snapshot.json.tmp        a snapshot being written (garbage after a crash)
 *     journal-00000007.jsonl   batches of generation 7, replayed in generation order
 */
import { mkdir, open, readFile, readdir, rm, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { syncDir, type SyncCounter } from './durable-fs.js';
import { journalGeneration, journalName, parseJournal } from './journal-format.js';
import { deepFreeze } from './record-codec.js';
import type { RecordState } from './record-state.js';
import { RecordStoreError, type RecordStoreStats } from './record-store.js';
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

/**
 * Rebuilds `state` from `dir` (an absolute path). Throws `ERR_STORE_CORRUPT` when acknowledged
 * writes could be missing: damaged snapshot, missing journal generation, damaged line followed
 * by good ones, or a damaged tail in a journal that is not the newest.
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
      // Only the newest journal can have been cut by a crash: older ones were fully fsynced
      // before the store moved on to the next generation.
      if (i !== live.length - 1) {
        throw new RecordStoreError('ERR_STORE_CORRUPT', `${journalName(g)}: damaged tail`);
      }
      cutAt = parsed.validLength;
      stats.truncatedBytes = buf.length - parsed.validLength;
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
    if (cutAt !== undefined) {
      await journal.truncate(cutAt);
      if (fsync) {
        await journal.datasync();
        count();
      }
    }
    if (live.length === 0 && fsync) await syncDir(dir, count); // persist the new journal's entry
  } catch (err) {
    await journal.close();
    throw err;
  }
  return { journal, generation, sinceSnapshot, journalBytes };
}
