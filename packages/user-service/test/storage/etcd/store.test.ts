/**
 * EtcdRecordStore on one real etcd member: the shared RecordStore contract, preconditions, ids,
 * leases, loading in pages, catching up after a compaction, write status and option checks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdClient } from '../../../src/storage/etcd/client.js';
import { EtcdRecordStore } from '../../../src/storage/etcd/store.js';
import type { Mutation, RecordStoreError } from '../../../src/storage/index.js';
import { skipWithoutEtcd, startEtcd, type EtcdCluster } from '../../helpers/etcd.js';
import { until } from '../../helpers/poll.js';
import { describeRecordStoreContract } from '../record-store-contract.js';
import { Proxies, Stores, uniquePrefix } from './store-helpers.js';

const put = (id: number, fields: Record<string, unknown> = {}): Mutation => ({ op: 'put', collection: 'users', record: { id, ...fields } });

describe.skipIf(skipWithoutEtcd)('EtcdRecordStore on one member', () => {
  let cluster: EtcdCluster;
  let etcd: EtcdClient;
  const stores = new Stores();
  const proxies = new Proxies();

  beforeAll(async () => {
    cluster = await startEtcd(1);
    etcd = new EtcdClient({ endpoints: cluster.endpoints });
  });
  afterAll(async () => {
    await proxies.closeAll(stores);
    await etcd?.close();
    await cluster?.stop();
  });

  describeRecordStoreContract('EtcdRecordStore', async () => stores.make(cluster.endpoints), [
    // A commit is one etcd transaction: the batch becomes visible when etcd has it and the watch
    // applied it, when the promise resolves, never inside the call (no instance could take it back).
    'shows a whole batch to readers synchronously, inside the commit() call',
    // Ids come from blocks reserved by a counter key per collection: another instance cannot see
    // a caller-chosen id move the counter, so a shared store does not promise it.
    'moves the counter past a caller-chosen id',
  ]);

  it('keeps records, counters and the marker under its own prefix, in the documented layout', async () => {
    const prefix = uniquePrefix('layout');
    const store = await stores.open(cluster.endpoints, { prefix, idBlockSize: 10 });
    const id = await store.allocateId('a/b');
    await store.commit([{ op: 'put', collection: 'a/b', record: { id, when: new Date(0) } }]);
    const { kvs } = await etcd.range(`${prefix}/`, { prefix: true });
    expect(kvs.map((kv) => [kv.key, kv.value])).toEqual([
      [`${prefix}/m`, expect.any(String)],
      [`${prefix}/n/a/b`, '11'],
      [`${prefix}/r/a/b/1`, '{"id":1,"when":"1970-01-01T00:00:00.000Z"}'],
    ]);
    expect(store.version('a/b', 1)).toBe(kvs[2]?.modRevision);
    expect(store.get('a/b', 1)).toEqual({ id: 1, when: '1970-01-01T00:00:00.000Z' });
  });

  it('names the failed precondition, checked atomically with the batch', async () => {
    const store = await stores.open(cluster.endpoints);
    await store.commit([put(1)], { expect: [{ collection: 'users', id: 1, version: 0 }] });
    const v1 = store.version('users', 1);
    const absent = { collection: 'users', id: 1, version: 0 };
    await expect(store.commit([put(2)], { expect: [absent] })).rejects.toMatchObject({
      code: 'ERR_STORE_CONFLICT',
      failed: absent,
      message: 'precondition failed: users/1 was expected to be absent',
    });
    const missing = { collection: 'users', id: 9, exists: true as const };
    await expect(store.commit([put(2)], { expect: [{ collection: 'users', id: 1, version: v1 }, missing] })).rejects.toMatchObject({
      failed: missing,
    });
    expect(store.get('users', 2)).toBeUndefined();
    await expect(store.commit([put(1)], { expect: [{ collection: 'users', id: 1, version: -1 }] })).rejects.toMatchObject({
      code: 'ERR_STORE_INVALID_MUTATION',
    });
  });

  it('refuses a batch etcd cannot take as one transaction, applying nothing', async () => {
    const store = await stores.open(cluster.endpoints, { requestTimeoutMs: 10_000 });
    // etcd's default --max-txn-ops is 128.
    const batch = Array.from({ length: 200 }, (_, i) => put(i + 1));
    await expect(store.commit(batch)).rejects.toMatchObject({ code: 'ERR_STORE_INVALID_MUTATION' });
    // etcd's default --max-request-bytes is 1.5 MiB.
    await expect(store.commit([put(1, { big: 'x'.repeat(1_800_000) })])).rejects.toMatchObject({ code: 'ERR_STORE_INVALID_MUTATION' });
    expect(store.size('users')).toBe(0);
    expect(store.writeStatus()).toEqual({ writable: true });
  });

  it('shares one reservation between concurrent callers and never hands an id out twice', async () => {
    const store = await stores.open(cluster.endpoints, { idBlockSize: 4 });
    const ids = await Promise.all(Array.from({ length: 30 }, () => store.allocateId('users')));
    expect(new Set(ids).size).toBe(30);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    // The 30 callers waiting together shared ONE reservation of 30 ids (more than a block of 4).
    expect((await etcd.range(`${store.prefix}/n/users`)).kvs[0]?.value).toBe('31');
    // A lone caller reserves a block of 4 and the next three take from it.
    const next = [];
    for (let i = 0; i < 4; i++) next.push(await store.allocateId('users'));
    expect(next).toEqual([31, 32, 33, 34]);
    expect((await etcd.range(`${store.prefix}/n/users`)).kvs[0]?.value).toBe('35');
  });

  it('with blocks of 1, ids increase across instances in the order they are allocated', async () => {
    const prefix = uniquePrefix('ordered');
    const a = await stores.open(cluster.endpoints, { prefix, idBlockSize: 1 });
    const b = await stores.open(cluster.endpoints, { prefix, idBlockSize: 1 });
    const seen: number[] = [];
    for (let i = 0; i < 20; i++) seen.push(await (i % 3 === 0 ? a : b).allocateId('users'));
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    // Concurrent callers of one instance still share a reservation, and get consecutive ids.
    const wave = await Promise.all(Array.from({ length: 10 }, () => a.allocateId('users')));
    expect(wave).toEqual(Array.from({ length: 10 }, (_, i) => i + 21));
  });

  it('puts TTL records on a shared lease and instance records on the instance lease, revoked by close()', async () => {
    const prefix = uniquePrefix('leases');
    const a = await stores.open(cluster.endpoints, { prefix });
    const b = await stores.open(cluster.endpoints, { prefix });
    await a.commit([
      { op: 'put', collection: 'sessions', record: { id: 1 }, lease: { ttlSeconds: 30 } },
      { op: 'put', collection: 'sessions', record: { id: 2 }, lease: { ttlSeconds: 30 } },
      { op: 'put', collection: 'presence', record: { id: 1 }, lease: 'instance' },
    ]);
    const { kvs } = await etcd.range(`${prefix}/r/`, { prefix: true });
    const lease = (key: string): string | undefined => kvs.find((kv) => kv.key === `${prefix}/r/${key}`)?.lease;
    expect(lease('sessions/1')).not.toBe('0');
    expect(lease('sessions/1')).toBe(lease('sessions/2'));
    expect(lease('presence/1')).toBe(a.instanceId);
    await expect(a.commit([{ op: 'put', collection: 'x', record: { id: 1 }, lease: { ttlSeconds: 0 } } as Mutation])).rejects.toMatchObject(
      {
        code: 'ERR_STORE_INVALID_MUTATION',
      },
    );

    await b.sync();
    expect(b.get('presence', 1)).toEqual({ id: 1 });
    await a.close();
    await until(() => b.get('presence', 1) === undefined, 'the instance record to go with its revoked lease');
    expect(b.get('sessions', 1)).toEqual({ id: 1 });
  });

  it('takes a new instance lease when etcd no longer knows its own, and commits on it', async () => {
    const store = await stores.open(cluster.endpoints);
    const lost = store.instanceId;
    await etcd.revokeLease(lost); // as when the lease expired during a long pause of the process
    await store.commit([{ op: 'put', collection: 'presence', record: { id: 1 }, lease: 'instance' }]);
    expect(store.instanceId).not.toBe(lost);
    const { kvs } = await etcd.range(`${store.prefix}/r/presence/1`);
    expect(kvs[0]?.lease).toBe(store.instanceId);
    expect(store.writeStatus()).toEqual({ writable: true });
  });

  it('loads 5 000 existing records (about 10 MB, more than one answer may hold) in pages', async () => {
    const prefix = uniquePrefix('load');
    const writer = await stores.open(cluster.endpoints, { prefix, requestTimeoutMs: 10_000 });
    const pad = 'x'.repeat(2000);
    for (let start = 1; start <= 5000; start += 100) {
      await writer.commit(Array.from({ length: 100 }, (_, i) => put(start + i, { pad })));
    }
    const reader = await stores.open(cluster.endpoints, { prefix, requestTimeoutMs: 10_000 });
    expect(reader.size('users')).toBe(5000);
    expect(Array.from(reader.values('users'), (r) => r.id)).toEqual(Array.from({ length: 5000 }, (_, i) => i + 1));
    expect(reader.get('users', 4321)).toEqual({ id: 4321, pad });
    expect(reader.version('users', 5000)).toBe(writer.version('users', 5000));
  });

  it('reloads after its watch fell behind a compaction, reporting each key that changed', async () => {
    const prefix = uniquePrefix('compact');
    const proxy = await proxies.start(cluster.endpoints[0]!);
    const watchErrors: Error[] = [];
    const writer = await stores.open(cluster.endpoints, { prefix });
    const reader = await stores.open([proxy.endpoint], { prefix, onWatchError: (e) => watchErrors.push(e) });
    await writer.commit([put(1, { v: 'kept' }), put(2, { v: 'old' }), put(3, { v: 'deleted' })]);
    await reader.sync();
    const changed: number[] = [];
    reader.onChange((_c, id) => changed.push(id));

    proxy.cut();
    await writer.commit([put(2, { v: 'new' }), { op: 'delete', collection: 'users', id: 3 }, put(4, { v: 'added' })]);
    const { revision } = await etcd.put(`${prefix}/unrelated`, 'x');
    const compacted = await fetch(`${cluster.endpoints[0]}/v3/kv/compaction`, {
      method: 'POST',
      body: JSON.stringify({ revision: String(revision), physical: true }),
    });
    expect(compacted.status).toBe(200);
    await until(() => watchErrors.length > 0, 'the reader to notice its watch broke');
    proxy.restore();

    await reader.sync();
    expect(Array.from(reader.values('users'))).toEqual([
      { id: 1, v: 'kept' },
      { id: 2, v: 'new' },
      { id: 4, v: 'added' },
    ]);
    expect(changed.sort((x, y) => x - y)).toEqual([2, 3, 4]);
    expect(reader.version('users', 2)).toBe(writer.version('users', 2));
  });

  it('reloads in pages when the changes its watch missed come in one answer too large to read', async () => {
    const prefix = uniquePrefix('catch-up');
    const proxy = await proxies.start(cluster.endpoints[0]!);
    const writer = await stores.open(cluster.endpoints, { prefix, requestTimeoutMs: 10_000 });
    const reader = await stores.open([proxy.endpoint], { prefix, requestTimeoutMs: 10_000 });
    await writer.commit([put(1)]);
    await reader.sync();
    proxy.cut();
    // 10 revisions of 1 MB each: one catch-up answer of about 10 MB, above the client's 8 MiB.
    const big = 'x'.repeat(1_000_000);
    for (let id = 2; id <= 11; id++) await writer.commit([put(id, { big })]);
    proxy.restore();
    await reader.sync();
    expect(reader.size('users')).toBe(11);
    expect(reader.get('users', 11)).toEqual({ id: 11, big });
  });

  it('moves its watch off a stalled connection when a read waits for it', async () => {
    const prefix = uniquePrefix('stalled-watch');
    const proxy = await proxies.start(cluster.endpoints[0]!);
    const watchErrors: Error[] = [];
    const writer = await stores.open(cluster.endpoints, { prefix });
    // The reader reaches etcd through the proxy first (its watch too), directly second.
    const reader = await stores.open([proxy.endpoint, cluster.endpoints[0]!], { prefix, onWatchError: (e) => watchErrors.push(e) });
    await writer.commit([put(1)]);
    await reader.sync();
    proxy.freeze();
    await writer.commit([put(2)]);
    await reader.sync();
    expect(reader.get('users', 2)).toEqual({ id: 2 });
    expect(watchErrors.map((e) => e.message)).toContainEqual(expect.stringMatching(/no progress past revision \d+ while reads wait/));
  });

  it('resolves a conditional commit that a retry found already applied by its own timed-out attempt', async () => {
    const prefix = uniquePrefix('ambiguous');
    const proxy = await proxies.start(cluster.endpoints[0]!);
    // The first attempt goes through the proxy, which delivers the transaction but holds etcd's
    // answer; the client then retries directly, where the compare fails because of that very write.
    const store = await stores.open([proxy.endpoint, cluster.endpoints[0]!], { prefix });
    proxy.holdAnswers();
    const created = { collection: 'users', id: 1, version: 0 };
    await store.commit([put(1, { once: true })], { expect: [created] });
    expect(store.get('users', 1)).toEqual({ id: 1, once: true });
    expect(store.stats.commits).toBe(1);
    await expect(store.commit([put(1, { twice: true })], { expect: [created] })).rejects.toMatchObject({ code: 'ERR_STORE_CONFLICT' });
  });

  it('reports etcd unreachable in writeStatus() and is writable again once a call succeeds', async () => {
    const proxy = await proxies.start(cluster.endpoints[0]!);
    const reported: RecordStoreError[] = [];
    const recovered: string[] = [];
    const store = await stores.open([proxy.endpoint], {
      requestTimeoutMs: 300,
      onWriteError: (e) => reported.push(e),
      onWriteRecovered: (m) => recovered.push(m),
    });
    proxy.cut();
    await expect(store.commit([put(1)])).rejects.toMatchObject({ code: 'ERR_STORE_UNAVAILABLE' });
    await expect(store.sync()).rejects.toMatchObject({ code: 'ERR_STORE_UNAVAILABLE' });
    expect(store.writeStatus()).toMatchObject({ writable: false, code: 'ERR_STORE_FAILED', reason: expect.stringContaining('etcd') });
    expect(reported).toHaveLength(1);
    proxy.restore();
    await store.commit([put(1)]);
    expect(store.writeStatus()).toEqual({ writable: true });
    expect(recovered).toHaveLength(1);
    expect(store.get('users', 1)).toEqual({ id: 1 });
  });

  it('fails open() with ERR_STORE_UNAVAILABLE when no member answers, and can open later', async () => {
    const proxy = await proxies.start(cluster.endpoints[0]!);
    proxy.cut();
    const store = stores.make([proxy.endpoint], { requestTimeoutMs: 300 });
    await expect(store.open()).rejects.toMatchObject({ code: 'ERR_STORE_UNAVAILABLE' });
    expect(() => store.get('users', 1)).toThrow(expect.objectContaining({ code: 'ERR_STORE_NOT_OPEN' }));
    proxy.restore();
    await store.open();
    expect(store.instanceId).toMatch(/^\d+$/);
  });

  it('refuses bad options at construction, naming the option', () => {
    expect(() => new EtcdRecordStore({ endpoints: [] })).toThrow(/EtcdRecordStore.*endpoints/);
    expect(() => new EtcdRecordStore({ endpoints: ['http://127.0.0.1:1'], prefix: 'x/' })).toThrow(/option prefix/);
    expect(() => new EtcdRecordStore({ endpoints: ['http://127.0.0.1:1'], idBlockSize: 0 })).toThrow(/option idBlockSize/);
  });
});
