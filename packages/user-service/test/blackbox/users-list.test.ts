import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateAgainstUserSchema } from '../../src/domain/users/schema.js';
import { http, removeDir, startServer, type HttpResult, type RunningServer } from '../helpers/server.js';

/**
 * GET /api/users (unpaged array, paged result), the `email` filter and /api/users/search.
 * The server runs with rate limiting off: the 1000-item cap needs over 1000 creates.
 */

interface User {
  id: number;
  email: string;
  firstName: string;
  lastName: string;
  age?: number;
}

let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  // A few users with distinctive emails besides the 5 seeded ones.
  for (const [email, firstName] of [
    ['Mixed.Case@Example.org', 'Mixed'],
    ['zeta@example.org', 'Zeta'],
    ['alpha@example.org', 'Alpha'],
  ]) {
    expect((await http(server.url, 'POST', '/api/users', { body: { email, firstName, lastName: 'Lister' } })).status).toBe(201);
  }
});
afterAll(async () => {
  expect(await server.stop('SIGTERM')).toBe(0);
  removeDir(server.dataDir);
});

const get = (path: string): Promise<HttpResult> => http(server.url, 'GET', path);

function expectBadParams(r: HttpResult, fields: string[]): void {
  expect(r.status).toBe(400);
  const body = r.json();
  expect(body).toMatchObject({ status: 400, error: 'Bad Request', path: '/api/users' });
  expect(typeof body.timestamp).toBe('string');
  expect(body.errors.map((e: { field: string }) => e.field).sort()).toEqual([...fields].sort());
}

describe('GET /api/users without paging parameters', () => {
  it('is a JSON array of schema-valid users ordered by id', async () => {
    const r = await get('/api/users');
    expect(r.status).toBe(200);
    const users = r.json() as User[];
    expect(Array.isArray(users)).toBe(true);
    expect(users.length).toBe(8);
    const ids = users.map((u) => u.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    for (const u of users) expect(validateAgainstUserSchema(u)).toEqual([]);
  });

  it('filters by exact email with ?email= (a substring is not a match)', async () => {
    const hit = (await get('/api/users?email=test%40example.com')).json() as User[];
    expect(hit.map((u) => u.email)).toEqual(['test@example.com']);
    expect((await get('/api/users?email=example.com')).json()).toEqual([]);
    expect((await get('/api/users?email=nobody%40nowhere.io')).json()).toEqual([]);
  });

  it('decodes a percent-encoded query value, so an address with + can be looked up', async () => {
    const created = await http(server.url, 'POST', '/api/users', {
      body: { email: 'plus+tag@example.net', firstName: 'Plus', lastName: 'Tag' },
    });
    expect(created.status).toBe(201);
    const hit = (await get('/api/users?email=plus%2Btag%40example.net')).json() as User[];
    expect(hit.map((u) => u.id)).toEqual([created.json().id]);
    expect(((await get('/api/users/search?email=PLUS%2BTAG')).json() as User[]).map((u) => u.id)).toEqual([created.json().id]);
    expect((await http(server.url, 'DELETE', `/api/users/${created.json().id}`)).status).toBe(204);
  });
});

describe('GET /api/users with page/size/sort', () => {
  it('returns {content, page metadata} plus X-Total-Count; pages do not overlap', async () => {
    const first = await get('/api/users?page=0&size=3');
    expect(first.status).toBe(200);
    const body = first.json();
    expect(body).toMatchObject({ page: 0, size: 3, totalElements: 8, totalPages: 3 });
    expect(first.headers['x-total-count']).toBe('8');
    expect(body.content.map((u: User) => u.id)).toEqual([1, 2, 3]);
    const second = (await get('/api/users?page=1&size=3')).json();
    expect(second.content.map((u: User) => u.id)).toEqual([4, 5, 6]);
    const last = (await get('/api/users?page=2&size=3')).json();
    expect(last.content).toHaveLength(2);
    const beyond = await get('/api/users?page=9&size=3');
    expect(beyond.status).toBe(200);
    expect(beyond.json().content).toEqual([]);
    expect(beyond.headers['x-total-count']).toBe('8');
    for (const u of [...body.content, ...second.content]) expect(validateAgainstUserSchema(u)).toEqual([]);
  });

  it('switches to the paged shape when only one of page, size or sort is given', async () => {
    // 5 seeded + 3 created users (ids 1..8); the default page size (20) holds all of them.
    const expected: Record<string, number[]> = {
      'page=0': [1, 2, 3, 4, 5, 6, 7, 8],
      'size=5': [1, 2, 3, 4, 5],
      'sort=id': [1, 2, 3, 4, 5, 6, 7, 8],
    };
    for (const [q, ids] of Object.entries(expected)) {
      const r = await get(`/api/users?${q}`);
      expect(r.status, q).toBe(200);
      expect(Array.isArray(r.json().content), q).toBe(true);
      expect(r.headers['x-total-count'], q).toBe('8');
      expect(r.json().content, q).toHaveLength(ids.length);
      expect(
        r.json().content.map((u: User) => u.id),
        q,
      ).toEqual(ids);
    }
  });

  it('sorts by a field in either direction (case-insensitive direction)', async () => {
    const desc = (await get('/api/users?sort=id,desc&size=100')).json().content as User[];
    expect(desc.map((u) => u.id)).toEqual([8, 7, 6, 5, 4, 3, 2, 1]);
    const byEmail = (await get('/api/users?sort=email,ASC&size=100')).json().content as User[];
    const emails = byEmail.map((u) => u.email);
    expect(emails).toEqual([...emails].sort());
    const byLastDesc = (await get('/api/users?sort=lastName,desc&size=100')).json().content as User[];
    const names = byLastDesc.map((u) => u.lastName);
    expect(names).toEqual([...names].sort().reverse());
  });

  it.each([
    ['sort=unknownField', ['sort']],
    ['sort=id,sideways', ['sort']],
    ['sort=', ['sort']],
    ['page=-1', ['page']],
    ['page=abc', ['page']],
    ['page=1.5', ['page']],
    ['size=0', ['size']],
    ['size=-5', ['size']],
    ['size=ten', ['size']],
    ['page=-1&size=0&sort=nope,desc', ['page', 'size', 'sort']],
    ['page=2147483648', ['page']],
    ['size=1001', ['size']],
    ['page=1e3', ['page']],
    // A value that does not convert and one that breaks a constraint: one 400 naming both (issue 22).
    ['page=-1&size=abc', ['page', 'size']],
    ['page=abc&size=ten&sort=nope', ['page', 'size', 'sort']],
  ])('rejects %s with 400 and the error body naming each bad parameter', async (query, fields) => {
    expectBadParams(await get(`/api/users?${query}`), fields);
  });

  it('keeps the email filter when paging parameters are present', async () => {
    const r = await get('/api/users?email=test%40example.com&page=0&size=10');
    expect(r.status).toBe(200);
    const content = r.json().content as User[];
    expect(content.map((u) => u.email)).toEqual(['test@example.com']);
    expect(r.headers['x-total-count']).toBe('1');
  });
});

describe('GET /api/users/search?email=', () => {
  it('refuses a fragment longer than an email address can be: 400 naming email (a constrained parameter object)', async () => {
    const r = await get(`/api/users/search?email=${'a'.repeat(321)}`);
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ status: 400, error: 'Bad Request', path: '/api/users/search' });
    expect(r.json().errors.map((e: { field: string }) => e.field)).toEqual(['email']);
  });

  it('matches a case-insensitive substring of the email', async () => {
    const r = await get('/api/users/search?email=MIXED.case%40example');
    expect(r.status).toBe(200);
    expect((r.json() as User[]).map((u) => u.email)).toEqual(['Mixed.Case@Example.org']);
    const org = (await get('/api/users/search?email=example.ORG')).json() as User[];
    expect(org.map((u) => u.email).sort()).toEqual(['Mixed.Case@Example.org', 'alpha@example.org', 'zeta@example.org'].sort());
    for (const u of org) expect(validateAgainstUserSchema(u)).toEqual([]);
  });

  it('answers 200 with an empty array when nothing matches (the value is a literal, not a pattern)', async () => {
    const r = await get('/api/users/search?email=no-such-fragment-xyz');
    expect(r.status).toBe(200);
    expect(r.json()).toEqual([]);
    for (const pattern of ['.*', '%5E.%2B%24', '%25']) expect((await get(`/api/users/search?email=${pattern}`)).json()).toEqual([]);
  });
});

describe('list limits', () => {
  it('caps the unpaged list at 1000 users (ascending ids) while X-Total-Count counts them all', async () => {
    const have = ((await get('/api/users')).json() as User[]).length;
    const missing = 1001 - have;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < missing) {
        const i = next++;
        const r = await http(server.url, 'POST', '/api/users', {
          body: { email: `bulk${i}@example.net`, firstName: 'Bulk', lastName: `N${i}` },
        });
        expect(r.status).toBe(201);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    const r = await get('/api/users');
    const users = r.json() as User[];
    expect(users).toHaveLength(1000);
    expect(users[0]?.id).toBe(1);
    const ids = users.map((u) => u.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect((await get('/api/users?size=1')).headers['x-total-count']).toBe('1001');
    expect((await get('/api/users?size=1000')).json().content).toHaveLength(1000);
  }, 20_000);
});
