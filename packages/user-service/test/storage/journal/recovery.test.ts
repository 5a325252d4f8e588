import { appendFile, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JournalRecordStore, type Mutation } from '../../../src/storage/index.js';
import { encodeLine } from '../../../src/storage/journal/format.js';
import { until } from '../../helpers/poll.js';
import { range } from '../store-helpers.js';
import { useTempDirs } from '../temp-dirs.js';

const tempDir = useTempDirs('journal-recovery');
const put = (id: number, name = `user-${id}`): Mutation => ({
  op: 'put',
  collection: 'users',
  record: { id, name },
});
const JOURNAL_1 = 'journal-00000001.jsonl';
const JOURNAL_2 = 'journal-00000002.jsonl';
const JOURNAL_3 = 'journal-00000003.jsonl';

async function opened(dir: string, snapshotEvery?: number): Promise<JournalRecordStore> {
  const store = new JournalRecordStore({ dir, snapshotEvery });
  await store.open();
  return store;
}

/** Polls until the background snapshots have landed; bounded in time. */
const waitForSnapshots = (store: JournalRecordStore, count: number): Promise<void> =>
  until(() => store.stats.snapshots >= count, `${count} snapshots`);

/** A store with users 1..3 committed as three journal lines, closed. */
async function threeLines(): Promise<string> {
  const dir = await tempDir();
  const store = await opened(dir);
  for (const id of [1, 2, 3]) await store.commit([put(id)]);
  await store.close();
  return dir;
}

describe('JournalRecordStore recovery', () => {
  it('snapshots every N mutations, drops covered journals and recovers snapshot + journal', async () => {
    const dir = await tempDir();
    const store = await opened(dir, 10);
    // Wait for each snapshot: while one is being written the next rotation is deferred.
    for (let id = 1; id <= 10; id++) await store.commit([put(id)]);
    await waitForSnapshots(store, 1);
    for (let id = 11; id <= 20; id++) await store.commit([put(id)]);
    await waitForSnapshots(store, 2);
    for (let id = 21; id <= 25; id++) await store.commit([put(id)]);
    await store.commit([{ op: 'delete', collection: 'users', id: 3 }]);
    await store.close();

    const files = (await readdir(dir)).sort();
    expect(files).toEqual(['journal-00000003.jsonl', 'snapshot.json']);
    const snapshot = JSON.parse(await readFile(join(dir, 'snapshot.json'), 'utf8')) as { generation: number };
    expect(snapshot.generation).toBe(3);

    const again = await opened(dir, 10);
    expect(again.size('users')).toBe(24);
    expect(again.get('users', 3)).toBeUndefined();
    expect(again.get('users', 25)).toEqual({ id: 25, name: 'user-25' });
    // 21..25 and the delete; plus id 20 when its commit was queued as the rotation ran: the
    // snapshot then holds it AND journal 3 replays it, which is harmless (idempotent).
    expect(again.stats.replayedBatches).toBeGreaterThanOrEqual(6);
    expect(again.stats.replayedBatches).toBeLessThanOrEqual(7);
    expect(await again.allocateId('users')).toBe(26);
    await again.close();
  });

  it('with snapshotGrowth, also waits for that fraction of the records of the last snapshot, after a restart too', async () => {
    const dir = await tempDir();
    const open = async (): Promise<JournalRecordStore> => {
      const store = new JournalRecordStore({ dir, snapshotEvery: 10, snapshotGrowth: 0.5 });
      await store.open();
      return store;
    };
    // close() waits for a running snapshot, so the counts below are final.
    let store = await open();
    await store.commit(range(1, 100).map((id) => put(id))); // 100 mutations: a snapshot of 100 records
    for (let id = 101; id <= 149; id++) await store.commit([put(id)]); // 49: past 10, short of 50
    await store.close();
    expect(store.stats.snapshots).toBe(1);

    // Recovered: 149 records, 49 mutations since the snapshot; the next one waits for 75.
    store = await open();
    for (let id = 150; id <= 174; id++) await store.commit([put(id)]); // 74 in all
    await store.close();
    expect(store.stats.snapshots).toBe(0);

    store = await open(); // 174 records: 87
    for (let id = 175; id <= 194; id++) await store.commit([put(id)]); // 94 in all
    await store.close();
    expect(store.stats.snapshots).toBe(1);
    expect(() => new JournalRecordStore({ dir, snapshotGrowth: 2 })).toThrow(/snapshotGrowth must be from 0 to 1/);
  });

  it('recovers ascending id order after out-of-order commits, from snapshot and journal', async () => {
    const dir = await tempDir();
    const store = await opened(dir, 4);
    for (const id of [5, 3, 9, 1]) await store.commit([put(id)]); // snapshot taken after these
    await waitForSnapshots(store, 1);
    for (const id of [8, 2]) await store.commit([put(id)]);
    await store.close();
    const again = await opened(dir, 4);
    expect(Array.from(again.values('users'), (u) => u.id)).toEqual([1, 2, 3, 5, 8, 9]);
    await again.close();
  });

  it('tolerates and truncates a torn last line (half a line written by hand)', async () => {
    const dir = await threeLines();
    const file = join(dir, JOURNAL_1);
    const good = (await stat(file)).size;
    const line = encodeLine(JSON.stringify([put(4)]), []);
    await appendFile(file, line.slice(0, Math.floor(line.length / 2)));

    const store = await opened(dir);
    expect(Array.from(store.values('users'), (u) => u.id)).toEqual([1, 2, 3]);
    expect(store.stats.truncatedBytes).toBe(Math.floor(line.length / 2));
    expect((await stat(file)).size).toBe(good);
    await store.commit([put(5)]); // appends after the cut, not after the garbage
    await store.close();

    const again = await opened(dir);
    expect(Array.from(again.values('users'), (u) => u.id)).toEqual([1, 2, 3, 5]);
    await again.close();
  });

  it('accepts a torn tail in journal g when every later journal is empty, cutting g', async () => {
    const dir = await threeLines();
    const file = join(dir, JOURNAL_1);
    const good = (await stat(file)).size;
    const line = encodeLine(JSON.stringify([put(4)]), []);
    const half = Math.floor(line.length / 2);
    await appendFile(file, line.slice(0, half));
    // A store that moved on without writing: journals 2 and 3 created, never written to.
    await writeFile(join(dir, JOURNAL_2), '');
    await writeFile(join(dir, JOURNAL_3), '');

    const store = await opened(dir);
    expect(Array.from(store.values('users'), (u) => u.id)).toEqual([1, 2, 3]);
    expect(store.stats.truncatedBytes).toBe(half);
    expect((await stat(file)).size).toBe(good); // cut at once, before anything lands in journal 3
    await store.commit([put(5)]); // appended to the newest journal
    await store.close();
    expect((await stat(join(dir, JOURNAL_2))).size).toBe(0);
    expect(await readFile(join(dir, JOURNAL_3), 'utf8')).toContain('"id":5');

    const again = await opened(dir);
    expect(Array.from(again.values('users'), (u) => u.id)).toEqual([1, 2, 3, 5]);
    expect(again.stats.truncatedBytes).toBe(0);
    await again.close();
  });

  it.each([
    ['journal 2 holds a batch', [JOURNAL_2]],
    ['journal 2 is empty but journal 3 holds a batch', [JOURNAL_3]],
  ])('refuses a torn tail in journal 1 when a later journal is not empty (%s)', async (_, written) => {
    const dir = await threeLines();
    const file = join(dir, JOURNAL_1);
    await appendFile(file, encodeLine(JSON.stringify([put(4)]), []).slice(0, 20));
    const damaged = await readFile(file);
    await writeFile(join(dir, JOURNAL_2), '');
    await writeFile(join(dir, JOURNAL_3), '');
    for (const name of written) await writeFile(join(dir, name), encodeLine(JSON.stringify([put(9)]), []));

    await expect(opened(dir)).rejects.toMatchObject({ code: 'ERR_STORE_CORRUPT', message: `${JOURNAL_1}: damaged tail` });
    expect(await readFile(file)).toEqual(damaged); // left for an operator to inspect
  });

  it('tolerates a complete last line with a bad checksum (nothing valid after it)', async () => {
    const dir = await threeLines();
    const file = join(dir, JOURNAL_1);
    const line = encodeLine(JSON.stringify([put(4)]), []).replace('user-4', 'user-X');
    await appendFile(file, `${line}\0\0\0`);
    const store = await opened(dir);
    expect(store.size('users')).toBe(3);
    expect(store.stats.truncatedBytes).toBe(line.length + 3);
    await store.close();
  });

  it('fails loudly on a damaged line followed by valid lines, leaving the file untouched', async () => {
    const dir = await threeLines();
    const file = join(dir, JOURNAL_1);
    const original = await readFile(file, 'utf8');
    await writeFile(file, original.replace('user-1', 'user-X'));
    const store = new JournalRecordStore({ dir });
    await expect(store.open()).rejects.toMatchObject({ code: 'ERR_STORE_CORRUPT' });
    expect(await readFile(file, 'utf8')).toBe(original.replace('user-1', 'user-X'));
    // A failed open releases the directory and leaves the instance closed.
    await expect(store.open()).rejects.toMatchObject({ code: 'ERR_STORE_CLOSED' });
    await writeFile(file, original);
    const again = await opened(dir);
    expect(again.size('users')).toBe(3);
    await again.close();
  });

  it('fails loudly on a line whose checksum matches but whose batch is malformed', async () => {
    const dir = await threeLines();
    await appendFile(join(dir, JOURNAL_1), encodeLine('[{"op":"put","collection":"users","record":{}}]', []));
    await expect(opened(dir)).rejects.toMatchObject({ code: 'ERR_STORE_CORRUPT' });
  });

  it('fails loudly on a damaged snapshot', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'snapshot.json'), '{"format":1,"generation":2,"collections":[');
    await expect(opened(dir)).rejects.toMatchObject({ code: 'ERR_STORE_CORRUPT' });
  });

  it('fails loudly when a journal generation is missing', async () => {
    const dir = await threeLines();
    await writeFile(join(dir, 'journal-00000003.jsonl'), encodeLine(JSON.stringify([put(9)]), []));
    await expect(opened(dir)).rejects.toMatchObject({ code: 'ERR_STORE_CORRUPT' });
  });

  it('replays every journal newer than the snapshot (crash between rotation and rename)', async () => {
    const dir = await threeLines();
    // Generation 2 was started but its snapshot never renamed into place: replay 1 then 2.
    const next = encodeLine(JSON.stringify([put(2, 'from gen 2'), put(4)]), [['users', 10]]);
    await writeFile(join(dir, 'journal-00000002.jsonl'), next);
    await writeFile(join(dir, 'snapshot.json.tmp'), '{"half":');
    const store = await opened(dir);
    expect(store.get('users', 2)).toEqual({ id: 2, name: 'from gen 2' });
    expect(store.size('users')).toBe(4);
    expect(await store.allocateId('users')).toBe(10); // the persisted counter wins over max id + 1
    await store.commit([put(5)]);
    await store.close();
    expect((await readdir(dir)).sort()).toEqual([JOURNAL_1, 'journal-00000002.jsonl']);
    expect(await readFile(join(dir, 'journal-00000002.jsonl'), 'utf8')).toContain('"id":5');
  });

  it('deletes journals a snapshot already covers (crash after rename, before cleanup)', async () => {
    const dir = await tempDir();
    const store = await opened(dir, 2);
    for (const id of [1, 2, 3]) await store.commit([put(id)]);
    await waitForSnapshots(store, 1);
    await store.close();
    await writeFile(join(dir, JOURNAL_1), encodeLine(JSON.stringify([put(99)]), []));
    const again = await opened(dir, 2);
    expect(again.get('users', 99)).toBeUndefined();
    expect(await readdir(dir)).not.toContain(JOURNAL_1);
    await again.close();
  });

  it('rejects open() when the directory path is a file', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'file'), 'x');
    await expect(opened(join(dir, 'file'))).rejects.toThrow(/EEXIST|ENOTDIR/);
  });
});
