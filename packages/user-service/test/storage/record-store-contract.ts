/**
 * The RecordStore contract, run against every adapter (memory-store.test.ts,
 * journal-store.test.ts). An adapter that passes this suite can replace another one.
 */
import { afterEach, describe, expect, it as vitestIt } from 'vitest';
import type { Mutation, RecordStore, StoredRecord } from '../../src/storage/index.js';

interface User extends StoredRecord {
  name: string;
  tags?: string[];
}

const put = (id: number, fields: Record<string, unknown> = {}): Mutation => ({
  op: 'put',
  collection: 'users',
  record: { id, name: `user-${id}`, ...fields },
});
const del = (id: number): Mutation => ({ op: 'delete', collection: 'users', id });
const ids = (store: RecordStore, c = 'users'): number[] => Array.from(store.values(c), (r) => r.id);

/**
 * Registers the contract tests; `make` returns a fresh, unopened store. `notModelled` names the
 * tests a test double deliberately leaves out (reported as skipped, never silently passed; a
 * misspelt name just runs the test); real adapters pass none.
 */
export function describeRecordStoreContract(adapter: string, make: () => Promise<RecordStore>, notModelled: readonly string[] = []): void {
  const it = (name: string, fn: () => Promise<void> | void): void => (notModelled.includes(name) ? vitestIt.skip : vitestIt)(name, fn);
  describe(`RecordStore contract: ${adapter}`, () => {
    let store: RecordStore;
    const opened = async (): Promise<RecordStore> => {
      store = await make();
      await store.open();
      return store;
    };
    afterEach(async () => {
      await store?.close();
    });

    it('refuses every call before open()', async () => {
      store = await make();
      expect(() => store.get('users', 1)).toThrow(expect.objectContaining({ code: 'ERR_STORE_NOT_OPEN' }));
      await expect(store.allocateId('users')).rejects.toMatchObject({ code: 'ERR_STORE_NOT_OPEN' });
      await expect(store.commit([put(1)])).rejects.toMatchObject({ code: 'ERR_STORE_NOT_OPEN' });
    });

    it('allocates increasing ids per collection, starting at 1', async () => {
      const s = await opened();
      expect([await s.allocateId('users'), await s.allocateId('users'), await s.allocateId('groups')]).toEqual([1, 2, 1]);
    });

    it('stores a copy: later changes to the caller object do not leak in', async () => {
      const s = await opened();
      const record = { id: await s.allocateId('users'), name: 'Ada', tags: ['a'] };
      await s.commit([{ op: 'put', collection: 'users', record }]);
      record.name = 'Eve';
      record.tags.push('b');
      expect(s.get<User>('users', record.id)).toEqual({ id: 1, name: 'Ada', tags: ['a'] });
    });

    it('returns deep-frozen records: mutating them throws', async () => {
      const s = await opened();
      await s.commit([put(1, { tags: ['x'], nested: { a: 1 } })]);
      const user = s.get<User>('users', 1) as User;
      expect(() => {
        user.name = 'changed';
      }).toThrow(TypeError);
      expect(() => (user.tags as string[]).push('y')).toThrow(TypeError);
      expect(Object.isFrozen((user as unknown as { nested: object }).nested)).toBe(true);
    });

    it('normalises records exactly as JSON does', async () => {
      const s = await opened();
      await s.commit([put(1, { gone: undefined, when: new Date(0), n: Number.NaN })]);
      expect(s.get('users', 1)).toEqual({ id: 1, name: 'user-1', when: '1970-01-01T00:00:00.000Z', n: null });
    });

    it('keeps a __proto__ key as plain data without touching prototypes', async () => {
      const s = await opened();
      const record = JSON.parse('{"id":1,"__proto__":{"polluted":true}}') as StoredRecord;
      await s.commit([{ op: 'put', collection: 'users', record }]);
      expect(Object.getPrototypeOf(s.get('users', 1))).toBe(Object.prototype);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('lists values in ascending id order, whatever the commit order; updates keep their place', async () => {
      const s = await opened();
      const [a, b, c] = [await s.allocateId('users'), await s.allocateId('users'), await s.allocateId('users')];
      await s.commit([put(c)]);
      await s.commit([put(a)]);
      expect(ids(s)).toEqual([a, c]);
      await s.commit([put(b)]);
      await s.commit([put(a, { name: 'updated' })]);
      expect(ids(s)).toEqual([a, b, c]);
      expect(s.get<User>('users', a)?.name).toBe('updated');
      await s.commit([del(b)]);
      expect(ids(s)).toEqual([a, c]);
      expect(s.size('users')).toBe(2);
    });

    it('answers empty for an unknown collection', async () => {
      const s = await opened();
      expect(ids(s, 'nothing')).toEqual([]);
      expect(s.size('nothing')).toBe(0);
      expect(s.get('nothing', 1)).toBeUndefined();
    });

    it('applies a batch in order: put then delete of one id leaves nothing', async () => {
      const s = await opened();
      await s.commit([put(1), put(2), del(1), put(2, { name: 'last' })]);
      expect(s.get('users', 1)).toBeUndefined();
      expect(s.get<User>('users', 2)?.name).toBe('last');
    });

    it('treats deleting a missing id as a no-op', async () => {
      const s = await opened();
      await s.commit([del(42)]);
      expect(s.size('users')).toBe(0);
    });

    it('is all or nothing: one invalid mutation rejects the whole batch', async () => {
      const s = await opened();
      const bad = { op: 'put', collection: 'users', record: { id: 0 } } as Mutation;
      await expect(s.commit([put(1), bad])).rejects.toMatchObject({ code: 'ERR_STORE_INVALID_MUTATION' });
      expect(s.get('users', 1)).toBeUndefined();
      expect(s.size('users')).toBe(0);
    });

    it('shows a whole batch to readers synchronously, inside the commit() call', async () => {
      const s = await opened();
      const pending = s.commit([put(1), put(2), put(3)]);
      expect([1, 2, 3].map((id) => s.get('users', id) !== undefined)).toEqual([true, true, true]);
      await pending;
      expect(ids(s)).toEqual([1, 2, 3]);
    });

    vitestIt.each([
      ['not an array', 'nope'],
      ['an unknown op', [{ op: 'upsert', collection: 'users', record: { id: 1 } }]],
      ['an empty collection name', [{ op: 'delete', collection: '', id: 1 }]],
      ['a fractional id', [{ op: 'delete', collection: 'users', id: 1.5 }]],
      ['a string id', [{ op: 'put', collection: 'users', record: { id: '1' } }]],
      ['an array record', [{ op: 'put', collection: 'users', record: [1] }]],
      ['a sparse batch', [, put(1)]], // eslint-disable-line no-sparse-arrays
      ['a BigInt field', [put(1, { big: 1n })]],
      ['a toJSON that changes the id', [put(1, { toJSON: () => ({ id: 2 }) })]],
    ])('rejects %s', async (_why, batch) => {
      const s = await opened();
      await expect(s.commit(batch as Mutation[])).rejects.toMatchObject({ code: 'ERR_STORE_INVALID_MUTATION' });
      expect(s.size('users')).toBe(0);
    });

    it('rejects cyclic and absurdly deep records without a stack overflow escaping', async () => {
      const s = await opened();
      const cyclic: Record<string, unknown> = { id: 1 };
      cyclic.self = cyclic;
      const deep = JSON.parse(`{"id":1,"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`) as StoredRecord;
      for (const record of [cyclic, deep]) {
        await expect(s.commit([{ op: 'put', collection: 'users', record: record as StoredRecord }])).rejects.toMatchObject({
          code: 'ERR_STORE_INVALID_MUTATION',
        });
      }
    });

    it('never reuses an id, not even after deleting the newest record', async () => {
      const s = await opened();
      const a = await s.allocateId('users');
      await s.commit([put(a), del(a)]);
      expect(await s.allocateId('users')).toBeGreaterThan(a);
    });

    it('moves the counter past a caller-chosen id', async () => {
      const s = await opened();
      await s.commit([put(41)]);
      expect(await s.allocateId('users')).toBe(42);
    });

    it('reports a version: 0 when absent, a new one after every write (writers move `rev`)', async () => {
      const s = await opened();
      expect(s.version('users', 1)).toBe(0);
      await s.commit([put(1, { rev: 1 })]);
      const first = s.version('users', 1);
      expect(first).toBeGreaterThan(0);
      await s.commit([put(1, { rev: 2 })]);
      expect(s.version('users', 1)).not.toBe(first);
      await s.commit([del(1)]);
      expect(s.version('users', 1)).toBe(0);
    });

    it('applies a batch whose preconditions hold, and nothing of one whose precondition fails', async () => {
      const s = await opened();
      await s.commit([put(1, { rev: 1 })], { expect: [{ collection: 'users', id: 1, version: 0 }] });
      const v = s.version('users', 1);
      await s.commit([put(1, { rev: 2, name: 'second' }), put(2)], {
        expect: [
          { collection: 'users', id: 1, version: v },
          { collection: 'users', id: 1, exists: true },
        ],
      });
      expect(s.get<User>('users', 1)?.name).toBe('second');
      const stale = { collection: 'users', id: 1, version: v };
      await expect(s.commit([put(1, { rev: 3, name: 'lost' }), put(3)], { expect: [stale] })).rejects.toMatchObject({
        code: 'ERR_STORE_CONFLICT',
        failed: stale,
      });
      await expect(s.commit([put(4)], { expect: [{ collection: 'users', id: 9, exists: true }] })).rejects.toMatchObject({
        code: 'ERR_STORE_CONFLICT',
      });
      await expect(s.commit([put(5)], { expect: [{ collection: 'users', id: 2, version: 0 }] })).rejects.toMatchObject({
        code: 'ERR_STORE_CONFLICT',
      });
      expect(s.get<User>('users', 1)?.name).toBe('second');
      expect(ids(s)).toEqual([1, 2]);
    });

    it('tells change listeners about every applied key, and stops when asked', async () => {
      const s = await opened();
      const seen: string[] = [];
      const stop = s.onChange((collection, id) => seen.push(`${collection}/${id}`));
      await s.commit([put(1), { op: 'put', collection: 'groups', record: { id: 7 } }]);
      await s.commit([del(1)]);
      await s.sync();
      expect(seen).toEqual(['users/1', 'groups/7', 'users/1']);
      stop();
      await s.commit([put(2)]);
      await s.sync();
      expect(seen).toHaveLength(3);
    });

    it('refuses writes after close() and cannot be reopened', async () => {
      const s = await opened();
      await s.close();
      await expect(s.commit([put(1)])).rejects.toMatchObject({ code: 'ERR_STORE_CLOSED' });
      await expect(s.allocateId('users')).rejects.toMatchObject({ code: 'ERR_STORE_CLOSED' });
      await expect(s.open()).rejects.toMatchObject({ code: 'ERR_STORE_CLOSED' });
      await s.close(); // idempotent
    });
  });
}
