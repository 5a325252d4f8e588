/**
 * Two EtcdRecordStore instances on a real 3-member etcd cluster: ids, read-your-writes across
 * instances through sync(), racing preconditions, change listeners, instance leases; and the
 * failures: a member or the leader SIGKILLed during a burst of commits, every member stalled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdClient } from '../../../src/storage/etcd/client.js';
import type { EtcdRecordStore } from '../../../src/storage/etcd/store.js';
import { RecordStoreError, type Mutation } from '../../../src/storage/index.js';
import { skipWithoutEtcd, startEtcd, type EtcdCluster, type EtcdMember } from '../../helpers/etcd.js';
import { until } from '../../helpers/poll.js';
import { Proxies, Stores, uniquePrefix } from './store-helpers.js';

const put = (id: number, fields: Record<string, unknown> = {}): Mutation => ({ op: 'put', collection: 'users', record: { id, ...fields } });

/** The member that is the raft leader, asking each member itself. */
async function leaderOf(cluster: EtcdCluster): Promise<EtcdMember> {
  for (const member of cluster.members) {
    const client = new EtcdClient({ endpoints: [member.endpoint], deadlineMs: 2000 });
    try {
      const status = await client.status();
      if (status.memberId === status.leader) return member;
    } finally {
      await client.close();
    }
  }
  throw new Error('no member says it is the leader');
}

/**
 * Commits `count` single-record batches with 8 workers; calls `midway` once `after` were
 * acknowledged. Returns the ids acknowledged, and how many were when `midway` returned; commits
 * that fail must fail as unavailable (their outcome is unknown).
 */
async function burst(
  store: EtcdRecordStore,
  count: number,
  after: number,
  midway: () => Promise<void>,
): Promise<{ acked: number[]; atMidway: number }> {
  const acked: number[] = [];
  let atMidway = 0;
  let next = 1;
  const worker = async (): Promise<void> => {
    while (next <= count) {
      const id = next++;
      try {
        await store.commit([put(id, { n: id })]);
        acked.push(id);
      } catch (err) {
        expect(err).toBeInstanceOf(RecordStoreError);
        expect((err as RecordStoreError).code).toBe('ERR_STORE_UNAVAILABLE');
      }
    }
  };
  const killer = (async () => {
    await until(() => acked.length >= after, `${after} acknowledged commits`, 20_000);
    await midway();
    atMidway = acked.length;
  })();
  await Promise.all([killer, ...Array.from({ length: 8 }, worker)]);
  return { acked, atMidway };
}

describe.skipIf(skipWithoutEtcd)('EtcdRecordStore: two instances on a 3-member cluster', () => {
  let cluster: EtcdCluster;
  const stores = new Stores();
  const proxies = new Proxies();
  let a: EtcdRecordStore;
  let b: EtcdRecordStore;

  beforeAll(async () => {
    cluster = await startEtcd(3);
    const prefix = uniquePrefix('pair');
    a = await stores.open(cluster.endpoints, { prefix, idBlockSize: 5 });
    // B starts its failover at another member, so the two follow etcd through different members.
    b = await stores.open([...cluster.endpoints.slice(1), cluster.endpoints[0]!], { prefix, idBlockSize: 5 });
  });
  afterAll(async () => {
    await proxies.closeAll(stores);
    await cluster?.stop();
  });

  it('never hands out one id twice, and ids increase per instance', async () => {
    const calls = Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? a : b).allocateId('orders'));
    const ids = await Promise.all(calls);
    expect(new Set(ids).size).toBe(400);
    for (const parity of [0, 1]) {
      const mine = ids.filter((_, i) => i % 2 === parity);
      expect(mine).toEqual([...mine].sort((x, y) => x - y));
    }
  });

  it('shows a write acknowledged by one instance to the other after its sync()', async () => {
    for (let i = 1; i <= 300; i++) {
      const [writer, reader] = i % 2 === 0 ? [a, b] : [b, a];
      await writer.commit([put(i, { by: i % 2 })]);
      expect(writer.get('users', i)).toEqual({ id: i, by: i % 2 });
      await reader.sync();
      expect(reader.get('users', i)).toEqual({ id: i, by: i % 2 });
      expect(reader.version('users', i)).toBe(writer.version('users', i));
    }
  });

  it('lets exactly one of two racing conditional writes win; the other names the precondition', async () => {
    for (let round = 0; round < 20; round++) {
      await a.commit([{ op: 'put', collection: 'race', record: { id: 1, round } }]);
      await b.sync();
      const version = a.version('race', 1);
      expect(b.version('race', 1)).toBe(version);
      const expected = { collection: 'race', id: 1, version };
      const outcomes = await Promise.allSettled(
        [a, b].map((s, i) => s.commit([{ op: 'put', collection: 'race', record: { id: 1, round, winner: i } }], { expect: [expected] })),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const lost = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(lost?.reason).toMatchObject({ code: 'ERR_STORE_CONFLICT', failed: expected });
      const winner = outcomes.findIndex((o) => o.status === 'fulfilled');
      await Promise.all([a.sync(), b.sync()]);
      expect(a.get('race', 1)).toEqual({ id: 1, round, winner });
      expect(b.get('race', 1)).toEqual({ id: 1, round, winner });
    }
  });

  it("tells the other instance's change listeners about every key, in commit order", async () => {
    const seen: string[] = [];
    const stop = b.onChange((collection, id) => seen.push(`${collection}/${id}:${b.get(collection, id) === undefined ? 'gone' : 'here'}`));
    try {
      await a.commit([put(1001), { op: 'put', collection: 'groups', record: { id: 7 } }]);
      await a.commit([{ op: 'delete', collection: 'users', id: 1001 }]);
      await b.sync();
      expect(seen).toEqual(['users/1001:here', 'groups/7:here', 'users/1001:gone']);
    } finally {
      stop();
    }
  });

  it("drops an instance record from the other instance when its writer's lease expires without close()", async () => {
    const prefix = uniquePrefix('expiry');
    const proxy = await proxies.start(cluster.endpoints[0]!);
    const writer = await stores.open([proxy.endpoint], { prefix, leaseTtlSeconds: 2, requestTimeoutMs: 500 });
    const reader = await stores.open(cluster.endpoints, { prefix });
    await writer.commit([{ op: 'put', collection: 'presence', record: { id: 1 }, lease: 'instance' }]);
    await reader.sync();
    expect(reader.get('presence', 1)).toEqual({ id: 1 });
    proxy.cut(); // the writer can no longer renew its lease, as if its process had died
    await until(() => reader.get('presence', 1) === undefined, 'the instance record to expire with its lease', 15_000, 50);
  });

  it('rejects a commit as unavailable within its deadline while every member is stalled, and syncs again after', async () => {
    const prefix = uniquePrefix('stall');
    const store = await stores.open(cluster.endpoints, { prefix, requestTimeoutMs: 1000 });
    await store.commit([put(1)]);
    try {
      for (const m of cluster.members) m.process.kill('SIGSTOP');
      const started = performance.now();
      await expect(store.commit([put(2)])).rejects.toMatchObject({ code: 'ERR_STORE_UNAVAILABLE' });
      expect(performance.now() - started).toBeLessThan(1000 + 1500);
      await expect(store.sync()).rejects.toMatchObject({ code: 'ERR_STORE_UNAVAILABLE' });
      expect(store.writeStatus()).toMatchObject({ writable: false, code: 'ERR_STORE_FAILED' });
    } finally {
      for (const m of cluster.members) m.process.kill('SIGCONT');
    }
    await until(
      () =>
        store.sync().then(
          () => true,
          () => false,
        ),
      'sync() to work again after SIGCONT',
      20_000,
      50,
    );
    await store.commit([put(3)]);
    expect(store.writeStatus()).toEqual({ writable: true });
    expect(store.get('users', 3)).toEqual({ id: 3 });
  });
});

describe.skipIf(skipWithoutEtcd).each(['a follower', 'the leader'])('EtcdRecordStore when %s is SIGKILLed during a burst', (which) => {
  let cluster: EtcdCluster;
  const stores = new Stores();

  beforeAll(async () => {
    cluster = await startEtcd(3);
  });
  afterAll(async () => {
    await stores.closeAll();
    await cluster?.stop();
  });

  it('keeps every acknowledged commit', async () => {
    const prefix = uniquePrefix('burst');
    const leader = await leaderOf(cluster);
    const victim = which === 'the leader' ? leader : cluster.members.find((m) => m !== leader)!;
    const survivors = cluster.endpoints.filter((e) => e !== victim.endpoint);
    // The writer talks to the victim first: its calls and its watch must fail over.
    const writer = await stores.open([victim.endpoint, ...survivors], { prefix, requestTimeoutMs: 5000 });
    const { acked, atMidway } = await burst(writer, 400, 60, () => cluster.kill(victim));
    expect(acked.length).toBeGreaterThan(atMidway); // commits went on after the kill

    const reader = await stores.open(survivors, { prefix, requestTimeoutMs: 5000 });
    await reader.sync();
    await writer.sync();
    for (const id of acked) {
      expect(reader.get('users', id)).toEqual({ id, n: id });
      expect(writer.get('users', id)).toEqual({ id, n: id });
    }
    expect(reader.size('users')).toBe(writer.size('users'));
  });
});
