import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateAgainstUserSchema } from '../../src/domain/users/schema.js';
import { http, removeDir, startServer, type RunningServer } from '../helpers/server.js';

/**
 * The variant user resource: POST /api/users/create {name, email} -> 201 {id, name, email};
 * GET /api/users/<id> of that id gives at least id, name, email; the regular lists stay valid
 * against the User schema because variants are left out of them.
 */

let server: RunningServer;
let variant: { id: number; name: string; email: string };

beforeAll(async () => {
  server = await startServer();
  const r = await http(server.url, 'POST', '/api/users/create', { body: { name: 'Vera Variant', email: 'vera.variant@example.com' } });
  expect(r.status).toBe(201);
  variant = r.json();
});
afterAll(async () => {
  expect(await server.stop('SIGTERM')).toBe(0);
  removeDir(server.dataDir);
});

describe('POST /api/users/create', () => {
  it('answered 201 with exactly {id, name, email} and a Location for the new id', async () => {
    expect(Object.keys(variant).sort()).toEqual(['email', 'id', 'name']);
    expect(variant).toMatchObject({ name: 'Vera Variant', email: 'vera.variant@example.com' });
    expect(Number.isInteger(variant.id) && variant.id >= 1).toBe(true);
    const again = await http(server.url, 'POST', '/api/users/create', { body: { name: 'Vic', email: 'vic@example.com' } });
    expect(again.status).toBe(201);
    expect(new URL(String(again.headers.location), server.url).pathname).toBe(`/api/users/${again.json().id}`);
  });

  it('lets GET /api/users/<id> return at least id, name and email', async () => {
    const r = await http(server.url, 'GET', `/api/users/${variant.id}`);
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ id: variant.id, name: 'Vera Variant', email: 'vera.variant@example.com' });
  });

  it('validates name and email, listing every violation', async () => {
    const r = await http(server.url, 'POST', '/api/users/create', { body: { name: '', email: 'not-an-email' } });
    expect(r.status).toBe(400);
    const body = r.json();
    expect(body).toMatchObject({ status: 400, error: 'Bad Request', path: '/api/users/create' });
    expect(body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'name']);
    expect((await http(server.url, 'POST', '/api/users/create', { body: {} })).json().errors).toHaveLength(2);
  });

  it('does not accept GET on /api/users/create (405 with Allow), nor treat "create" as an id', async () => {
    const r = await http(server.url, 'GET', '/api/users/create');
    expect(r.status).toBe(405);
    expect(String(r.headers.allow)).toContain('POST');
  });
});

describe('variants and the User lists', () => {
  it('leaves variants out of the unpaged list, so every element validates against the User schema', async () => {
    const users = (await http(server.url, 'GET', '/api/users')).json() as { id: number }[];
    expect(users.map((u) => u.id)).not.toContain(variant.id);
    for (const u of users) expect(validateAgainstUserSchema(u)).toEqual([]);
  });

  it('leaves variants out of the paged list and its X-Total-Count, the email filter and search', async () => {
    const paged = await http(server.url, 'GET', '/api/users?size=1000');
    const content = paged.json().content as { id: number }[];
    expect(content.map((u) => u.id)).not.toContain(variant.id);
    expect(paged.headers['x-total-count']).toBe(String(content.length));
    for (const u of content) expect(validateAgainstUserSchema(u)).toEqual([]);
    expect((await http(server.url, 'GET', '/api/users?email=vera.variant%40example.com')).json()).toEqual([]);
    expect((await http(server.url, 'GET', '/api/users/search?email=vera.variant')).json()).toEqual([]);
  });

  it('keeps a variant a variant after PUT, and DELETE removes it (404 afterwards)', async () => {
    const c = await http(server.url, 'POST', '/api/users/create', { body: { name: 'Del Me', email: 'del.me@example.com' } });
    const id = c.json().id as number;
    const put = await http(server.url, 'PUT', `/api/users/${id}`, {
      body: { email: 'del.me2@example.com', firstName: 'Del', lastName: 'Later' },
    });
    expect(put.status).toBe(200);
    expect(put.json()).toMatchObject({ id, name: 'Del Later', email: 'del.me2@example.com' });
    const list = (await http(server.url, 'GET', '/api/users')).json() as { id: number }[];
    expect(list.map((u) => u.id)).not.toContain(id);
    const del = await http(server.url, 'DELETE', `/api/users/${id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await http(server.url, 'GET', `/api/users/${id}`)).status).toBe(404);
  });
});
