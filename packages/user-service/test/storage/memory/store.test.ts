import { describe, expect, it } from 'vitest';
import { MemoryRecordStore, createRecordStore } from '../../../src/storage/index.js';
import { describeRecordStoreContract } from '../record-store-contract.js';

describeRecordStoreContract('MemoryRecordStore', async () => new MemoryRecordStore());

describe('MemoryRecordStore', () => {
  it('applies a commit before returning the promise and counts it', async () => {
    const store = createRecordStore('memory');
    await store.open();
    const pending = store.commit([{ op: 'put', collection: 'users', record: { id: 1 } }]);
    expect(store.get('users', 1)).toEqual({ id: 1 });
    await pending;
    expect(store.stats).toMatchObject({ commits: 1, mutations: 1, writes: 0, fsyncs: 0 });
    await store.close();
  });
});
