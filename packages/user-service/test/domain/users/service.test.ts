import { BadRequestError, NotFoundError } from '@jaxrs-node/pipeline';
import { describe, expect, it } from 'vitest';
import { formatTimestamp } from '../../../src/domain/users/model.js';
import { toRepresentation, toUserRepresentation } from '../../../src/domain/users/representation.js';
import { MAX_LIST_ITEMS, UserService } from '../../../src/domain/users/service.js';
import { FakeRecordStore, fieldsOf, manualClock, rejected, thrown } from '../fake-store.js';

const body = { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', age: 36 };

function setup(visibility: 'sync' | 'deferred' = 'sync') {
  const store = new FakeRecordStore({ visibility });
  const time = manualClock();
  return { store, time, users: new UserService(store, { clock: time.clock }) };
}

describe('UserService.create', () => {
  it('stores an ACTIVE user with role USER and returns the exact User representation', async () => {
    const { users, store } = setup();
    const created = await users.create(body);
    expect(created).toEqual({
      id: 1,
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      age: 36,
      fullName: 'Ada Lovelace',
      status: 'ACTIVE',
      roles: ['USER'],
      createdAt: '2024-01-15T10:30:00Z',
      updatedAt: '2024-01-15T10:30:00Z',
    });
    expect(Object.keys(created)).toEqual([
      'id',
      'email',
      'firstName',
      'lastName',
      'age',
      'fullName',
      'status',
      'roles',
      'createdAt',
      'updatedAt',
    ]);
    expect(store.get('users', 1)).toMatchObject({ email: 'ada@example.com', status: 'ACTIVE' });
  });

  it('omits age when absent (never null)', async () => {
    const { users } = setup();
    const created = await users.create({ ...body, age: null });
    expect(created).not.toHaveProperty('age');
    expect(JSON.stringify(created)).not.toContain('null');
  });

  it('never applies server-owned fields from the body', async () => {
    const { users } = setup();
    const created = await users.create({
      ...body,
      id: 77,
      roles: ['ADMIN'],
      status: 'INACTIVE',
      createdAt: '2000-01-01T00:00:00Z',
      updatedAt: '2000-01-01T00:00:00Z',
      fullName: 'Evil',
      birthDate: '1900-01-01',
      kind: 'variant',
      name: 'x',
    });
    expect(created).toMatchObject({
      id: 1,
      roles: ['USER'],
      status: 'ACTIVE',
      fullName: 'Ada Lovelace',
      createdAt: '2024-01-15T10:30:00Z',
    });
    expect(created).not.toHaveProperty('birthDate');
    expect(users.get(1)).toHaveProperty('fullName'); // still a regular user, not a variant
  });

  it('rejects an invalid body with a 400 listing every violation and stores nothing', async () => {
    const { users, store } = setup();
    const error = await rejected(users.create({ email: 'bad', firstName: 'A', lastName: '', age: Number.POSITIVE_INFINITY }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.status).toBe(400);
    expect(error.message).toBe('Validation failed');
    expect(fieldsOf(error)).toEqual(['age', 'email', 'firstName', 'lastName']);
    expect(store.size('users')).toBe(0);
  });

  it('allows the same email many times', async () => {
    const { users } = setup();
    const a = await users.create(body);
    const b = await users.create(body);
    expect(a.id).not.toBe(b.id);
    expect(users.findByEmail('ada@example.com').map((u) => u.id)).toEqual([a.id, b.id]);
  });

  it('survives a prototype-pollution payload: no extra fields, Object.prototype clean', async () => {
    const { users, store } = setup();
    const payload = JSON.parse(
      '{"__proto__":{"x":1,"roles":["ADMIN"]},"constructor":{"prototype":{"x":2}},' +
        '"email":"p@example.com","firstName":"Pro","lastName":"To"}',
    ) as unknown;
    const created = await users.create(payload);
    expect(Object.keys(created)).toEqual(['id', 'email', 'firstName', 'lastName', 'fullName', 'status', 'roles', 'createdAt', 'updatedAt']);
    expect(created.roles).toEqual(['USER']);
    expect(Object.keys(store.get('users', created.id) ?? {})).not.toContain('__proto__');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    const patched = await users.patch(created.id, JSON.parse('{"__proto__":{"x":3},"age":20}'));
    expect(patched).toMatchObject({ age: 20 });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('does not index or return a user whose commit failed', async () => {
    const { users, store } = setup();
    await users.create(body);
    expect(users.count()).toBe(1);
    store.failNext = new Error('disk full');
    await expect(users.create(body)).rejects.toThrow('disk full');
    expect(users.count()).toBe(1);
    expect(users.list()).toHaveLength(1);
  });
});

describe('UserService.get / delete', () => {
  it('404s an absent user, a deleted user and nonsense ids', async () => {
    const { users } = setup();
    const { id } = await users.create(body);
    expect(users.get(id)).toMatchObject({ id });
    await users.delete(id);
    for (const missing of [id, 999, 0, -1, 1.5, Number.NaN]) {
      const error = thrown(() => users.get(missing));
      expect(error).toBeInstanceOf(NotFoundError);
    }
    expect((await rejected(users.delete(id))).status).toBe(404);
    expect(users.list()).toEqual([]);
  });

  it('never reuses the id of a deleted user', async () => {
    const { users } = setup();
    const first = await users.create(body);
    await users.delete(first.id);
    expect((await users.create(body)).id).toBe(first.id + 1);
  });
});

describe('UserService.replace (PUT)', () => {
  it('replaces every client field, keeps id/createdAt/roles/status/birthDate, bumps updatedAt', async () => {
    const { users, time } = setup();
    const created = await users.create(body, { birthDate: '1815-12-10' });
    time.advance(90);
    const replaced = await users.replace(created.id, { email: 'augusta@example.com', firstName: 'Augusta', lastName: 'King', id: 500 });
    expect(replaced).toEqual({
      id: created.id,
      email: 'augusta@example.com',
      firstName: 'Augusta',
      lastName: 'King',
      fullName: 'Augusta King',
      status: 'ACTIVE',
      roles: ['USER'],
      createdAt: '2024-01-15T10:30:00Z',
      updatedAt: '2024-01-15T10:31:30Z',
      birthDate: '1815-12-10',
    });
    expect(users.get(created.id)).toEqual(replaced); // age removed: PUT replaces all fields
  });

  it('is visible to list, search, email filter and pages right after it resolves', async () => {
    const { users, store } = setup();
    const { id } = await users.create(body);
    await users.replace(id, { email: 'new@example.org', firstName: 'Neo', lastName: 'Name' });
    expect(users.list()[0]).toMatchObject({ email: 'new@example.org', fullName: 'Neo Name' });
    expect(users.search('example.org').map((u) => u.id)).toEqual([id]);
    expect(users.findByEmail('ada@example.com')).toEqual([]);
    expect(users.page({ sort: 'firstName' }).content[0]).toMatchObject({ firstName: 'Neo' });
    expect(new UserService(store).list()[0]?.email).toBe('new@example.org');
  });

  it('is idempotent apart from updatedAt', async () => {
    const { users } = setup();
    const { id } = await users.create(body);
    const once = await users.replace(id, { ...body, firstName: 'Ann' });
    const twice = await users.replace(id, { ...body, firstName: 'Ann' });
    expect(twice).toEqual(once);
  });

  it('404s before validating, 400s with every violation for an existing user', async () => {
    const { users } = setup();
    expect((await rejected(users.replace(42, {}))).status).toBe(404);
    const { id } = await users.create(body);
    const error = await rejected(users.replace(id, { email: 'x', lastName: '' }));
    expect(fieldsOf(error)).toEqual(['email', 'firstName', 'lastName']);
    expect(users.get(id)).toMatchObject({ email: body.email }); // unchanged
  });
});

describe('UserService.patch (RFC 7396 merge patch)', () => {
  it('changes only the given members and recomputes fullName', async () => {
    const { users, time } = setup();
    const { id } = await users.create(body);
    time.advance(1);
    const patched = await users.patch(id, { lastName: 'King' });
    expect(patched).toMatchObject({ ...body, lastName: 'King', fullName: 'Ada King', updatedAt: '2024-01-15T10:30:01Z' });
  });

  it('null removes the optional age; null on a required field is a 400', async () => {
    const { users } = setup();
    const { id } = await users.create(body);
    expect(await users.patch(id, { age: null })).not.toHaveProperty('age');
    const error = await rejected(users.patch(id, { email: null, firstName: null }));
    expect(fieldsOf(error)).toEqual(['email', 'firstName']);
  });

  it('validates the merged result (invalid members all listed) and 404s absent users', async () => {
    const { users } = setup();
    const { id } = await users.create(body);
    expect(fieldsOf(await rejected(users.patch(id, { age: 'old', firstName: 'A' })))).toEqual(['age', 'firstName']);
    expect(fieldsOf(await rejected(users.patch(id, [])))).toEqual(['body']);
    expect((await rejected(users.patch(99, { age: 20 }))).status).toBe(404);
  });
});

describe('concurrent writes to one user', () => {
  it('serializes patches so none is lost, even when the store applies late', async () => {
    const { users } = setup('deferred');
    const { id } = await users.create(body);
    await Promise.all([users.patch(id, { firstName: 'Augusta' }), users.patch(id, { lastName: 'King' }), users.patch(id, { age: 40 })]);
    expect(users.get(id)).toMatchObject({ firstName: 'Augusta', lastName: 'King', age: 40 });
  });

  it('a patch queued behind a delete gets 404 instead of resurrecting the user', async () => {
    const { users, store } = setup('deferred');
    const { id } = await users.create(body);
    const [deleted, patched] = await Promise.allSettled([users.delete(id), users.patch(id, { age: 50 })]);
    expect(deleted.status).toBe('fulfilled');
    expect(patched.status).toBe('rejected');
    expect(store.get('users', id)).toBeUndefined();
  });
});

describe('variant users', () => {
  it('creates {id, name, email} and stores derived first/last names', async () => {
    const { users, store } = setup();
    const variant = await users.createVariant({ name: 'Grace Brewster Hopper', email: 'grace@example.com', id: 9 });
    expect(variant).toEqual({ id: 1, name: 'Grace Brewster Hopper', email: 'grace@example.com' });
    expect(Object.keys(variant)).toEqual(['id', 'name', 'email']);
    expect(store.get('users', 1)).toMatchObject({ kind: 'variant', firstName: 'Grace', lastName: 'Brewster Hopper', roles: ['USER'] });
    expect(users.get(1)).toEqual(variant);
  });

  it('one-word names fill lastName too; invalid bodies list every violation', async () => {
    const { users, store } = setup();
    await users.createVariant({ name: 'Cher', email: 'cher@example.com' });
    expect(store.get('users', 1)).toMatchObject({ firstName: 'Cher', lastName: 'Cher' });
    expect(fieldsOf(await rejected(users.createVariant({ name: '', email: 'x' })))).toEqual(['email', 'name']);
  });

  it('is excluded from list, email filter, search and pages, but can be updated and deleted', async () => {
    const { users } = setup();
    await users.create(body);
    const variant = await users.createVariant({ name: 'Ada Variant', email: 'ada@example.com' });
    expect(users.list().map((u) => u.id)).toEqual([1]);
    expect(users.findByEmail('ada@example.com').map((u) => u.id)).toEqual([1]);
    expect(users.search('ada').map((u) => u.id)).toEqual([1]);
    expect(users.page({ sort: 'email,asc' })).toMatchObject({ totalElements: 1, content: [{ id: 1 }] });
    expect(users.count()).toBe(1);
    expect(await users.patch(variant.id, { lastName: 'Byron' })).toEqual({ id: variant.id, name: 'Ada Byron', email: 'ada@example.com' });
    await users.delete(variant.id);
    expect(thrown(() => users.get(variant.id)).status).toBe(404);
  });
});

describe('list, findByEmail, search', () => {
  it('lists regular users by ascending id, capped at 1000', async () => {
    const { users } = setup();
    for (let i = 0; i < MAX_LIST_ITEMS + 5; i++) await users.create({ ...body, email: `u${i}@example.com` });
    const list = users.list();
    expect(list).toHaveLength(MAX_LIST_ITEMS);
    expect(list[0]?.id).toBe(1);
    expect(list.every((u, i) => i === 0 || (list[i - 1]?.id ?? 0) < u.id)).toBe(true);
    expect(users.search('example')).toHaveLength(MAX_LIST_ITEMS);
  });

  it('findByEmail is exact; search is a case-insensitive substring match that may be empty', async () => {
    const { users } = setup();
    await users.create({ ...body, email: 'Ada@Example.com' });
    await users.create({ ...body, email: 'bob@example.org' });
    expect(users.findByEmail('ada@example.com')).toEqual([]);
    expect(users.findByEmail('Ada@Example.com').map((u) => u.id)).toEqual([1]);
    expect(users.search('EXAMPLE').map((u) => u.id)).toEqual([1, 2]);
    expect(users.search('.org').map((u) => u.id)).toEqual([2]);
    expect(users.search('nobody')).toEqual([]);
  });

  it('returns copies: mutating a representation cannot reach the store', async () => {
    const { users, store } = setup();
    const { id } = await users.create(body);
    const rep = users.list()[0];
    rep?.roles.push('ADMIN');
    expect(store.get<{ id: number; roles: string[] }>('users', id)?.roles).toEqual(['USER']);
  });
});

describe('representations', () => {
  it('formatTimestamp is UTC, seconds precision, Z', () => {
    expect(formatTimestamp(new Date('2024-01-15T10:30:00.999+02:00'))).toBe('2024-01-15T08:30:00Z');
    expect(() => formatTimestamp(new Date(Number.NaN))).toThrow(RangeError);
  });

  it('emits keys in SPEC order, with birthDate last', () => {
    const stored = {
      id: 3,
      email: 'e@x.io',
      firstName: 'Fi',
      lastName: 'La',
      status: 'ACTIVE' as const,
      roles: ['USER'],
      createdAt: '2024-01-15T10:30:00Z',
      updatedAt: '2024-01-15T10:30:00Z',
      birthDate: '2000-02-29',
      age: 20,
    };
    expect(Object.keys(toUserRepresentation(stored))).toEqual([
      'id',
      'email',
      'firstName',
      'lastName',
      'age',
      'fullName',
      'status',
      'roles',
      'createdAt',
      'updatedAt',
      'birthDate',
    ]);
    expect(toRepresentation({ ...stored, kind: 'variant', name: 'Fi La' })).toEqual({ id: 3, name: 'Fi La', email: 'e@x.io' });
  });
});
