/**
 * SharedRateLimiter on a real etcd member (test/helpers/etcd.ts) through EtcdSharedCounts: two
 * instances share one quota within the documented bound, the key layout and leases, publishes
 * larger than one transaction, and an unreachable etcd (fail open to local counts, one report);
 * near the limit (takeShared): a sequential client alternating over the two is limited exactly,
 * and an unreachable etcd lets it be decided locally within the deadline. Syncs are driven with
 * syncNow() and explicit clocks.
 */
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EtcdSharedCounts } from '../../../src/storage/etcd/shared-counts.js';
import type { RateLimitDecision } from '../../../src/domain/limits/rate-limit.js';
import { SharedRateLimiter } from '../../../src/domain/limits/rate-limit-shared.js';
import { EtcdClient, EtcdError, type EtcdClientOptions } from '../../../src/storage/etcd/client.js';
import { skipWithoutEtcd, startEtcd, type EtcdCluster } from '../../helpers/etcd.js';
import { until } from '../../helpers/poll.js';

const MINUTE = 60_000;
/** A window-aligned instant. */
const T0 = 1_000 * MINUTE;

/** A 127.0.0.1 port nothing listens on. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.skipIf(skipWithoutEtcd)('SharedRateLimiter on etcd', () => {
  let cluster: EtcdCluster;
  const clients: EtcdClient[] = [];
  /** A client of a port where nothing listens, with short timeouts. */
  async function deadClient(): Promise<EtcdClient> {
    const dead = new EtcdClient({
      endpoints: [`http://127.0.0.1:${await deadPort()}`],
      requestTimeoutMs: 100,
      connectTimeoutMs: 100,
      deadlineMs: 200,
    });
    clients.push(dead);
    return dead;
  }

  const limiters: SharedRateLimiter[] = [];
  /** Sync failures of the instances made by `pair`, which must have none. */
  const syncErrors: unknown[] = [];
  let run = 0;

  const client = (options: Partial<EtcdClientOptions> = {}): EtcdClient => {
    const c = new EtcdClient({ endpoints: cluster.endpoints, ...options });
    clients.push(c);
    return c;
  };
  /** Two instances, each with its own client, sharing a prefix of their own; `timer: false` unless told. */
  const pair = (limit: number, timer = false): [SharedRateLimiter, SharedRateLimiter, string] => {
    const prefix = `rl-test-${++run}`;
    const [a, b] = ['a', 'b'].map((instanceId) => {
      const counts = new EtcdSharedCounts({ client: client(), prefix, instanceId });
      const limiter = new SharedRateLimiter({
        limit,
        windowMs: MINUTE,
        counts,
        timer,
        syncIntervalMs: 50,
        onError: (e) => syncErrors.push(e),
      });
      limiters.push(limiter);
      return limiter;
    });
    return [a!, b!, prefix];
  };

  beforeAll(async () => {
    cluster = await startEtcd(1);
  });
  afterEach(async () => {
    await Promise.all(limiters.splice(0).map((l) => l.close()));
    expect(syncErrors.splice(0)).toEqual([]);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await cluster?.stop();
  });

  it('two instances admit a burst split across them within limit + the documented bound', async () => {
    const limit = 50;
    const every = 10;
    const [a, b] = pair(limit);
    let admitted = 0;
    for (let i = 0; i < 300; i++) {
      if ((i % 2 === 0 ? a : b).take('p:alice', T0 + 1).allowed) admitted++;
      if ((i + 1) % every === 0) {
        await a.syncNow(T0 + 1);
        await b.syncNow(T0 + 1);
      }
    }
    // The other instance's admissions in two sync periods (`every` requests, half of them its own).
    expect(admitted).toBeGreaterThanOrEqual(limit);
    expect(admitted).toBeLessThanOrEqual(limit + every);
  });

  it('stores one leased key per window, client hash and instance; the lease outlives two windows', async () => {
    const [a, b, prefix] = pair(10);
    for (let i = 0; i < 3; i++) a.take('p:alice', T0);
    b.take('p:alice', T0);
    await a.syncNow(T0);
    await b.syncNow(T0);
    const etcd = client();
    const { kvs } = await etcd.range(`${prefix}/rl/`, { prefix: true });
    expect(kvs.map((kv) => [kv.key.replace(/\/[A-Za-z0-9_-]{22}\//, '/<hash>/'), kv.value])).toEqual([
      [`${prefix}/rl/${T0}/<hash>/a`, '3'],
      [`${prefix}/rl/${T0}/<hash>/b`, '1'],
    ]);
    expect(kvs[0]!.lease).not.toBe('0');
    expect(await etcd.keepAlive(kvs[0]!.lease)).toBeGreaterThanOrEqual((2 * MINUTE) / 1000);
    await a.syncNow(T0);
    expect(a.peek('p:alice', T0).remaining).toBe(5);
  });

  it("on its timer, an instance learns of the other's requests", async () => {
    const [a, b] = pair(5, true);
    for (let i = 0; i < 5; i++) expect(a.take('p:alice').allowed).toBe(true);
    await until(() => !b.peek('p:alice').allowed, "b to see a's five requests", 10_000, 20);
    expect(b.take('p:alice').allowed).toBe(false);
  });

  it('publishes more keys than one transaction holds', async () => {
    const [a, b] = pair(1);
    for (let i = 0; i < 300; i++) expect(a.take(`a:10.0.${i >> 8}.${i & 255}`, T0).allowed).toBe(true);
    await a.syncNow(T0);
    await b.syncNow(T0);
    const denied = Array.from({ length: 300 }, (_, i) => !b.peek(`a:10.0.${i >> 8}.${i & 255}`, T0).allowed);
    expect(denied.every(Boolean)).toBe(true);
  });

  it('keeps limiting on local counts when etcd is unreachable and reports it once', async () => {
    const dead = await deadClient();
    const errors: unknown[] = [];
    const counts = new EtcdSharedCounts({ client: dead, prefix: 'rl-dead', instanceId: 'a', deadlineMs: 200 });
    const limiter = new SharedRateLimiter({ limit: 3, windowMs: MINUTE, counts, timer: false, onError: (e) => errors.push(e) });
    limiters.push(limiter);
    const decisions: boolean[] = [];
    for (let i = 0; i < 5; i++) {
      decisions.push(limiter.take('k', T0).allowed);
      await limiter.syncNow(T0);
    }
    expect(decisions).toEqual([true, true, true, false, false]);
    expect(errors.length).toBe(1);
    expect(errors[0]).toBeInstanceOf(EtcdError);
  });

  /** A client whose requests do not overlap, alternating over `a` and `b`, both syncing after each `every` requests. */
  const sequential = async (a: SharedRateLimiter, b: SharedRateLimiter, requests: number, every?: number): Promise<RateLimitDecision[]> => {
    const decisions: RateLimitDecision[] = [];
    for (let i = 0; i < requests; i++) {
      const decision = (i % 2 === 0 ? a : b).takeShared('p:alice', { now: T0 + 1 });
      decisions.push(decision instanceof Promise ? await decision : decision);
      if (every !== undefined && (i + 1) % every === 0) {
        await a.syncNow(T0 + 1);
        await b.syncNow(T0 + 1);
      }
    }
    return decisions;
  };

  it('limits a sequential client alternating over two instances exactly, with no periodic sync, Remaining included', async () => {
    const [a, b, prefix] = pair(8);
    const decisions = await sequential(a, b, 14);
    expect(decisions.map((d) => d.allowed)).toEqual([...Array<boolean>(8).fill(true), ...Array<boolean>(6).fill(false)]);
    expect(decisions.slice(0, 8).map((d) => d.remaining)).toEqual([7, 6, 5, 4, 3, 2, 1, 0]);
    // Each admission was published before it was answered: 4 and 4, in the usual layout.
    const { kvs } = await client().range(`${prefix}/rl/${T0}/`, { prefix: true });
    expect(kvs.map((kv) => [kv.key.replace(/\/[A-Za-z0-9_-]{22}\//, '/<hash>/'), kv.value])).toEqual([
      [`${prefix}/rl/${T0}/<hash>/a`, '4'],
      [`${prefix}/rl/${T0}/<hash>/b`, '4'],
    ]);
  });

  it('admits a sequential client exactly the limit when it sends fewer than syncMargin requests between syncs', async () => {
    const limit = 40;
    const [a, b] = pair(limit);
    expect(a.syncMargin).toBe(20);
    const decisions = await sequential(a, b, 120, 8);
    expect(decisions.filter((d) => d.allowed).length).toBe(limit);
  });

  it('near the limit with etcd unreachable, decides on local counts within the deadline and reports it once', async () => {
    const dead = await deadClient();
    const errors: unknown[] = [];
    const counts = new EtcdSharedCounts({ client: dead, prefix: 'rl-dead', instanceId: 'a' });
    const limiter = new SharedRateLimiter({
      limit: 3,
      windowMs: MINUTE,
      counts,
      timer: false,
      syncDeadlineMs: 300,
      onError: (e) => errors.push(e),
    });
    limiters.push(limiter);
    const first = limiter.takeShared('k', { now: T0 });
    expect(first).toBeInstanceOf(Promise);
    const decisions = [await first];
    // The streak goes on: decided locally at once, until a sync succeeds.
    for (let i = 0; i < 4; i++) {
      const decision = limiter.takeShared('k', { now: T0 });
      expect(decision).not.toBeInstanceOf(Promise);
      decisions.push(decision as RateLimitDecision);
    }
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
    // The client would go on retrying for its own 2 s deadline: the limiter's 300 ms cut it short.
    expect(errors.map(String)).toEqual([expect.stringMatching(/longer than 300 ms/)]);
  });
});
