/**
 * A journal write that fails (a torn write on a full disk) is rejected and taken back from
 * memory, and the store neither rotates nor snapshots until the torn tail is cut: otherwise it
 * would move the torn line out of the newest journal (where recovery could no longer cut it) and
 * persist the rejected batch through a snapshot.
 * Also: a snapshot whose captured state holds a batch still queued is only published once that
 * batch is durable, and dropped if its write fails.
 *
 * Faults are injected by patching `FileHandle.prototype.write` inside one test at a time (see
 * write-faults.ts); the files are real, in temp dirs.
 */
import { mkdir, readFile, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../temp-dirs.js';
import { commitUsers, journalFile, putUser, range, reopenedIds, watchedStore } from '../store-helpers.js';
import { isJournalLineOf, withWriteFaults } from '../write-faults.js';

const tempDir = useTempDirs('journal-write-failure');
const EVERY = 5;
const settled = (p: Promise<void>): Promise<unknown> =>
  p.then(
    () => 'acknowledged',
    (err: unknown) => err,
  );

describe('JournalRecordStore after a failed journal write', () => {
  it.each([
    ['a snapshot would succeed', false],
    ['the snapshot would fail too (snapshot.json is a directory)', true],
  ])(
    'a torn write at the snapshot trigger neither rotates nor snapshots, and the torn line is cut off at once (%s)',
    async (_, obstructed) => {
      const dir = await tempDir();
      const { store, errors } = await watchedStore(dir, EVERY);
      await commitUsers(store, 1, EVERY - 1);
      if (obstructed) await mkdir(join(dir, 'snapshot.json', 'x'), { recursive: true });
      const file = join(dir, journalFile(1));
      const good = (await stat(file)).size;

      // The EVERY-th commit reaches the snapshot trigger; its line is torn and the write fails.
      const result = await withWriteFaults(await tempDir(), { tear: (t) => isJournalLineOf(t, EVERY) }, () =>
        settled(store.commit([putUser(EVERY)])),
      );
      expect(result).toMatchObject({ code: 'ERR_STORE_FULL', cause: { code: 'ENOSPC' } });
      expect(store.get('users', EVERY)).toBeUndefined(); // taken back from memory
      expect(store.writeStatus()).toMatchObject({ writable: false, code: 'ERR_STORE_FULL' });

      // No journal 2, no snapshot, nothing reported: the torn line stays in the newest journal.
      const expected = obstructed ? [journalFile(1), 'snapshot.json'] : [journalFile(1)];
      expect((await readdir(dir)).sort()).toEqual(expected);
      expect(store.stats.snapshots).toBe(0);
      expect(errors).toEqual([]);
      expect((await stat(file)).size).toBe(good); // the torn line was cut off at once

      await store.close();
      if (obstructed) await rm(join(dir, 'snapshot.json'), { recursive: true });
      expect(await reopenedIds(dir)).toEqual({ ids: range(1, EVERY - 1), truncatedBytes: 0, replayed: EVERY - 1 });
      expect((await stat(file)).size).toBe(good);
    },
  );

  it('drops the snapshot whose captured state holds a batch that is then rejected, and takes the batch back', async () => {
    const dir = await tempDir();
    const { store, errors } = await watchedStore(dir, EVERY);
    await commitUsers(store, 1, EVERY - 1);
    let late: Promise<unknown> | undefined;
    const faults = {
      // While the trigger's line is written, commit one more batch: applied to memory now,
      // queued for the next group, so the rotation's capture holds it. Its write then tears.
      before: (t: string): void => {
        if (late === undefined && isJournalLineOf(t, EVERY)) late = settled(store.commit([putUser(EVERY + 1)]));
      },
      tear: (t: string): boolean => isJournalLineOf(t, EVERY + 1),
    };
    const lateResult = await withWriteFaults(await tempDir(), faults, async () => {
      await store.commit([putUser(EVERY)]);
      return late;
    });
    expect(lateResult).toMatchObject({ code: 'ERR_STORE_FULL', cause: { code: 'ENOSPC' } });
    expect(store.get('users', EVERY + 1)).toBeUndefined(); // captured, then taken back
    expect(store.rollbacks).toBe(1);
    await store.close();

    // Journal 2 was created (the rotation preceded the failure) but no snapshot was published.
    expect((await readdir(dir)).sort()).toEqual([journalFile(1), journalFile(2)]);
    expect(store.stats.snapshots).toBe(0);
    expect(errors).toEqual([]); // dropped, not a snapshot failure: its batch was rejected
    const { ids } = await reopenedIds(dir);
    expect(ids).toEqual(range(1, EVERY));
  });

  it('publishes the snapshot once a batch queued during the rotation is durable', async () => {
    const dir = await tempDir();
    const { store, errors } = await watchedStore(dir, EVERY);
    await commitUsers(store, 1, EVERY - 1);
    let late: Promise<unknown> | undefined;
    const before = (t: string): void => {
      if (late === undefined && isJournalLineOf(t, EVERY)) late = settled(store.commit([putUser(EVERY + 1)]));
    };
    const lateResult = await withWriteFaults(await tempDir(), { before }, async () => {
      await store.commit([putUser(EVERY)]);
      return late;
    });
    expect(lateResult).toBe('acknowledged');
    await store.close();

    expect(store.stats.snapshots).toBe(1);
    expect(errors).toEqual([]);
    expect((await readdir(dir)).sort()).toEqual([journalFile(2), 'snapshot.json']);
    const snapshot = JSON.parse(await readFile(join(dir, 'snapshot.json'), 'utf8')) as {
      generation: number;
      collections: Array<{ records: Array<{ id: number }> }>;
    };
    expect(snapshot.generation).toBe(2);
    expect(snapshot.collections[0]?.records.map((r) => r.id)).toEqual(range(1, EVERY + 1));
    expect((await reopenedIds(dir)).ids).toEqual(range(1, EVERY + 1));
  });
});
