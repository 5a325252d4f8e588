import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_COLLECTION, IdempotencyService, type Idempotent } from '../../../src/domain/common/idempotency.js';
import { USERS_COLLECTION } from '../../../src/domain/users/model.js';
import { UserService } from '../../../src/domain/users/service.js';
import type { UserRepresentation } from '../../../src/domain/users/representation.js';
import { MemoryRecordStore } from '../../../src/storage/index.js';

async function setup(now = { t: Date.UTC(2026, 0, 1) }) {
  const store = new MemoryRecordStore();
  await store.open();
  const users = new UserService(store);
  const idempotency = new IdempotencyService(store, { ttlSeconds: 60, now: () => now.t });
  const body = { email: 'k@example.com', firstName: 'Kay', lastName: 'Dee' };
  const create = (key: string | undefined, input: object = body): Promise<Idempotent<UserRepresentation>> =>
    idempotency.execute(key, `POST /api/users ${JSON.stringify(input)}`, (claim) =>
      users.create(
        input,
        claim?.commitWith((user) => ({ status: 201, location: `http://h/api/users/${user.id}`, body: user })),
      ),
    );
  return { store, users, idempotency, create, now };
}

describe('Idempotency-Key', () => {
  it('stores the first answer with the write and replays it to a retry: one user, the same answer', async () => {
    const { store, create } = await setup();
    const first = await create('key-1');
    if (first.replayed) throw new Error('the first request must write');
    expect(await create('key-1')).toEqual({
      replayed: true,
      answer: { status: 201, location: `http://h/api/users/${first.result.id}`, body: first.result },
    });
    expect(store.size(USERS_COLLECTION)).toBe(1);
    expect(store.size(IDEMPOTENCY_COLLECTION)).toBe(1);
  });

  it('without a key every POST writes', async () => {
    const { store, create } = await setup();
    await create(undefined);
    await create(undefined);
    expect(store.size(USERS_COLLECTION)).toBe(2);
    expect(store.size(IDEMPOTENCY_COLLECTION)).toBe(0);
  });

  it('makes a fingerprint given as a function only for a keyed request, with the same outcome as the string', async () => {
    const { store, users, idempotency } = await setup();
    const made: string[] = [];
    const fingerprint = (input: object) => () => {
      const f = `POST /api/users ${JSON.stringify(input)}`;
      made.push(f);
      return f;
    };
    const write = (input: object) => () => users.create(input);
    const unkeyed = await idempotency.execute(
      undefined,
      fingerprint({ email: 'a@example.com', firstName: 'Ann', lastName: 'Lee' }),
      write({ email: 'a@example.com', firstName: 'Ann', lastName: 'Lee' }),
    );
    expect(unkeyed.replayed).toBe(false);
    expect(made).toEqual([]);
    const input = { email: 'b@example.com', firstName: 'Bob', lastName: 'Lee' };
    const first = await idempotency.execute('key-f', fingerprint(input), (claim) =>
      users.create(
        input,
        claim?.commitWith((user) => ({ status: 201, location: `http://h/api/users/${user.id}`, body: user })),
      ),
    );
    expect(first.replayed).toBe(false);
    expect(made).toEqual([`POST /api/users ${JSON.stringify(input)}`]);
    // The string form of the same fingerprint matches the stored one: a replay, not a 422.
    const again = await idempotency.execute('key-f', `POST /api/users ${JSON.stringify(input)}`, write(input));
    expect(again.replayed).toBe(true);
    expect(store.size(USERS_COLLECTION)).toBe(2);
  });

  it('the same key with another body is 422 and writes nothing', async () => {
    const { store, create } = await setup();
    await create('key-2');
    await expect(create('key-2', { email: 'other@example.com', firstName: 'Oth', lastName: 'Er' })).rejects.toMatchObject({
      status: 422,
      code: 'IDEMPOTENCY_KEY_REUSED',
    });
    expect(store.size(USERS_COLLECTION)).toBe(1);
  });

  it('concurrent requests with one key: exactly one writes, every one gets its answer', async () => {
    const { store, create } = await setup();
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => create('key-3')));
    expect(store.size(USERS_COLLECTION)).toBe(1);
    const ids = outcomes.map((o) => (o.replayed ? (o.answer.body as UserRepresentation).id : o.result.id));
    expect(new Set(ids).size).toBe(1);
    expect(outcomes.filter((o) => !o.replayed)).toHaveLength(1);
  });

  it('a failed write stores no answer: the retry writes', async () => {
    const { store, create } = await setup();
    await expect(create('key-4', { email: 'not an email', firstName: 'X', lastName: 'Y' })).rejects.toMatchObject({ status: 400 });
    expect(store.size(IDEMPOTENCY_COLLECTION)).toBe(0);
    expect((await create('key-4')).replayed).toBe(false);
  });

  it('after the TTL the key is free again, and sweep() removes expired answers', async () => {
    const { store, create, idempotency, now } = await setup();
    await create('key-5');
    now.t += 61_000;
    expect(await idempotency.sweep()).toBe(1);
    expect(store.size(IDEMPOTENCY_COLLECTION)).toBe(0);
    await create('key-6');
    now.t += 61_000;
    // An expired answer still stored is replaced by the next write with that key.
    expect((await create('key-6')).replayed).toBe(false);
    expect(store.size(USERS_COLLECTION)).toBe(3);
    expect(store.size(IDEMPOTENCY_COLLECTION)).toBe(1);
  });

  it('refuses a malformed key with 400', async () => {
    const { create } = await setup();
    for (const key of ['', 'has space', 'x'.repeat(256), 'é']) {
      await expect(create(key)).rejects.toMatchObject({ status: 400, code: 'IDEMPOTENCY_KEY_INVALID' });
    }
  });
});
