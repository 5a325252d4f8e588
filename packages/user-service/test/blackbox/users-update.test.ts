import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateAgainstUserSchema } from '../../src/domain/users/schema.js';
import { http, removeDir, startServer, type HttpResult, type RunningServer } from '../helpers/server.js';

/**
 * PUT (replace), PATCH (RFC 7396 JSON merge patch) and DELETE on /api/users/<id>, black-box.
 * Each test creates its own user so the order of tests does not matter.
 */

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

let server: RunningServer;
let seq = 0;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  expect(await server.stop('SIGTERM')).toBe(0);
  removeDir(server.dataDir);
});

/** A fresh user with an age, for one test. */
async function freshUser(): Promise<{ id: number; createdAt: string; [k: string]: unknown }> {
  seq++;
  const r = await http(server.url, 'POST', '/api/users', {
    body: { email: `upd${seq}@example.com`, firstName: 'Orig', lastName: 'Inal', age: 30 },
  });
  expect(r.status).toBe(201);
  return r.json();
}

function send(method: string, id: number, body: unknown, contentType = 'application/json'): Promise<HttpResult> {
  return http(server.url, method, `/api/users/${id}`, { headers: { 'content-type': contentType }, body: JSON.stringify(body) });
}

function expectValidationError(r: HttpResult, fields: string[]): void {
  expect(r.status).toBe(400);
  const body = r.json();
  expect(body).toMatchObject({ status: 400, error: 'Bad Request' });
  expect(body.errors.map((e: { field: string }) => e.field).sort()).toEqual([...fields].sort());
}

describe('PUT /api/users/<id>', () => {
  it('replaces every client field, recomputes fullName, keeps id and createdAt, drops an absent age', async () => {
    const user = await freshUser();
    const r = await send('PUT', user.id, { email: 'replaced@example.com', firstName: 'Re', lastName: 'Placed' });
    expect(r.status).toBe(200);
    const out = r.json();
    expect(validateAgainstUserSchema(out)).toEqual([]);
    expect(out).toMatchObject({ id: user.id, email: 'replaced@example.com', firstName: 'Re', lastName: 'Placed', fullName: 'Re Placed' });
    expect(out).not.toHaveProperty('age');
    expect(out.createdAt).toBe(user.createdAt);
    expect(out.updatedAt).toMatch(TIMESTAMP);
    expect(out.updatedAt >= out.createdAt).toBe(true);
    expect((await http(server.url, 'GET', `/api/users/${user.id}`)).json()).toEqual(out);
  });

  it('is idempotent: the same PUT twice gives the same representation (apart from updatedAt)', async () => {
    const user = await freshUser();
    const body = { email: 'idem@example.com', firstName: 'Idem', lastName: 'Potent', age: 50 };
    const a = (await send('PUT', user.id, body)).json();
    const b = (await send('PUT', user.id, body)).json();
    expect({ ...b, updatedAt: undefined }).toEqual({ ...a, updatedAt: undefined });
  });

  it('ignores server-owned fields in the body (id, roles, status, createdAt, fullName)', async () => {
    const user = await freshUser();
    const r = await send('PUT', user.id, {
      email: 'own@example.com',
      firstName: 'Own',
      lastName: 'Ed',
      id: 999_999,
      roles: ['ADMIN'],
      status: 'INACTIVE',
      createdAt: '2001-01-01T00:00:00Z',
      fullName: 'Not Computed',
    });
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ id: user.id, roles: ['USER'], status: 'ACTIVE', createdAt: user.createdAt, fullName: 'Own Ed' });
  });

  it('validates like create: every violation listed, nothing changed', async () => {
    const user = await freshUser();
    expectValidationError(await send('PUT', user.id, { email: 'nope', firstName: 'A', lastName: '' }), ['email', 'firstName', 'lastName']);
    expectValidationError(await send('PUT', user.id, { email: 'x@example.com' }), ['firstName', 'lastName']);
    expect((await http(server.url, 'GET', `/api/users/${user.id}`)).json()).toEqual(user);
  });

  it('answers 404 for an absent user', async () => {
    const r = await send('PUT', 987_654, { email: 'x@example.com', firstName: 'Ab', lastName: 'C' });
    expect(r.status).toBe(404);
    expect(r.json()).toMatchObject({ status: 404, error: 'Not Found' });
  });
});

describe('PATCH /api/users/<id> (JSON merge patch)', () => {
  it('changes only the members sent; id unchanged; fullName recomputed', async () => {
    const user = await freshUser();
    const r = await send('PATCH', user.id, { lastName: 'Patched' }, 'application/merge-patch+json');
    expect(r.status).toBe(200);
    const out = r.json();
    expect(validateAgainstUserSchema(out)).toEqual([]);
    expect(out).toMatchObject({
      id: user.id,
      email: user.email,
      firstName: 'Orig',
      lastName: 'Patched',
      fullName: 'Orig Patched',
      age: 30,
    });
  });

  it('removes age when the patch sets it to null (key absent afterwards, never null)', async () => {
    const user = await freshUser();
    const r = await send('PATCH', user.id, { age: null });
    expect(r.status).toBe(200);
    expect(r.json()).not.toHaveProperty('age');
    const got = await http(server.url, 'GET', `/api/users/${user.id}`);
    expect(got.json()).not.toHaveProperty('age');
    expect(got.json()).toMatchObject({ firstName: 'Orig', lastName: 'Inal' });
  });

  it('accepts application/json as well as application/merge-patch+json; an empty object changes nothing', async () => {
    const user = await freshUser();
    const r = await send('PATCH', user.id, {});
    expect(r.status).toBe(200);
    expect({ ...r.json(), updatedAt: undefined }).toEqual({ ...user, updatedAt: undefined });
  });

  it('applies validation to the merged result; a rejected patch changes nothing', async () => {
    const user = await freshUser();
    expectValidationError(await send('PATCH', user.id, { firstName: 'A', email: 'bad', age: 17 }), ['firstName', 'email', 'age']);
    expectValidationError(await send('PATCH', user.id, { email: null }), ['email']);
    expectValidationError(await send('PATCH', user.id, { age: '30' }), ['age']);
    expectValidationError(await send('PATCH', user.id, [{ op: 'replace' }]), ['body']);
    expect((await http(server.url, 'GET', `/api/users/${user.id}`)).json()).toEqual(user);
  });

  it('never applies server-owned members (id, roles, status, createdAt, fullName)', async () => {
    const user = await freshUser();
    const r = await send('PATCH', user.id, {
      id: 5555,
      roles: ['ADMIN'],
      status: 'INACTIVE',
      createdAt: '2001-01-01T00:00:00Z',
      fullName: 'X Y',
    });
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ id: user.id, roles: ['USER'], status: 'ACTIVE', createdAt: user.createdAt, fullName: 'Orig Inal' });
  });

  it('answers 404 for an absent user and 415 for a JSON Patch document type', async () => {
    expect((await send('PATCH', 987_654, { age: 20 })).status).toBe(404);
    const user = await freshUser();
    const r = await send('PATCH', user.id, [{ op: 'remove', path: '/age' }], 'application/json-patch+json');
    expect(r.status).toBe(415);
    expect(r.json()).toMatchObject({ status: 415, error: 'Unsupported Media Type' });
  });
});

describe('DELETE /api/users/<id>', () => {
  it('answers 204 with an empty body; then GET, PUT, PATCH, DELETE and orders all answer 404', async () => {
    const user = await freshUser();
    const r = await http(server.url, 'DELETE', `/api/users/${user.id}`);
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect(r.headers['content-type']).toBeUndefined();
    for (const [method, path, body] of [
      ['GET', `/api/users/${user.id}`, undefined],
      ['PUT', `/api/users/${user.id}`, { email: 'a@example.com', firstName: 'Ab', lastName: 'C' }],
      ['PATCH', `/api/users/${user.id}`, { age: 20 }],
      ['DELETE', `/api/users/${user.id}`, undefined],
      ['GET', `/api/users/${user.id}/orders`, undefined],
    ] as const) {
      const after = await http(server.url, method, path, { body });
      expect(after.status, `${method} ${path}`).toBe(404);
      expect(after.json()).toMatchObject({ status: 404, error: 'Not Found', path });
    }
  });

  it('removes the user from the list, the email filter and search; its id is never reused', async () => {
    const user = await freshUser();
    expect((await http(server.url, 'DELETE', `/api/users/${user.id}`)).status).toBe(204);
    const list = (await http(server.url, 'GET', '/api/users')).json() as { id: number }[];
    expect(list.map((u) => u.id)).not.toContain(user.id);
    expect((await http(server.url, 'GET', `/api/users?email=${encodeURIComponent(String(user.email))}`)).json()).toEqual([]);
    expect((await http(server.url, 'GET', `/api/users/search?email=${encodeURIComponent(String(user.email))}`)).json()).toEqual([]);
    const next = await freshUser();
    expect(next.id).toBeGreaterThan(user.id);
  });
});

describe('concurrent updates of one user behave as if sequential', () => {
  it('three concurrent PATCHes of different members all survive (no lost update)', async () => {
    const user = await freshUser();
    const results = await Promise.all([
      send('PATCH', user.id, { firstName: 'Concurrent' }),
      send('PATCH', user.id, { lastName: 'Patches' }),
      send('PATCH', user.id, { age: 77 }),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    const got = (await http(server.url, 'GET', `/api/users/${user.id}`)).json();
    expect(got).toMatchObject({ id: user.id, firstName: 'Concurrent', lastName: 'Patches', age: 77, fullName: 'Concurrent Patches' });
  });

  it('two concurrent DELETEs: exactly one 204, the other 404', async () => {
    const user = await freshUser();
    const results = await Promise.all([
      http(server.url, 'DELETE', `/api/users/${user.id}`),
      http(server.url, 'DELETE', `/api/users/${user.id}`),
    ]);
    expect(results.map((r) => r.status).sort((a, b) => a - b)).toEqual([204, 404]);
  });
});
