/**
 * Snapshot failures of the journal store: reported at the start of a streak (and again when the
 * journal doubled, see snapshot-report-growth.test.ts) through the store's reporters, never
 * losing an acknowledged write, retried only at the next normal trigger, and followed by one
 * recovery report and a compaction once a snapshot succeeds again.
 *
 * Failures are real file-system errors: a directory sits where a file must go. (chmod would not
 * do: the tests run as root, which ignores permissions.)
 */
import { readFile, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JournalRecordStore } from '../../../src/storage/index.js';
import { until } from '../../helpers/poll.js';
import { useTempDirs } from '../temp-dirs.js';
import { commitUsers, journalFile, putUser, range, reopenedIds, watchedStore } from '../store-helpers.js';
import { obstruct } from '../write-faults.js';

const tempDir = useTempDirs('journal-snapshot-failure');
const EVERY = 5;

/** Total size of the journal files in `dir`. */
async function journalSizes(dir: string): Promise<number> {
  const names = (await readdir(dir)).filter((n) => n.startsWith('journal-'));
  const sizes = await Promise.all(names.map(async (n) => (await stat(join(dir, n))).size));
  return sizes.reduce((a, b) => a + b, 0);
}

describe('JournalRecordStore snapshot failures', () => {
  it.each([
    ['the snapshot file is a directory (rename fails)', 'snapshot.json'],
    ['the snapshot temp file is a directory (open fails)', 'snapshot.json.tmp'],
  ])('reports the start of a streak when %s, and keeps every write durable', async (_, name) => {
    const dir = await tempDir();
    const { store, errors, recoveries } = await watchedStore(dir, EVERY);
    const blocked = await obstruct(dir, name);

    await commitUsers(store, 1, EVERY); // reaches the trigger: rotation to journal 2, snapshot fails
    await until(() => errors.length === 1, 'the failure report');
    const firstBytes = store.health().journalBytes;
    expect(errors[0]).toMatchObject({ name: 'RecordStoreError', code: 'ERR_STORE_SNAPSHOT_FAILED' });
    expect(errors[0]?.message).toContain(join(dir, 'snapshot.json'));
    expect(errors[0]?.message).toContain(blocked);
    expect(errors[0]?.cause).toMatchObject({ code: 'EISDIR' });
    expect(store.health()).toEqual({
      snapshotFailures: 1,
      snapshotError: errors[0]?.message,
      journalBytes: await journalSizes(dir),
    });
    // The rename failure must not leave a full copy of the state behind (space on a full disk).
    if (name === 'snapshot.json') expect(await readdir(dir)).not.toContain('snapshot.json.tmp');

    // Below the next trigger nothing is retried: no new generation, no new attempt.
    await commitUsers(store, EVERY + 1, 2 * EVERY - 1);
    expect(store.health().snapshotFailures).toBe(1);
    expect((await readdir(dir)).filter((n) => n.startsWith('journal-')).sort()).toEqual([journalFile(1), journalFile(2)]);

    // The next trigger retries once and fails again. Equal-sized triggers have doubled the
    // journal by then, so it is reported again, as such (growth, not a new streak).
    await commitUsers(store, 2 * EVERY, 2 * EVERY);
    await until(() => store.health().snapshotFailures === 2, 'the second attempt');
    expect(store.health().journalBytes).toBeGreaterThanOrEqual(2 * firstBytes);
    expect(errors).toHaveLength(2);
    expect(errors[1]?.message).toMatch(/still failing after 2 attempts, the journal grew from \d+ to \d+ bytes/);
    expect(recoveries).toHaveLength(0);
    expect(store.stats.snapshots).toBe(0);
    expect(store.health().journalBytes).toBe(await journalSizes(dir));
    await store.close();
    // close() waited for any snapshot still running: exactly the two trigger attempts were made,
    // none in the background below a trigger (the check above could run before one was counted).
    expect(store.health().snapshotFailures).toBe(2);
    expect(errors).toHaveLength(2);

    // Every acknowledged write is in the journals (the operator clears the obstruction first:
    // a directory named like the snapshot is unreadable for recovery too).
    await rm(blocked, { recursive: true });
    const again = await reopenedIds(dir);
    expect(again.ids).toEqual(range(1, 2 * EVERY));
    expect(again.replayed).toBe(2 * EVERY);
  });

  it('reports recovery once when a later snapshot succeeds, and then compacts the journals', async () => {
    const dir = await tempDir();
    const { store, errors, recoveries } = await watchedStore(dir, EVERY);
    const blocked = await obstruct(dir, 'snapshot.json');
    await commitUsers(store, 1, EVERY);
    await until(() => errors.length === 1, 'the failure report');

    await rm(blocked, { recursive: true }); // the operator frees the path
    await commitUsers(store, EVERY + 1, 2 * EVERY); // next trigger: journal 3 + snapshot 3
    await until(() => recoveries.length === 1, 'the recovery report');
    const file = join(dir, 'snapshot.json');
    expect(recoveries[0]).toMatchObject({ file, generation: 3, failures: 1 });
    expect(recoveries[0]?.message).toContain(file);
    expect(errors).toHaveLength(1);
    expect(store.stats.snapshots).toBe(1);
    expect((await readdir(dir)).sort()).toEqual([journalFile(3), 'snapshot.json']);
    expect(store.health()).toEqual({ snapshotFailures: 0, journalBytes: await journalSizes(dir) });
    const snapshot = JSON.parse(await readFile(file, 'utf8')) as { generation: number };
    expect(snapshot.generation).toBe(3);

    // A success after a success is not news: no further recovery report.
    await commitUsers(store, 2 * EVERY + 1, 3 * EVERY);
    await until(() => store.stats.snapshots === 2, 'the next snapshot');
    expect(recoveries).toHaveLength(1);
    await store.close();

    const again = await reopenedIds(dir);
    expect(again.ids).toEqual(range(1, 3 * EVERY));
  });

  it('keeps appending to the current journal when the next one cannot be created', async () => {
    const dir = await tempDir();
    const { store, errors, recoveries } = await watchedStore(dir, EVERY);
    const blocked = await obstruct(dir, journalFile(2)); // rotation's open(..., 'wx') gets EEXIST

    await commitUsers(store, 1, 2 * EVERY); // two triggers, two failed rotations
    await until(() => store.health().snapshotFailures === 2, 'two failed rotations');
    expect(errors).toHaveLength(2); // the start of the streak, then the journal had doubled
    expect(errors[0]?.message).toMatch(/^journal rotation failed while creating /);
    expect(errors[0]?.message).toContain(blocked);
    expect(errors[0]?.cause).toMatchObject({ code: 'EEXIST' });
    expect(store.stats.commits).toBe(2 * EVERY); // the store did not fail
    const lines = (await readFile(join(dir, journalFile(1)), 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(2 * EVERY);

    await rm(blocked, { recursive: true });
    await commitUsers(store, 2 * EVERY + 1, 3 * EVERY);
    await until(() => recoveries.length === 1, 'the recovery report');
    expect(recoveries[0]).toMatchObject({ generation: 2, failures: 2 });
    expect((await readdir(dir)).sort()).toEqual([journalFile(2), 'snapshot.json']);
    await store.close();

    expect((await reopenedIds(dir)).ids).toEqual(range(1, 3 * EVERY));
  });

  it('survives a reporter that throws: the store keeps working and health() still tells', async () => {
    const dir = await tempDir();
    let calls = 0;
    const store = new JournalRecordStore({
      dir,
      snapshotEvery: EVERY,
      onSnapshotError: () => {
        calls++;
        throw new Error('logger is broken');
      },
    });
    await store.open();
    await obstruct(dir, 'snapshot.json');
    await commitUsers(store, 1, EVERY);
    await until(() => store.health().snapshotFailures === 1, 'the failed attempt');
    expect(calls).toBe(1);
    expect(store.health().snapshotError).toMatch(/journal snapshot failed/);
    await expect(store.commit([putUser(EVERY + 1)])).resolves.toBeUndefined();
    await store.close();
    // The write after the broken report is durable.
    await rm(join(dir, 'snapshot.json'), { recursive: true });
    expect((await reopenedIds(dir)).ids).toEqual(range(1, EVERY + 1));
  });

  it('falls back to a process warning when no reporter is given', async () => {
    const dir = await tempDir();
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => void warnings.push(w);
    process.on('warning', onWarning);
    try {
      const store = new JournalRecordStore({ dir, snapshotEvery: EVERY });
      await store.open();
      await obstruct(dir, 'snapshot.json');
      await commitUsers(store, 1, EVERY);
      await until(() => warnings.length > 0, 'the warning');
      expect(warnings[0]).toMatchObject({ code: 'ERR_STORE_SNAPSHOT_FAILED' });
      expect(warnings[0]?.message).toContain(join(dir, 'snapshot.json'));
      await store.close();
    } finally {
      process.off('warning', onWarning);
    }
  });
});
