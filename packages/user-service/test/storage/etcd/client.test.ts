/**
 * EtcdClient against real etcd members (test/helpers/etcd.ts): key-value calls, transactions,
 * leases, watches, errors, and failover when members (the leader included) are killed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdClient, EtcdError, type EtcdClientOptions, type WatchEvent } from '../../../src/storage/etcd/client.js';
import { skipWithoutEtcd, startEtcd, type EtcdCluster, type EtcdMember } from '../../helpers/etcd.js';
import { until } from '../../helpers/poll.js';

async function failure(promise: Promise<unknown>): Promise<EtcdError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EtcdError);
  return err as EtcdError;
}

/** Collects up to `n` events of a watch (fewer when its signal ends it first). */
async function take(events: AsyncIterable<WatchEvent>, n: number): Promise<WatchEvent[]> {
  const seen: WatchEvent[] = [];
  for await (const event of events) {
    seen.push(event);
    if (seen.length === n) break;
  }
  return seen;
}

describe.skipIf(skipWithoutEtcd)('EtcdClient on one member', () => {
  let cluster: EtcdCluster;
  let etcd: EtcdClient;
  const clients: EtcdClient[] = [];
  const client = (options: Partial<EtcdClientOptions> = {}): EtcdClient => {
    const c = new EtcdClient({ endpoints: cluster.endpoints, ...options });
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    cluster = await startEtcd(1);
    etcd = client();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await cluster?.stop();
  });

  it('puts, reads a key and a prefix, deletes', async () => {
    const first = await etcd.put('kv/a', 'één');
    const second = await etcd.put('kv/b', new Uint8Array([0x68, 0x69]));
    await etcd.put('kv0', 'outside the prefix');
    expect(second.revision).toBe(first.revision + 1);

    const one = await etcd.range('kv/a');
    expect(one.kvs).toEqual([
      { key: 'kv/a', value: 'één', createRevision: first.revision, modRevision: first.revision, version: 1, lease: '0' },
    ]);
    const all = await etcd.range('kv/', { prefix: true });
    expect(all.kvs.map((kv) => [kv.key, kv.value])).toEqual([
      ['kv/a', 'één'],
      ['kv/b', 'hi'],
    ]);
    expect(all.count).toBe(2);
    const limited = await etcd.range('kv/', { prefix: true, limit: 1 });
    expect([limited.kvs.length, limited.more, limited.count]).toEqual([1, true, 2]);
    const old = await etcd.range('kv/', { prefix: true, revision: first.revision });
    expect(old.kvs.map((kv) => kv.key)).toEqual(['kv/a']);

    const overwritten = await etcd.put('kv/a', 'twee', { prevKv: true });
    expect(overwritten.prevKv?.value).toBe('één');
    expect((await etcd.range('kv/a')).kvs[0]).toMatchObject({ value: 'twee', version: 2, createRevision: first.revision });

    const deleted = await etcd.delete('kv/', { prefix: true, prevKv: true });
    expect(deleted.deleted).toBe(2);
    expect(deleted.prevKvs.map((kv) => kv.key)).toEqual(['kv/a', 'kv/b']);
    expect((await etcd.range('kv/', { prefix: true })).kvs).toEqual([]);
    expect((await etcd.range('kv0')).kvs.length).toBe(1);
    expect((await etcd.delete('kv/none')).deleted).toBe(0);
  });

  it('runs transactions: create-if-absent and compare-and-swap on version, mod_revision and value', async () => {
    const create = {
      compare: [{ key: 'txn/x', target: 'version', result: 'EQUAL', value: 0 }] as const,
      success: [{ op: 'put', key: 'txn/x', value: 'v1' }] as const,
      failure: [{ op: 'range', key: 'txn/x' }] as const,
    };
    const created = await etcd.txn(create);
    expect(created.succeeded).toBe(true);
    expect(created.responses).toEqual([{ op: 'put', revision: created.revision, prevKv: undefined }]);

    const again = await etcd.txn(create);
    expect(again.succeeded).toBe(false);
    const [read] = again.responses;
    expect(read?.op === 'range' && read.kvs.map((kv) => kv.value)).toEqual(['v1']);

    const stale = await etcd.txn({
      compare: [{ key: 'txn/x', target: 'mod_revision', result: 'EQUAL', value: created.revision - 1 }],
      success: [{ op: 'put', key: 'txn/x', value: 'lost' }],
    });
    expect(stale.succeeded).toBe(false);
    expect(stale.responses).toEqual([]);

    const swapped = await etcd.txn({
      compare: [
        { key: 'txn/x', target: 'mod_revision', result: 'EQUAL', value: created.revision },
        { key: 'txn/x', target: 'value', result: 'EQUAL', value: 'v1' },
        { key: 'txn/x', target: 'create_revision', result: 'LESS', value: created.revision + 1 },
      ],
      success: [
        { op: 'put', key: 'txn/x', value: 'v2' },
        { op: 'put', key: 'txn/y', value: 'y' },
        { op: 'delete', key: 'txn/none' },
      ],
    });
    expect(swapped.succeeded).toBe(true);
    expect(swapped.responses.map((r) => r.op)).toEqual(['put', 'put', 'delete']);
    const state = await etcd.range('txn/', { prefix: true });
    expect(state.kvs.map((kv) => [kv.key, kv.value, kv.modRevision])).toEqual([
      ['txn/x', 'v2', swapped.revision],
      ['txn/y', 'y', swapped.revision],
    ]);

    const versions = await etcd.txn({
      compare: [
        { key: 'txn/x', target: 'version', result: 'GREATER', value: 1 },
        { key: 'txn/x', target: 'value', result: 'NOT_EQUAL', value: 'v2' },
      ],
      failure: [{ op: 'delete', key: 'txn/', prefix: true }],
    });
    expect(versions.succeeded).toBe(false);
    const [removed] = versions.responses;
    expect(removed?.op === 'delete' && removed.deleted).toBe(2);
  });

  it('grants a lease whose keys go when it is revoked', async () => {
    const lease = await etcd.grantLease(30);
    expect(lease.ttl).toBe(30);
    expect(lease.id).toMatch(/^\d+$/);
    await etcd.put('lease/k', 'v', { lease: lease.id });
    expect((await etcd.range('lease/k')).kvs[0]?.lease).toBe(lease.id);
    const ttl = await etcd.keepAlive(lease.id);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30);

    await etcd.revokeLease(lease.id);
    expect((await etcd.range('lease/k')).kvs).toEqual([]);
    expect((await failure(etcd.keepAlive(lease.id))).code).toBe('NOT_FOUND');
    const revokedTwice = await failure(etcd.revokeLease(lease.id));
    expect([revokedTwice.code, revokedTwice.retriable]).toEqual(['NOT_FOUND', false]);
  });

  it('watches puts and deletes in order from a start revision, then live ones', async () => {
    const start = (await etcd.put('watch/a', '1')).revision;
    await etcd.put('watch/b', '2');
    await etcd.put('other', 'not watched');
    await etcd.delete('watch/a');
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 10_000);
    const events = etcd.watch('watch/', { startRevision: start, signal: controller.signal });
    try {
      const past = await take(events, 3);
      expect(past.map((e) => [e.type, e.key, e.value, e.modRevision - start])).toEqual([
        ['put', 'watch/a', '1', 0],
        ['put', 'watch/b', '2', 1],
        ['delete', 'watch/a', '', 3],
      ]);
    } finally {
      clearTimeout(timer);
      controller.abort();
    }

    // A watch from "now": wait for it to be established by writing until an event arrives.
    const live = new AbortController();
    const liveTimer = setTimeout(() => live.abort(), 10_000);
    const seen: WatchEvent[] = [];
    const reading = (async () => {
      for await (const event of etcd.watch('watch/', { signal: live.signal })) seen.push(event);
    })();
    await until(
      async () => {
        await etcd.put('watch/live', String(seen.length));
        return seen.length > 0;
      },
      'a live watch event',
      10_000,
      50,
    );
    live.abort();
    clearTimeout(liveTimer);
    await reading;
    expect(seen[0]).toMatchObject({ type: 'put', key: 'watch/live' });
  });

  it('reports errors as typed EtcdErrors', async () => {
    const { revision } = await etcd.status();
    const future = await failure(etcd.range('x', { revision: revision + 1000 }));
    expect([future.code, future.retriable, future.status, future.endpoint]).toEqual(['OUT_OF_RANGE', false, 400, cluster.endpoints[0]]);

    await etcd.put('big', 'x'.repeat(4096));
    const small = client({ maxResponseBytes: 1024 });
    expect((await failure(small.range('big'))).code).toBe('RESPONSE_TOO_LARGE');

    const aborted = await failure(etcd.range('x', { signal: AbortSignal.abort() }));
    expect([aborted.code, aborted.retriable]).toEqual(['ABORTED_BY_CALLER', false]);

    expect(() => new EtcdClient({ endpoints: [] })).toThrow(/endpoints must list at least one/);
    expect(() => new EtcdClient({ endpoints: ['http://127.0.0.1:2379/v3'] })).toThrow(/without path/);
    expect(() => new EtcdClient({ endpoints: cluster.endpoints, requestTimeoutMs: 0 })).toThrow(
      /requestTimeoutMs must be a positive integer/,
    );
  });

  it('fails over from a dead endpoint and gives up at the deadline', async () => {
    const dead = await startEtcd(1);
    const deadEndpoint = dead.endpoints[0]!;
    await dead.stop();

    const failover = client({ endpoints: [deadEndpoint, cluster.endpoints[0]!] });
    const status = await failover.status();
    expect(status.revision).toBeGreaterThan(0);
    expect(status.version).toMatch(/^3\./);
    expect(status.leader).toBe(status.memberId);

    const nowhere = client({ endpoints: [deadEndpoint], deadlineMs: 300 });
    const gone = await failure(nowhere.status());
    expect([gone.code, gone.retriable, gone.endpoint]).toEqual(['CONNECTION', true, deadEndpoint]);
  });
});

/** The member the others agree is the leader. */
async function leaderOf(cluster: EtcdCluster, alive: EtcdMember[]): Promise<EtcdMember> {
  const statuses = await Promise.all(
    alive.map(async (m) => {
      const one = new EtcdClient({ endpoints: [m.endpoint] });
      try {
        return await one.status();
      } finally {
        await one.close();
      }
    }),
  );
  const leader = alive[statuses.findIndex((s) => s.memberId === s.leader)];
  expect(leader).toBeDefined();
  return leader!;
}

describe.skipIf(skipWithoutEtcd)('EtcdClient on a 3-member cluster', () => {
  let cluster: EtcdCluster;
  let etcd: EtcdClient;

  beforeAll(async () => {
    cluster = await startEtcd(3);
    etcd = new EtcdClient({ endpoints: cluster.endpoints, deadlineMs: 20_000 });
  });
  afterAll(async () => {
    await etcd?.close();
    await cluster?.stop();
  });

  it('keeps serving through the other members when the one it used is SIGKILLed', async () => {
    await etcd.put('ha/k', 'v0');
    // The client prefers the endpoint that last answered: the first one, so kill that one, the leader or not.
    const leader = await leaderOf(cluster, cluster.members);
    const first = cluster.members[0]!;
    const victim = first === leader ? cluster.members[1]! : first;
    await cluster.kill(victim, 'SIGKILL');
    expect((await etcd.put('ha/k', 'v1')).revision).toBeGreaterThan(0);
    expect((await etcd.range('ha/k')).kvs[0]?.value).toBe('v1');
    expect((await etcd.status()).memberId).not.toBe('0');
  });
});

describe.skipIf(skipWithoutEtcd)('EtcdClient when the leader is killed', () => {
  let cluster: EtcdCluster;
  let etcd: EtcdClient;

  beforeAll(async () => {
    cluster = await startEtcd(3);
  });
  afterAll(async () => {
    await etcd?.close();
    await cluster?.stop();
  });

  it('retries through the election and succeeds within its deadline', async () => {
    const leader = await leaderOf(cluster, cluster.members);
    // Leader first, so the client's first attempts go to the member about to die.
    etcd = new EtcdClient({
      endpoints: [leader.endpoint, ...cluster.endpoints.filter((e) => e !== leader.endpoint)],
      requestTimeoutMs: 1000,
      deadlineMs: 20_000,
    });
    const before = await etcd.put('leader/k', 'before');
    await cluster.kill(leader, 'SIGKILL');

    const after = await etcd.put('leader/k', 'after');
    expect(after.revision).toBeGreaterThan(before.revision);
    const read = await etcd.range('leader/k');
    expect(read.kvs[0]?.value).toBe('after');
    const survivors = cluster.members.filter((m) => m !== leader);
    const next = await leaderOf(cluster, survivors);
    expect(next).not.toBe(leader);
  });
});
