/**
 * Fault drills of the reference server on etcd, over real sockets: two service instances share a
 * three-member etcd cluster on loopback. Each drill runs a burst of creates and deletes through
 * both instances while something dies, with clients that retry a failed request (a 503, a reset
 * connection) with the same Idempotency-Key, as the README tells them to. Afterwards every
 * acknowledged create exists exactly once, every acknowledged delete holds, and no create was
 * applied twice.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EtcdClient } from '../../src/storage/etcd/client.js';
import { skipWithoutEtcd, startEtcd, type EtcdCluster, type EtcdMember } from '../helpers/etcd.js';
import { until } from '../helpers/poll.js';
import { http, removeDir, startServer, type HttpResult, type RunningServer } from '../helpers/server.js';
import { CutProxy } from '../storage/etcd/store-helpers.js';

const SECRET = 'service-faults-token-secret-0123456789abcdef';

interface Pair {
  readonly a: RunningServer;
  readonly b: RunningServer;
  readonly env: Record<string, string>;
  readonly dirs: string[];
}

/** Starts one instance of the service on etcd with `env` (STORAGE=etcd and friends). */
function instance(env: Record<string, string>): Promise<RunningServer> {
  return startServer({ env: { LOG_REQUESTS: 'false', RATE_LIMIT_PER_MINUTE: '0', AUTH_FAILURES_PER_MINUTE: '0', ...env } });
}

async function startPair(endpoints: string[], extra: Record<string, string> = {}): Promise<Pair> {
  const files = mkdtempSync(join(tmpdir(), 'faults-files-'));
  const env = {
    STORAGE: 'etcd',
    ETCD_ENDPOINTS: endpoints.join(','),
    ETCD_PREFIX: `/faults/${randomUUID()}`,
    TOKEN_SECRET: SECRET,
    FILES_DIR: files,
    SEED: 'none',
    ...extra,
  };
  const [a, b] = await Promise.all([instance(env), instance(env)]);
  return { a: a!, b: b!, env, dirs: [files, a!.dataDir, b!.dataDir] };
}

async function stopPair(pair: Pair | undefined): Promise<void> {
  if (pair === undefined) return;
  await Promise.all([pair.a.stop('SIGKILL'), pair.b.stop('SIGKILL')]);
  for (const dir of pair.dirs) removeDir(dir);
}

/**
 * A client that retries: sends to the instances in turn until an answer other than a 503 or a
 * network error arrives (bounded); the same Idempotency-Key makes a repeated create safe.
 */
async function retrying(servers: RunningServer[], start: number, send: (url: string) => Promise<HttpResult>): Promise<HttpResult> {
  let last: unknown;
  for (let attempt = 0; attempt < 60; attempt++) {
    const server = servers[(start + attempt) % servers.length]!;
    if (server.process.exitCode === null && server.process.signalCode === null) {
      try {
        const r = await send(server.url);
        if (r.status !== 503) return r;
        last = new Error(`503: ${r.text}`);
      } catch (error) {
        last = error;
      }
    }
    // A client's retry policy (back off, then try again), not a synchronisation.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no answer after 60 attempts: ${String(last)}`);
}

interface BurstResult {
  created: Map<string, number>;
  deleted: Set<string>;
}

/**
 * `count` creates (unique emails and keys, instances alternating, 8 at a time); every third
 * created user is then deleted. `fault` runs once a quarter of the creates are acknowledged.
 */
async function burst(tag: string, servers: RunningServer[], count: number, fault: () => Promise<void>): Promise<BurstResult> {
  const created = new Map<string, number>();
  const deleted = new Set<string>();
  let acknowledged = 0;
  let faulted: Promise<void> | undefined;
  const one = async (i: number): Promise<void> => {
    const email = `${tag}-${i}@faults.example`;
    const r = await retrying(servers, i, (url) =>
      http(url, 'POST', '/api/users', { headers: { 'idempotency-key': `${tag}-${i}` }, body: { email, firstName: 'Fau', lastName: 'Lt' } }),
    );
    expect(r.status).toBe(201);
    created.set(email, r.json<{ id: number }>().id);
    if (++acknowledged === Math.floor(count / 4)) faulted = fault();
    if (i % 3 === 0) {
      const d = await retrying(servers, i + 1, (url) => http(url, 'DELETE', `/api/users/${created.get(email)}`));
      // 404 after a retry: the first attempt deleted it and its answer was lost.
      expect([204, 404]).toContain(d.status);
      deleted.add(email);
    }
  };
  const queue = Array.from({ length: count }, (_, i) => i);
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = queue.shift(); i !== undefined; i = queue.shift()) await one(i);
    }),
  );
  await faulted;
  return { created, deleted };
}

/** Every acknowledged create exists exactly once (by its unique email), every acknowledged delete holds. */
async function verify(server: RunningServer, tag: string, result: BurstResult): Promise<void> {
  const users = (await http(server.url, 'GET', `/api/users/search?email=${tag}-`)).json<Array<{ id: number; email: string }>>();
  const byEmail = new Map<string, number[]>();
  for (const u of users) byEmail.set(u.email, [...(byEmail.get(u.email) ?? []), u.id]);
  for (const [email, id] of result.created) {
    if (result.deleted.has(email)) {
      expect(byEmail.get(email), `${email} was deleted`).toBeUndefined();
      expect((await http(server.url, 'GET', `/api/users/${id}`)).status).toBe(404);
    } else {
      expect(byEmail.get(email), `${email} exists exactly once`).toEqual([id]);
    }
  }
  expect(users.length).toBe(result.created.size - result.deleted.size); // nothing applied twice
}

/** The member that is the raft leader (or a follower), asking each member itself. */
async function memberWhere(cluster: EtcdCluster, leader: boolean): Promise<EtcdMember> {
  for (const member of cluster.members) {
    const client = new EtcdClient({ endpoints: [member.endpoint], deadlineMs: 2000 });
    try {
      const status = await client.status();
      if ((status.memberId === status.leader) === leader) return member;
    } finally {
      await client.close();
    }
  }
  throw new Error(`no member says it is ${leader ? 'the leader' : 'a follower'}`);
}

interface JobBody {
  status: string;
  total: number;
  processed: number;
  created: number[];
  failed: unknown[];
}

describe.skipIf(skipWithoutEtcd)('the reference server on a three-member etcd cluster under faults', () => {
  let cluster: EtcdCluster | undefined;
  let pair: Pair | undefined;
  const proxies: CutProxy[] = [];
  afterEach(async () => {
    for (const proxy of proxies.splice(0)) {
      proxy.restore();
      await proxy.close();
    }
    await stopPair(pair);
    pair = undefined;
    await cluster?.stop();
    cluster = undefined;
  });

  it('SIGKILL of one etcd member during a burst of creates and deletes: nothing lost, nothing twice', async () => {
    cluster = await startEtcd(3);
    pair = await startPair(cluster.endpoints);
    const follower = await memberWhere(cluster, false);
    const result = await burst('member', [pair.a, pair.b], 200, () => cluster!.kill(follower));
    expect(follower.process.signalCode).toBe('SIGKILL');
    await verify(pair.b, 'member', result);
  }, 120_000);

  it('SIGKILL of the etcd leader during a burst: a new leader is elected, nothing lost, nothing twice', async () => {
    cluster = await startEtcd(3);
    pair = await startPair(cluster.endpoints);
    const leader = await memberWhere(cluster, true);
    const result = await burst('leader', [pair.a, pair.b], 200, () => cluster!.kill(leader));
    expect(leader.process.signalCode).toBe('SIGKILL');
    await verify(pair.a, 'leader', result);
  }, 120_000);

  it('SIGKILL of one service instance during a burst: its clients retry on the other, nothing lost, nothing twice', async () => {
    cluster = await startEtcd(3);
    pair = await startPair(cluster.endpoints);
    const { a, b } = pair;
    const result = await burst('instance', [a, b], 200, async () => {
      await a.stop('SIGKILL');
    });
    expect(a.process.signalCode).toBe('SIGKILL');
    await verify(b, 'instance', result);
  }, 120_000);

  it('SIGKILL of the instance running an async job: another one takes it over and finishes it, each item once', async () => {
    cluster = await startEtcd(3);
    pair = await startPair(cluster.endpoints, { ETCD_LEASE_TTL_SECONDS: '2' });
    const { a, b } = pair;
    const total = 600;
    const items = Array.from({ length: total }, (_, i) => ({ email: `takeover-${i}@faults.example`, firstName: 'Tak', lastName: 'Eover' }));
    const accepted = await http(a.url, 'POST', '/api/async/users', { body: items });
    expect(accepted.status).toBe(202);
    const path = new URL(accepted.headers.location as string).pathname;
    let seen: JobBody | undefined;
    await until(async () => (seen = (await http(a.url, 'GET', path)).json<JobBody>()).processed >= 20, 'the job to get going', 20_000);
    await a.stop('SIGKILL');
    expect(seen!.processed).toBeLessThan(total); // killed mid-job
    let finished: JobBody | undefined;
    await until(
      async () => ['COMPLETED', 'FAILED'].includes((finished = (await http(b.url, 'GET', path)).json<JobBody>()).status),
      'the other instance to finish the job',
      60_000,
      50,
    );
    expect(finished).toMatchObject({ status: 'COMPLETED', total, processed: total, failed: [] });
    expect(new Set(finished!.created).size).toBe(total);
    const users = (await http(b.url, 'GET', '/api/users/search?email=takeover-')).json<Array<{ id: number; email: string }>>();
    expect(users).toHaveLength(total);
    expect(new Set(users.map((u) => u.email)).size).toBe(total);
  }, 120_000);

  it('a network stall to etcd longer than the deadline: 503, then the retry with the same key gets the first answer', async () => {
    cluster = await startEtcd(3);
    for (const endpoint of cluster.endpoints) proxies.push(await CutProxy.start(endpoint));
    pair = await startPair(
      proxies.map((p) => p.endpoint),
      {},
    );
    const { a } = pair;
    const body = { email: 'stalled@faults.example', firstName: 'Sta', lastName: 'Lled' };
    const headers = { 'idempotency-key': 'stalled-1' };
    // A create is two transactions: the id reservation, then the write. The network stalls (every
    // connection of every member, answers included) right after the write has reached etcd.
    const freezeAll = (): void => {
      for (const p of proxies) p.freeze();
    };
    for (const p of proxies) p.freezeAfter('POST /v3/kv/txn', 2, freezeAll);
    const stalled = await http(a.url, 'POST', '/api/users', { headers, body });
    expect(stalled.status).toBe(503);
    expect(stalled.headers['retry-after']).toBe('1');
    for (const p of proxies) p.restore();
    const retry = await retrying([a, pair.b], 0, (url) => http(url, 'POST', '/api/users', { headers, body }));
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true'); // the write of the stalled request, answered now
    const users = (await http(pair.b.url, 'GET', '/api/users?email=stalled%40faults.example')).json<Array<{ id: number }>>();
    expect(users.map((u) => u.id)).toEqual([retry.json<{ id: number }>().id]);
  }, 120_000);
});
