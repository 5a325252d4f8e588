import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JournalRecordStore, createRecordStore, type Mutation } from '../../../src/storage/index.js';
import { describeRecordStoreContract } from '../record-store-contract.js';
import { useTempDirs } from '../temp-dirs.js';

const tempDir = useTempDirs('journal-store');
const put = (id: number, name = `user-${id}`): Mutation => ({
  op: 'put',
  collection: 'users',
  record: { id, name },
});

describeRecordStoreContract('JournalRecordStore', async () => new JournalRecordStore({ dir: await tempDir() }));

async function reopen(dir: string): Promise<JournalRecordStore> {
  const store = new JournalRecordStore({ dir });
  await store.open();
  return store;
}

describe('JournalRecordStore durability', () => {
  it('keeps committed records, with their exact content, across a restart', async () => {
    const dir = await tempDir();
    const first = await reopen(dir);
    await first.commit([put(1), put(2, 'Zoë "quoted" \n newline ✓')]);
    await first.commit([{ op: 'delete', collection: 'users', id: 1 }]);
    await first.close();

    const second = await reopen(dir);
    expect(Array.from(second.values('users'))).toEqual([{ id: 2, name: 'Zoë "quoted" \n newline ✓' }]);
    expect(second.stats.replayedBatches).toBe(2);
    await second.close();
  });

  it('fsyncs the journal line before commit() resolves', async () => {
    const dir = await tempDir();
    const store = await reopen(dir);
    const before = store.stats.fsyncs;
    await store.commit([put(1)]);
    expect(store.stats.fsyncs).toBe(before + 1);
    const journal = await readFile(join(dir, 'journal-00000001.jsonl'), 'utf8');
    expect(journal).toMatch(/^[0-9a-f]{8} \{"m":\[\{"op":"put","collection":"users","record":\{"id":1,/);
    await store.close();
  });

  it('never reuses ids after a restart: not deleted ones, not allocated-but-uncommitted ones', async () => {
    const dir = await tempDir();
    const first = await reopen(dir);
    const a = await first.allocateId('users');
    await first.commit([put(a), { op: 'delete', collection: 'users', id: a }]);
    const unused = await first.allocateId('users'); // handed out, never committed
    await first.close();

    const second = await reopen(dir);
    expect(second.size('users')).toBe(0);
    expect(await second.allocateId('users')).toBe(unused + 1);
    await second.close();
  });

  it('skips fsync entirely with { fsync: false } but still persists on close', async () => {
    const dir = await tempDir();
    const store = createRecordStore('journal', dir, { fsync: false });
    await store.open();
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.commit([put(i + 1)])));
    expect(store.stats.fsyncs).toBe(0);
    await store.close();
    expect(store.stats.fsyncs).toBe(1); // the final sync of close()
    const again = await reopen(dir);
    expect(again.size('users')).toBe(20);
    await again.close();
  });

  it('refuses a second store on the same directory in one process', async () => {
    const dir = await tempDir();
    const first = await reopen(dir);
    await expect(reopen(dir)).rejects.toMatchObject({ code: 'ERR_STORE_LOCKED' });
    await first.close();
    const second = await reopen(dir); // released by close()
    await second.close();
  });

  it('flushes commits still queued when close() is called', async () => {
    const dir = await tempDir();
    const store = await reopen(dir);
    const pending = Array.from({ length: 50 }, (_, i) => store.commit([put(i + 1)]));
    await store.close();
    await Promise.all(pending);
    const again = await reopen(dir);
    expect(again.size('users')).toBe(50);
    await again.close();
  });

  it('fails closed when the journal cannot be written: the batch and all later ones reject', async () => {
    const dir = await tempDir();
    const store = await reopen(dir);
    // Simulate a dying disk: close the journal behind the store's back, so write() gets EBADF.
    await (store as unknown as { journal: { close(): Promise<void> } }).journal.close();
    await expect(store.commit([put(1)])).rejects.toMatchObject({ code: 'ERR_STORE_FAILED' });
    await expect(store.commit([put(2)])).rejects.toMatchObject({ code: 'ERR_STORE_FAILED' });
    await store.close();
  });
});

describe('JournalRecordStore group commit', () => {
  it('writes 200 concurrent commits with far fewer fsyncs than commits', async () => {
    const store = await reopen(await tempDir());
    const base = store.stats.fsyncs;
    const started = performance.now();
    await Promise.all(Array.from({ length: 200 }, (_, i) => store.commit([put(i + 1)])));
    const elapsed = performance.now() - started;
    const fsyncs = store.stats.fsyncs - base;
    expect(store.stats.commits).toBe(200);
    expect(fsyncs).toBeGreaterThanOrEqual(1);
    expect(fsyncs).toBeLessThanOrEqual(10);
    expect(store.size('users')).toBe(200);
    console.info(`group commit: 200 commits, ${fsyncs} fsync(s), ${store.stats.writes} write(s), ${elapsed.toFixed(1)} ms`);
    await store.close();
  });

  it('batches commits that arrive while an fsync is in flight into the next single write', async () => {
    const store = await reopen(await tempDir());
    const first = store.commit([put(1)]);
    await Promise.resolve(); // the writer has taken commit 1 and is now writing + fsyncing it
    const wave = Array.from({ length: 50 }, (_, i) => store.commit([put(i + 2)]));
    await Promise.all([first, ...wave]);
    expect(store.stats.writes).toBe(2);
    expect(store.stats.commits).toBe(51);
    await store.close();
  });

  it('keeps journal order equal to commit order under concurrency', async () => {
    const dir = await tempDir();
    const store = await reopen(dir);
    const writes = Array.from({ length: 100 }, (_, i) => store.commit([put(1, `v${i}`)]));
    await Promise.all(writes);
    expect(store.get('users', 1)).toEqual({ id: 1, name: 'v99' });
    await store.close();
    const again = await reopen(dir);
    expect(again.get('users', 1)).toEqual({ id: 1, name: 'v99' });
    await again.close();
  });
});
