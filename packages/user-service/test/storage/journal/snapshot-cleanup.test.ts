/**
 * After a snapshot is published, deleting the journals it covers is best effort: a journal that
 * cannot be deleted is not a failed snapshot (the snapshot is durable and a restart replays
 * only what follows it), and does not keep the others.
 */
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { until } from '../../helpers/poll.js';
import { useTempDirs } from '../temp-dirs.js';
import { commitUsers, journalFile, range, reopenedIds, watchedStore } from '../store-helpers.js';

const tempDir = useTempDirs('snapshot-cleanup');
const EVERY = 5;

describe('JournalRecordStore journal cleanup after a snapshot', () => {
  it('reports no failure when a covered journal cannot be deleted, and counts only the live journal', async () => {
    const dir = await tempDir();
    const { store, errors, recoveries } = await watchedStore(dir, EVERY);
    // A non-empty directory named like journal generation 0: rm without `recursive` fails on it.
    const stuck = join(dir, journalFile(0));
    await mkdir(stuck);
    await writeFile(join(stuck, 'keep'), 'x');

    await commitUsers(store, 1, EVERY); // the trigger: rotation to journal 2, snapshot of generation 2
    await until(() => store.stats.snapshots === 1, 'the snapshot');
    await store.close(); // waits for the snapshot's cleanup
    expect(errors).toEqual([]);
    expect(recoveries).toEqual([]);
    expect(store.health()).toEqual({
      snapshotFailures: 0,
      snapshotError: undefined,
      journalBytes: (await stat(join(dir, journalFile(2)))).size,
    });
    // Journal 1 went although journal 0 could not; the snapshot holds every write.
    const names = await readdir(dir);
    expect(names).toContain(journalFile(0));
    expect(names).not.toContain(journalFile(1));
    expect(names).toContain('snapshot.json');
    await rm(stuck, { recursive: true }); // so that reopening is about the snapshot
    expect((await reopenedIds(dir)).ids).toEqual(range(1, EVERY));
  });
});
