/**
 * Durability under `kill -9` (the durability contract of the README "Storage"): every write the real server acknowledged
 * with a 2xx must be there, exactly as acknowledged, after SIGKILL and a restart on the same
 * DATA_DIR; ids are never reused. The kill comes from the response handler that counts acks
 * (no timers), so it lands while ~20 requests are still in flight.
 *
 * Per user the model keeps the set of states it may legally be in: the acknowledged one, plus
 * the outcome of a follow-up write that was sent but never answered (it may or may not have
 * reached the journal before the kill). A user's writes are sequential (create, then PUT and/or
 * DELETE, each sent only after the previous one was acknowledged), so the set never holds more
 * than two states.
 */
import { isDeepStrictEqual } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { removeDir, startServer, type RunningServer } from '../helpers/server.js';

type UserBody = Record<string, unknown> & { id: number };
/**
 * A state a user may be in after restart: exactly an acknowledged representation; the result of
 * an unanswered PUT (its fields over the old server-owned ones, `updatedAt` unknown); or gone.
 */
type State = { kind: 'exact'; body: UserBody } | { kind: 'put'; fields: Record<string, unknown> } | { kind: 'absent' };

const ENV = { RATE_LIMIT_PER_MINUTE: '0', LOG_REQUESTS: 'false' };
const CREATES = 300;
const IN_FLIGHT = 20;
const KILL_AFTER_ACKS = 150;
const ROUNDS = 2;

interface Outcome {
  status: number;
  body: unknown;
}

/** One request; a socket error (the server was killed) resolves as status 0, never throws. */
async function send(
  dispatcher: Agent,
  base: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<Outcome> {
  try {
    const res = await request(`${base}${path}`, {
      method,
      dispatcher,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    return { status: res.statusCode, body: text === '' ? undefined : JSON.parse(text) };
  } catch {
    return { status: 0, body: undefined };
  }
}

/** What the test knows about every user id it ever saw acknowledged. */
class Model {
  /** id -> states it may legally be in after a crash. */
  readonly allowed = new Map<number, State[]>();
  maxSeenId = 0;
  readonly acks = { create: 0, put: 0, delete: 0 };

  /** The write's acknowledgement fixes the state; alternatives from before are gone. */
  ack(id: number, state: State): void {
    this.maxSeenId = Math.max(this.maxSeenId, id);
    this.allowed.set(id, [state]);
  }

  /** A write was sent: until acknowledged, its effect may or may not survive. */
  pending(id: number, state: State): void {
    this.allowed.get(id)!.push(state);
  }

  /** The user's acknowledged representation (before any follow-up was sent). */
  body(id: number): UserBody {
    const s = this.allowed.get(id)![0]!;
    if (s.kind !== 'exact') throw new Error(`user ${id} has no acknowledged body`);
    return s.body;
  }
}

/** Tasks of one burst: creates in order, a follow-up jumps the queue once its create is acked. */
type Task = { kind: 'create'; n: number } | { kind: 'put'; id: number; n: number; thenDelete: boolean } | { kind: 'delete'; id: number };

/**
 * Fires `CREATES` creates with `IN_FLIGHT` workers; of every 5 acknowledged users one is
 * deleted, one replaced, one replaced and then deleted. SIGKILLs the server from the handler of
 * ack number `KILL_AFTER_ACKS`. Resolves once every worker has seen its last answer or socket
 * error. `unexpected` lists answers that were neither the success status nor a cut connection.
 */
async function burst(
  server: RunningServer,
  model: Model,
  round: number,
): Promise<{ acked: number; failed: number; unsent: number; unexpected: string[] }> {
  const dispatcher = new Agent({ connections: IN_FLIGHT, headersTimeout: 10_000, bodyTimeout: 10_000 });
  const queue: Task[] = Array.from({ length: CREATES }, (_, n) => ({ kind: 'create', n }));
  let acked = 0;
  let failed = 0;
  let killed = false;
  const unexpected: string[] = [];
  const refused = (what: string, r: Outcome): void => {
    failed++;
    if (r.status !== 0) unexpected.push(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  };
  const onAck = (): void => {
    acked++;
    if (acked === KILL_AFTER_ACKS) {
      killed = true;
      server.process.kill('SIGKILL');
    }
  };
  const userOf = (n: number, what: string) => ({
    email: `r${round}-${what}-${n}@crash.test`,
    firstName: `F${round}x${n}${what}`,
    lastName: `L${n}`,
    age: 20 + (n % 50),
  });

  const worker = async (): Promise<void> => {
    // Bounded: at most CREATES creates plus two follow-ups each.
    for (let step = 0; step < CREATES * 3 && !killed; step++) {
      const task = queue.shift();
      if (task === undefined) return;
      if (task.kind === 'create') {
        const r = await send(dispatcher, server.url, 'POST', '/api/users', userOf(task.n, 'c'));
        if (r.status !== 201) {
          refused(`POST #${task.n}`, r);
          continue;
        }
        const user = r.body as UserBody;
        model.acks.create++;
        model.ack(user.id, { kind: 'exact', body: user });
        if (task.n % 5 === 0) queue.unshift({ kind: 'delete', id: user.id });
        else if (task.n % 5 === 1 || task.n % 5 === 2) queue.unshift({ kind: 'put', id: user.id, n: task.n, thenDelete: task.n % 5 === 2 });
        onAck();
      } else if (task.kind === 'put') {
        const fields = userOf(task.n, 'p');
        const before = model.body(task.id);
        model.pending(task.id, {
          kind: 'put',
          fields: { ...fields, id: task.id, createdAt: before['createdAt'], status: before['status'] },
        });
        const r = await send(dispatcher, server.url, 'PUT', `/api/users/${task.id}`, fields);
        if (r.status !== 200) {
          refused(`PUT ${task.id}`, r);
          continue;
        }
        model.acks.put++;
        model.ack(task.id, { kind: 'exact', body: r.body as UserBody });
        if (task.thenDelete) queue.unshift({ kind: 'delete', id: task.id });
        onAck();
      } else {
        model.pending(task.id, { kind: 'absent' });
        const r = await send(dispatcher, server.url, 'DELETE', `/api/users/${task.id}`);
        if (r.status !== 204) {
          refused(`DELETE ${task.id}`, r);
          continue;
        }
        model.acks.delete++;
        model.ack(task.id, { kind: 'absent' });
        onAck();
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  await dispatcher.destroy();
  return { acked, failed, unsent: queue.length, unexpected };
}

function satisfies(actual: Outcome, state: State): boolean {
  if (state.kind === 'absent') return actual.status === 404;
  if (actual.status !== 200) return false;
  const body = actual.body as UserBody;
  if (state.kind === 'exact') return isDeepStrictEqual(body, state.body);
  return Object.entries(state.fields).every(([k, v]) => body[k] === v);
}

/**
 * GETs every known id and checks it against the model; returns the mismatches. What survived
 * becomes the one known state for the next round.
 */
async function verify(base: string, model: Model): Promise<string[]> {
  const dispatcher = new Agent({ connections: IN_FLIGHT });
  const problems: string[] = [];
  const ids = [...model.allowed.keys()];
  for (let i = 0; i < ids.length; i += IN_FLIGHT) {
    await Promise.all(
      ids.slice(i, i + IN_FLIGHT).map(async (id) => {
        const actual = await send(dispatcher, base, 'GET', `/api/users/${id}`);
        const states = model.allowed.get(id)!;
        if (!states.some((s) => satisfies(actual, s))) {
          problems.push(`user ${id}: got ${actual.status} ${JSON.stringify(actual.body)}, allowed ${JSON.stringify(states)}`);
        } else {
          model.allowed.set(id, [actual.status === 404 ? { kind: 'absent' } : { kind: 'exact', body: actual.body as UserBody }]);
        }
      }),
    );
  }
  await dispatcher.destroy();
  return problems;
}

describe('acknowledged writes survive SIGKILL (journal storage)', () => {
  let dataDir: string | undefined;
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.stop('SIGKILL');
    if (dataDir !== undefined) removeDir(dataDir);
  });

  it(`keeps every acknowledged create, PUT and DELETE across ${ROUNDS} kill/restart rounds; ids never reused`, async () => {
    const started = Date.now();
    const model = new Model();
    server = await startServer({ env: ENV });
    dataDir = server.dataDir;
    for (let round = 1; round <= ROUNDS; round++) {
      const result = await burst(server, model, round);
      // The kill landed mid-burst: requests were cut off or never sent.
      expect(result.acked).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);
      expect(result.failed + result.unsent).toBeGreaterThan(0);
      expect(result.unexpected).toEqual([]);
      expect(await server.stop('SIGKILL')).toBeNull();

      server = await startServer({ env: ENV, dataDir });
      expect(await verify(server.url, model)).toEqual([]);

      // New users after the restart get ids above every id ever acknowledged.
      const dispatcher = new Agent({ connections: 5 });
      const fresh = await Promise.all(
        Array.from({ length: 5 }, (_, n) =>
          send(dispatcher, server!.url, 'POST', '/api/users', {
            email: `after-${round}-${n}@crash.test`,
            firstName: 'After',
            lastName: `R${round}`,
          }),
        ),
      );
      await dispatcher.destroy();
      const maxBefore = model.maxSeenId;
      for (const r of fresh) {
        expect(r.status).toBe(201);
        const user = r.body as UserBody;
        expect(user.id).toBeGreaterThan(maxBefore);
        model.ack(user.id, { kind: 'exact', body: user });
      }
      // The next round bursts against this recovered server, so it crashes a recovered journal.
    }
    expect(await verify(server.url, model)).toEqual([]);
    expect(await server.stop('SIGTERM')).toBe(0);
    server = undefined;
    const { create, put, delete: deleted } = model.acks;
    expect(create + put + deleted).toBeGreaterThanOrEqual(ROUNDS * KILL_AFTER_ACKS);
    expect(deleted).toBeGreaterThan(0);
    expect(put).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 40_000);
});
