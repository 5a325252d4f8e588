/**
 * A batch whose journal write fails is never left visible: it is taken back from memory (with
 * every batch queued after it), a reader that saw it learns so from `settled()`, the ids it used
 * are never handed out again, and the store writes again by itself, without a restart, once the
 * disk takes writes (the torn tail is cut first). Faults are injected in `FileHandle.write`.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JournalRecordStore } from '../../../src/storage/journal/store.js';
import type { RecordStoreError } from '../../../src/storage/record-store.js';
import { until } from '../../helpers/poll.js';
import { commitUsers, journalFile, putUser, range, reopenedIds } from '../store-helpers.js';
import { useTempDirs } from '../temp-dirs.js';
import { isJournalLineOf, withWriteFaults } from '../write-faults.js';

const tempDir = useTempDirs('journal-rollback');
const outcome = (p: Promise<void>): Promise<unknown> =>
  p.then(
    () => 'acknowledged',
    (err: unknown) => (err as RecordStoreError).code,
  );

async function openStore(dir: string, probeIntervalMs = 60_000) {
  const writeErrors: RecordStoreError[] = [];
  const recoveries: string[] = [];
  const store = new JournalRecordStore({
    dir,
    probeIntervalMs,
    onWriteError: (e) => writeErrors.push(e),
    onWriteRecovered: (m) => recoveries.push(m),
  });
  await store.open();
  return { store, writeErrors, recoveries };
}

describe('JournalRecordStore: a rejected write is taken back', () => {
  it('takes back puts, updates and deletes of the failed group and of everything queued after it', async () => {
    const dir = await tempDir();
    const { store } = await openStore(dir);
    await commitUsers(store, 1, 3);
    const before = Array.from(store.values('users'));
    const results = await withWriteFaults(await tempDir(), { tear: (t) => isJournalLineOf(t, 4) }, async () => {
      // One tick: one group. The second commit changes records the first one did not touch.
      const a = outcome(store.commit([putUser(4)]));
      const b = outcome(
        store.commit([
          { op: 'put', collection: 'users', record: { id: 2, name: 'changed' } },
          { op: 'delete', collection: 'users', id: 3 },
        ]),
      );
      expect(store.get('users', 4)).toBeDefined(); // applied at once (check-then-commit stays race free)
      return Promise.all([a, b]);
    });
    expect(results).toEqual(['ERR_STORE_FULL', 'ERR_STORE_FULL']);
    expect(Array.from(store.values('users'))).toEqual(before);
    expect(store.size('users')).toBe(3);
    expect(store.rollbacks).toBe(1);
    await store.close();
    expect((await reopenedIds(dir)).ids).toEqual(range(1, 3));
  });

  it('settled() tells a reader that what it read was taken back, and is undefined when nothing is pending', async () => {
    const dir = await tempDir();
    const { store } = await openStore(dir);
    await commitUsers(store, 1, 2);
    expect(store.settled()).toBeUndefined();
    const seen = await withWriteFaults(await tempDir(), { tear: (t) => isJournalLineOf(t, 3) }, async () => {
      const write = outcome(store.commit([putUser(3)]));
      const read = store.get('users', 3); // a reader sees the pending batch...
      const ok = await store.settled(); // ...and waits before answering
      await write;
      return { read, ok };
    });
    expect(seen.read).toEqual({ id: 3, name: 'user-3' });
    expect(seen.ok).toBe(false);
    expect(store.settled()).toBeUndefined();
    const good = store.commit([putUser(4)]);
    expect(await store.settled()).toBe(true);
    await good;
    await store.close();
  });

  it('never hands out an id that a rejected batch used, in this process or after a restart', async () => {
    const dir = await tempDir();
    const { store } = await openStore(dir);
    const first = await store.allocateId('users');
    await store.commit([putUser(first)]);
    const refused = await store.allocateId('users');
    const result = await withWriteFaults(await tempDir(), { full: () => true }, () => outcome(store.commit([putUser(refused)])));
    expect(result).toBe('ERR_STORE_FULL');
    expect(store.get('users', refused)).toBeUndefined();
    const next = await store.allocateId('users');
    expect(next).toBeGreaterThan(refused);
    await store.close(); // persists the counters the rejected line carried
    const { store: reopened } = await openStore(dir);
    expect(await reopened.allocateId('users')).toBeGreaterThan(next);
    expect(reopened.get('users', refused)).toBeUndefined();
    await reopened.close();
  });

  it('heals by itself: the next commit cuts the torn tail, is durable, and the failure is reported once with its errno', async () => {
    const dir = await tempDir();
    const { store, writeErrors, recoveries } = await openStore(dir);
    await commitUsers(store, 1, 2);
    const file = join(dir, journalFile(1));
    const good = (await stat(file)).size;
    let full = true;
    await withWriteFaults(await tempDir(), { tear: (t) => isJournalLineOf(t, 3), full: () => full }, async () => {
      expect(await outcome(store.commit([putUser(3)]))).toBe('ERR_STORE_FULL');
      expect(await outcome(store.commit([putUser(4)]))).toBe('ERR_STORE_FULL'); // still full
      expect(store.writeStatus()).toMatchObject({ writable: false, code: 'ERR_STORE_FULL', reason: expect.stringContaining('ENOSPC') });
      full = false; // space freed
      expect(await outcome(store.commit([putUser(5)]))).toBe('acknowledged');
    });
    expect(store.writeStatus()).toEqual({ writable: true });
    expect(writeErrors.map((e) => e.message)).toEqual([expect.stringContaining('ENOSPC')]);
    expect(recoveries).toEqual([expect.stringMatching(/^journal writable again after \d+ s$/)]);
    await store.close();
    const reopened = await reopenedIds(dir);
    expect(reopened).toMatchObject({ ids: [1, 2, 5], truncatedBytes: 0 });
    expect((await stat(file)).size).toBeGreaterThan(good);
  });

  it('heals without any client write: a probe line finds the disk writable again', async () => {
    const dir = await tempDir();
    const { store, recoveries } = await openStore(dir, 10);
    await commitUsers(store, 1, 1);
    let full = true;
    await withWriteFaults(await tempDir(), { full: () => full }, async () => {
      expect(await outcome(store.commit([putUser(2)]))).toBe('ERR_STORE_FULL');
      full = false;
      await until(() => store.writeStatus().writable, 'the probe to find the disk writable');
    });
    expect(recoveries).toHaveLength(1);
    await store.close();
    expect((await reopenedIds(dir)).ids).toEqual([1]);
  });
});
