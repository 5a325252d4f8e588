/**
 * Users carry a strong ETag (`"<id>-<version>"`, new with every write: the journal's record
 * revision, or etcd's mod_revision when the server runs on etcd, so the tests treat the version as
 * opaque): GET honours If-None-Match (304), PUT/PATCH/DELETE honour If-Match (412 in the error
 * body, nothing changed); without the headers writes behave as before. Paged lists carry RFC 8288
 * Link headers. Over a real socket.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Link } from '@jaxrs-node/pipeline';
import { http, removeDir, startServer, type RunningServer } from '../helpers/server.js';

const V1 = { 'x-api-version': '1' };
const body = { email: 'tag@example.com', firstName: 'Ta', lastName: 'Gged' };

describe('users and entity tags', () => {
  let server: RunningServer;
  let id: number;
  /** The tags the user had, oldest first (the first from its creation). */
  const tags: string[] = [];
  const STRONG = /^"(\d+)-(\d+)"$/;
  beforeAll(async () => {
    server = await startServer({ env: { LOG_REQUESTS: 'false', RATE_LIMIT_PER_MINUTE: '0' } });
    id = (await http(server.url, 'POST', '/api/users', { headers: V1, body })).json<{ id: number }>().id;
  });
  afterAll(async () => {
    await server?.stop();
    if (server !== undefined) removeDir(server.dataDir);
  });

  it('GET sends a strong ETag; If-None-Match with it is 304 without a body', async () => {
    const r = await http(server.url, 'GET', `/api/users/${id}`);
    expect(r.status).toBe(200);
    const tag = String(r.headers.etag);
    expect(STRONG.exec(tag)?.[1]).toBe(String(id));
    tags.push(tag);
    expect((await http(server.url, 'GET', `/api/users/${id}`)).headers.etag).toBe(tag); // stable while nothing changes
    const again = await http(server.url, 'GET', `/api/users/${id}`, { headers: { 'if-none-match': tag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.etag).toBe(tag);
  });

  it('the 304 carries the Vary and validators of the 200 (RFC 9110 §15.4.5), whatever coding the client takes', async () => {
    const codings: Array<Record<string, string>> = [{}, { 'accept-encoding': 'gzip' }];
    for (const coding of codings) {
      const ok = await http(server.url, 'GET', `/api/users/${id}`, { headers: coding });
      expect(ok.headers.vary).toBe('Accept-Encoding');
      const again = await http(server.url, 'GET', `/api/users/${id}`, { headers: { ...coding, 'if-none-match': String(ok.headers.etag) } });
      expect(again.status).toBe(304);
      expect([again.headers.etag, again.headers.vary, again.headers['cache-control']]).toEqual([
        ok.headers.etag,
        ok.headers.vary,
        ok.headers['cache-control'],
      ]);
    }
  });

  it('PUT with a stale If-Match is 412 in the error body and changes nothing; with the current tag it writes and sends the new tag', async () => {
    const stale = await http(server.url, 'PUT', `/api/users/${id}`, {
      headers: { ...V1, 'if-match': `"${id}-0"` }, // no version is 0
      body: { ...body, firstName: 'Stale' },
    });
    expect(stale.status).toBe(412);
    expect(stale.json()).toMatchObject({ status: 412, error: 'Precondition Failed', path: `/api/users/${id}`, errors: [] });
    expect((await http(server.url, 'GET', `/api/users/${id}`)).json()).toMatchObject({ firstName: 'Ta' });

    const ok = await http(server.url, 'PUT', `/api/users/${id}`, {
      headers: { ...V1, 'if-match': tags[0]! },
      body: { ...body, firstName: 'Fresh' },
    });
    expect(ok.status).toBe(200);
    expect(ok.json()).toMatchObject({ firstName: 'Fresh' });
    const fresh = String(ok.headers.etag);
    expect(fresh).toMatch(STRONG);
    expect(fresh).not.toBe(tags[0]);
    expect((await http(server.url, 'GET', `/api/users/${id}`)).headers.etag).toBe(fresh);
    tags.push(fresh);
  });

  it('PATCH and DELETE honour If-Match too; without it they work as before', async () => {
    const patchStale = await http(server.url, 'PATCH', `/api/users/${id}`, {
      headers: { ...V1, 'if-match': tags[0]!, 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ lastName: 'X' }),
    });
    expect(patchStale.status).toBe(412);
    const patched = await http(server.url, 'PATCH', `/api/users/${id}`, {
      headers: { ...V1, 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ lastName: 'Plain' }),
    });
    expect(patched.status).toBe(200);
    const current = String(patched.headers.etag);
    expect(tags).not.toContain(current);
    expect((await http(server.url, 'DELETE', `/api/users/${id}`, { headers: { ...V1, 'if-match': tags[1]! } })).status).toBe(412);
    expect((await http(server.url, 'GET', `/api/users/${id}`)).status).toBe(200);
    expect((await http(server.url, 'DELETE', `/api/users/${id}`, { headers: { ...V1, 'if-match': current } })).status).toBe(204);
  });
});

describe('paged lists carry RFC 8288 links', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ env: { LOG_REQUESTS: 'false', RATE_LIMIT_PER_MINUTE: '0' } });
  });
  afterAll(async () => {
    await server?.stop();
    if (server !== undefined) removeDir(server.dataDir);
  });

  it('first, prev, next and last beside X-Total-Count, keeping size and sort', async () => {
    const r = await http(server.url, 'GET', '/api/users?page=1&size=2&sort=email,desc');
    expect(r.status).toBe(200);
    const total = Number(r.headers['x-total-count']);
    expect(total).toBeGreaterThan(4); // the demo dataset
    const last = Math.ceil(total / 2) - 1;
    const links = Link.parse(([] as string[]).concat(r.headers.link as string | string[]).join(', '));
    const q = (page: number): string => `/api/users?page=${page}&size=2&sort=email%2Cdesc`;
    expect(links.map((l) => [l.rel, l.uri])).toEqual([
      ['first', q(0)],
      ['prev', q(0)],
      ['next', q(2)],
      ['last', q(last)],
    ]);
    const followed = await http(server.url, 'GET', links[2]!.uri);
    expect(followed.json<{ page: number }>().page).toBe(2);
  });
});
