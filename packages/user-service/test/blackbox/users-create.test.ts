import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_JSON_SCHEMA, validateAgainstUserSchema } from '../../src/domain/users/schema.js';
import { http, removeDir, startServer, type HttpResult, type RunningServer } from '../helpers/server.js';

/**
 * POST /api/users and the User representation, black-box against the real server.
 * Pins the issue decisions: emails are not unique, `age` is optional and then absent (never
 * null), timestamps are UTC seconds with `Z`, the body has exactly the SPEC's User fields and
 * validates against the served schema, and server-owned fields sent by a client are ignored.
 */

/** UTC, seconds precision, `Z` suffix: the SPEC's `YYYY-MM-DDTHH:MM:SS` prefix and nothing finer. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const USER_FIELDS = ['id', 'email', 'firstName', 'lastName', 'age', 'fullName', 'status', 'roles', 'createdAt', 'updatedAt', 'birthDate'];

let server: RunningServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  expect(await server.stop('SIGTERM')).toBe(0);
  removeDir(server.dataDir);
});

function create(body: unknown): Promise<HttpResult> {
  return http(server.url, 'POST', '/api/users', { headers: { 'x-api-version': '1' }, body });
}

/** Every user the API returns must validate against the User schema (and carry only its fields). */
function expectValidUser(user: unknown): void {
  expect(validateAgainstUserSchema(user)).toEqual([]);
  for (const key of Object.keys(user as object)) expect(USER_FIELDS).toContain(key);
}

describe('POST /api/users', () => {
  it('answers 201 with Location /api/users/<id> and a User body that GET returns unchanged', async () => {
    const r = await create({ email: 'new.user@example.com', firstName: 'New', lastName: 'User', age: 42 });
    expect(r.status).toBe(201);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    const user = r.json();
    expectValidUser(user);
    expect(user).toMatchObject({
      email: 'new.user@example.com',
      firstName: 'New',
      lastName: 'User',
      age: 42,
      fullName: 'New User',
      status: 'ACTIVE',
      roles: ['USER'],
    });
    expect(Number.isInteger(user.id) && user.id >= 1).toBe(true);
    const location = String(r.headers.location);
    expect(location).toContain(`/api/users/${user.id}`);
    expect(new URL(location, server.url).pathname).toBe(`/api/users/${user.id}`);

    const got = await http(server.url, 'GET', `/api/users/${user.id}`);
    expect(got.status).toBe(200);
    expect(got.json()).toEqual(user);
  });

  it('stamps createdAt and updatedAt at creation, UTC seconds precision with Z; ids and ages are integers', async () => {
    const before = new Date(Math.floor(Date.now() / 1000) * 1000);
    const r = await create({ email: 'stamp@example.com', firstName: 'Stamp', lastName: 'Ed', age: 18 });
    const after = new Date();
    const user = r.json();
    expect(user.createdAt).toMatch(TIMESTAMP);
    expect(user.updatedAt).toMatch(TIMESTAMP);
    expect(user.updatedAt).toBe(user.createdAt);
    const created = Date.parse(user.createdAt);
    expect(created).toBeGreaterThanOrEqual(before.getTime());
    expect(created).toBeLessThanOrEqual(after.getTime());
    expect(Number.isInteger(user.id)).toBe(true);
    expect(Number.isInteger(user.age)).toBe(true);
    // The raw JSON text, not only the parsed value: `"age":18`, never `18.0` or `"18"`.
    expect(r.text).toMatch(/"id":\d+,/);
    expect(r.text).toContain('"age":18,');
  });

  it('accepts the same email twice (emails are not unique): 201 both times, two ids', async () => {
    const body = { email: 'twice@example.com', firstName: 'Twi', lastName: 'Ce' };
    const a = await create(body);
    const b = await create(body);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.json().id).not.toBe(b.json().id);
    const found = await http(server.url, 'GET', '/api/users?email=twice%40example.com');
    expect(found.json().map((u: { id: number }) => u.id)).toEqual([a.json().id, b.json().id]);
  });

  it('makes age optional: absent or null age leaves the key out of every response (never null)', async () => {
    for (const body of [
      { email: 'no.age@example.com', firstName: 'No', lastName: 'Age' },
      { email: 'null.age@example.com', firstName: 'Null', lastName: 'Age', age: null },
    ]) {
      const r = await create(body);
      expect(r.status).toBe(201);
      expect(Object.hasOwn(r.json(), 'age')).toBe(false);
      expect(r.text).not.toMatch(/:\s*null/);
      expectValidUser(r.json());
      const got = await http(server.url, 'GET', `/api/users/${r.json().id}`);
      expect(Object.hasOwn(got.json(), 'age')).toBe(false);
      expect(got.text).not.toMatch(/:\s*null/);
    }
  });

  it('never applies server-owned fields (id, roles, status, createdAt, updatedAt, fullName, birthDate) sent by a client', async () => {
    const r = await create({
      email: 'sneaky@example.com',
      firstName: 'Sne',
      lastName: 'Aky',
      id: 424242,
      roles: ['ADMIN'],
      status: 'INACTIVE',
      createdAt: '2000-01-01T00:00:00Z',
      updatedAt: '2000-01-01T00:00:00Z',
      fullName: 'Root Admin',
      birthDate: '2000-01-01',
      kind: 'variant',
      name: 'X',
    });
    expect(r.status).toBe(201);
    const user = r.json();
    expectValidUser(user);
    expect(user.id).not.toBe(424242);
    expect(user.roles).toEqual(['USER']);
    expect(user.status).toBe('ACTIVE');
    expect(user.createdAt).not.toBe('2000-01-01T00:00:00Z');
    expect(user.updatedAt).not.toBe('2000-01-01T00:00:00Z');
    expect(user.fullName).toBe('Sne Aky');
    expect(user).not.toHaveProperty('birthDate');
    expect(user).not.toHaveProperty('name');
    expect((await http(server.url, 'GET', '/api/users/424242')).status).toBe(404);
  });

  it('accepts boundary values: firstName of 2 and 50 characters, lastName of 1, age 18 and 100', async () => {
    const ok = [
      { email: 'b1@example.com', firstName: 'Al', lastName: 'X', age: 18 },
      { email: 'b2@example.com', firstName: 'F'.repeat(50), lastName: 'L'.repeat(50), age: 100 },
    ];
    for (const body of ok) {
      const r = await create(body);
      expect(r.status).toBe(201);
      expectValidUser(r.json());
      expect(r.json().fullName).toBe(`${body.firstName} ${body.lastName}`);
    }
  });
});

describe('concurrent creates', () => {
  it('give 20 distinct ids and 20 stored users', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => create({ email: `many${i}@example.com`, firstName: 'Ma', lastName: `Ny${i}` })),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    const ids = results.map((r) => r.json().id as number);
    expect(new Set(ids).size).toBe(20);
    for (const id of ids) expect((await http(server.url, 'GET', `/api/users/${id}`)).status).toBe(200);
  });
});

describe('GET /api/schema/user and the representation of seeded users', () => {
  it('serves the User JSON Schema (additionalProperties false, the SPEC required fields)', async () => {
    const r = await http(server.url, 'GET', '/api/schema/user');
    expect(r.status).toBe(200);
    const schema = r.json();
    // The served schema is the one validateAgainstUserSchema interprets, so checks below use it.
    expect(schema).toEqual(USER_JSON_SCHEMA);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(['id', 'email', 'firstName', 'lastName', 'createdAt']);
    expect(Object.keys(schema.properties).sort()).toEqual([...USER_FIELDS].sort());
  });

  it('serves seeded user 1 with every SPEC field, valid against the schema', async () => {
    const r = await http(server.url, 'GET', '/api/users/1');
    expect(r.status).toBe(200);
    const user = r.json();
    expectValidUser(user);
    expect(user).toMatchObject({
      id: 1,
      email: 'test@example.com',
      firstName: 'John',
      lastName: 'Doe',
      fullName: 'John Doe',
      roles: ['USER'],
    });
    expect(user.createdAt).toMatch(TIMESTAMP);
    expect(user.updatedAt).toMatch(TIMESTAMP);
    if (user.birthDate !== undefined) expect(user.birthDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('returns only schema-valid users from the list after all the creates above', async () => {
    const r = await http(server.url, 'GET', '/api/users');
    expect(r.status).toBe(200);
    const users = r.json() as unknown[];
    expect(users.length).toBeGreaterThanOrEqual(5);
    for (const user of users) expectValidUser(user);
  });
});
