/**
 * Rotation to the next journal generation when a file of that name is already there. An EMPTY
 * one is what a failed earlier attempt leaves when its clean-up also failed (created, directory
 * sync failed, rm failed): it must not block every later rotation on EEXIST. A non-empty one is
 * never touched. Real files in temp dirs; the leftover is made by hand.
 */
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeLine } from '../../../src/storage/journal/format.js';
import { until } from '../../helpers/poll.js';
import { useTempDirs } from '../temp-dirs.js';
import { commitUsers, journalFile, putUser, range, reopenedIds, watchedStore } from '../store-helpers.js';

const tempDir = useTempDirs('journal-rotation');
const EVERY = 5;

describe('JournalRecordStore rotation over a leftover next journal', () => {
  it('reuses an empty leftover next journal instead of failing on EEXIST', async () => {
    const dir = await tempDir();
    const { store, errors } = await watchedStore(dir, EVERY);
    await writeFile(join(dir, journalFile(2)), ''); // left behind by a failed attempt

    await commitUsers(store, 1, EVERY); // trigger: rotation to journal 2, snapshot 2
    await until(() => store.stats.snapshots === 1, 'the snapshot');
    expect(errors).toEqual([]);
    expect(store.health()).toMatchObject({ snapshotFailures: 0 });
    expect((await readdir(dir)).sort()).toEqual([journalFile(2), 'snapshot.json']);

    await commitUsers(store, EVERY + 1, EVERY + 2); // appended to the reused journal
    await store.close();
    // The reused file holds the new lines (and id EVERY when it was queued as the rotation ran).
    const lines = (await readFile(join(dir, journalFile(2)), 'utf8')).trimEnd().split('\n');
    expect(lines.slice(-2).map((l) => /"id":(\d+)/.exec(l)?.[1])).toEqual([`${EVERY + 1}`, `${EVERY + 2}`]);
    expect((await reopenedIds(dir)).ids).toEqual(range(1, EVERY + 2));
  });

  it('keeps rotating after the leftover: later generations are created normally', async () => {
    const dir = await tempDir();
    const { store, errors } = await watchedStore(dir, EVERY);
    await writeFile(join(dir, journalFile(2)), '');
    await commitUsers(store, 1, EVERY);
    await until(() => store.stats.snapshots === 1, 'the first snapshot');
    await commitUsers(store, EVERY + 1, 2 * EVERY);
    await until(() => store.stats.snapshots === 2, 'the second snapshot');
    expect(errors).toEqual([]);
    expect((await readdir(dir)).sort()).toEqual([journalFile(3), 'snapshot.json']);
    await store.close();
    expect((await reopenedIds(dir)).ids).toEqual(range(1, 2 * EVERY));
  });

  it('never touches a non-empty file in the next journal’s place: the rotation fails', async () => {
    const dir = await tempDir();
    const { store, errors } = await watchedStore(dir, EVERY);
    const foreign = encodeLine(JSON.stringify([putUser(99)]), []);
    await writeFile(join(dir, journalFile(2)), foreign);

    await commitUsers(store, 1, EVERY);
    await until(() => errors.length === 1, 'the rotation failure');
    expect(errors[0]).toMatchObject({ code: 'ERR_STORE_SNAPSHOT_FAILED', cause: { code: 'EEXIST' } });
    expect(errors[0]?.message).toMatch(/^journal rotation failed while creating /);
    expect(errors[0]?.message).toContain(join(dir, journalFile(2)));
    expect(errors[0]?.message).not.toContain('snapshot failed');
    expect(await readFile(join(dir, journalFile(2)), 'utf8')).toBe(foreign);
    // The store did not fail and kept appending to journal 1.
    await commitUsers(store, EVERY + 1, EVERY + 1);
    await store.close();
    const lines = (await readFile(join(dir, journalFile(1)), 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(EVERY + 1);
    expect(await readFile(join(dir, journalFile(2)), 'utf8')).toBe(foreign);

    await rm(join(dir, journalFile(2))); // the operator removes the stranger
    expect((await reopenedIds(dir)).ids).toEqual(range(1, EVERY + 1));
  });
});
