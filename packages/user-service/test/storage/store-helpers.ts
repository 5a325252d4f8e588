/**
 * What the journal-store tests share to build and inspect a store: the mutations they commit, the
 * names of the files the store writes, a store that records what it reports, and what a fresh
 * store recovers from a directory. Fault injection is apart, in write-faults.ts.
 */
import { JournalRecordStore, type Mutation, type RecordStoreError, type SnapshotRecovery } from '../../src/storage/index.js';

/** A user record put, the mutation these tests commit. */
export const putUser = (id: number): Mutation => ({ op: 'put', collection: 'users', record: { id, name: `user-${id}` } });
/** The file name of journal generation `g`. */
export const journalFile = (g: number): string => `journal-${String(g).padStart(8, '0')}.jsonl`;
/** `from`..`to` inclusive. */
export const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/**
 * Ids of `collection` in a fresh store on `dir` (opened with the default snapshot interval, so
 * reopening never rotates, and closed again), with what recovery truncated and replayed.
 */
export async function reopenedIds(dir: string, collection = 'users'): Promise<{ ids: number[]; truncatedBytes: number; replayed: number }> {
  const store = new JournalRecordStore({ dir });
  await store.open();
  try {
    return {
      ids: Array.from(store.values(collection), (r) => r.id),
      truncatedBytes: store.stats.truncatedBytes,
      replayed: store.stats.replayedBatches,
    };
  } finally {
    await store.close();
  }
}

/** An open journal store snapshotting every `snapshotEvery` mutations, with what it reports. */
export async function watchedStore(
  dir: string,
  snapshotEvery: number,
): Promise<{ store: JournalRecordStore; errors: RecordStoreError[]; recoveries: SnapshotRecovery[] }> {
  const errors: RecordStoreError[] = [];
  const recoveries: SnapshotRecovery[] = [];
  const store = new JournalRecordStore({
    dir,
    snapshotEvery,
    onSnapshotError: (e) => errors.push(e),
    onSnapshotRecovered: (r) => recoveries.push(r),
  });
  await store.open();
  return { store, errors, recoveries };
}

/** Commits users `from`..`to`, one acknowledged commit each. */
export async function commitUsers(store: JournalRecordStore, from: number, to: number): Promise<void> {
  for (let id = from; id <= to; id++) await store.commit([putUser(id)]);
}
