import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/06-name-binding/app.js';
import { listen, send, type Running } from './helpers/http.js';

const as = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

describe('06 name binding: @Timed on chosen methods, @RolesAllowed with arguments', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp());
  });
  afterAll(() => server.close());

  it('a @Timed method gets Server-Timing', async () => {
    const r = await send(server.url, '/api/reports');
    expect(r.status).toBe(200);
    expect(r.headers['server-timing']).toMatch(/^app;dur=\d+\.\d{2}$/);
  });

  it('a method without the binding does not', async () => {
    const r = await send(server.url, '/api/reports/count');
    expect(r.status).toBe(200);
    expect(r.headers['server-timing']).toBeUndefined();
  });

  it('@RolesAllowed: nobody signed in is a 401 with a challenge', async () => {
    const r = await send(server.url, '/api/reports/1');
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toBe('Bearer realm="examples"');
    expect(r.json()).toMatchObject({ status: 401, code: 'PIPE_NOT_AUTHENTICATED' });
    // The authorization filter (2000) aborted before the timing filter (5000) started the clock.
    expect(r.headers['server-timing']).toBeUndefined();
  });

  it('an unknown token is a 401 invalid_token from the authentication filter', async () => {
    const r = await send(server.url, '/api/reports/1', { headers: as('forged') });
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toBe('Bearer realm="examples", error="invalid_token"');
  });

  it('a USER may read; the method sees who called and the binding arguments', async () => {
    const r = await send(server.url, '/api/reports/1', { headers: as('bob-token') });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ id: 1, title: 'Q1', viewer: 'bob', requiredRoles: ['USER', 'ADMIN'] });
    expect(r.headers['server-timing']).toMatch(/^app;dur=\d+\.\d{2}$/); // a duration: only its form is exact
  });

  it('401 vs 403 vs 204 on an ADMIN-only method', async () => {
    expect((await send(server.url, '/api/reports/2', { method: 'DELETE' })).status).toBe(401);
    const forbidden = await send(server.url, '/api/reports/2', { method: 'DELETE', headers: as('bob-token') });
    expect(forbidden.status).toBe(403);
    expect(forbidden.json()).toMatchObject({ status: 403, error: 'Forbidden' });
    expect((await send(server.url, '/api/reports/2', { method: 'DELETE', headers: as('alice-token') })).status).toBe(204);
    expect((await send(server.url, '/api/reports/count')).json()).toEqual({ count: 1 });
  });

  it('in-process: the same decisions', async () => {
    const app = createApp();
    expect((await app.inject({ method: 'DELETE', url: '/api/reports/1', headers: as('bob-token') })).status).toBe(403);
    expect((await app.inject({ url: '/api/reports/1', headers: as('alice-token') })).json()).toMatchObject({ viewer: 'alice' });
  });
});
