import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/35-rate-limits/app.js';
import { listen, send, type Running } from './helpers/http.js';

describe('35 rate limits, over a real socket', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp());
  });
  afterAll(async () => {
    await server.close();
  });

  it('the default window: 5 a minute shared by /books and /quotes, then 429 with Retry-After and the draft fields', async () => {
    const remaining: string[] = [];
    for (const path of ['/books', '/quotes', '/books', '/quotes', '/books']) {
      const r = await send(server.url, path);
      expect(r.status).toBe(200);
      expect(r.headers['ratelimit-policy']).toBe('"default";q=5;w=60');
      remaining.push(String(r.headers['x-rate-limit-remaining']));
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const refused = await send(server.url, '/quotes');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers.ratelimit).toMatch(/^"default";r=0;t=\d+$/);
    expect(refused.json()).toMatchObject({ status: 429, code: 'PIPE_RATE_LIMITED' });
    // Another principal has its own quota; /health is never limited.
    expect((await send(server.url, '/books', { headers: { authorization: 'Bearer ann' } })).status).toBe(200);
    expect((await send(server.url, '/health')).status).toBe(200);
  });

  it("/search's own two windows: the burst refuses the third request", async () => {
    const auth = { authorization: 'Bearer bob' };
    const first = await send(server.url, '/search', { headers: auth });
    expect(first.headers['ratelimit-policy']).toBe('"burst";q=2;w=10, "minute";q=4;w=60');
    expect(first.headers.ratelimit).toMatch(/^"burst";r=1;t=\d+, "minute";r=3;t=\d+$/);
    expect((await send(server.url, '/search', { headers: auth })).status).toBe(200);
    const third = await send(server.url, '/search', { headers: auth });
    expect(third.status).toBe(429);
    expect(third.headers.ratelimit).toMatch(/^"burst";r=0;t=\d+, "minute";r=2;t=\d+$/);
  });

  it('failed logins: three wrong passwords, then even the right one is 429 before it is checked', async () => {
    const login = (password: string) => send(server.url, `/login?user=ann&password=${password}`, { method: 'POST' });
    expect((await login('secret')).text).toBe('ann');
    for (const p of ['a', 'b', 'c']) expect((await login(p)).status).toBe(401);
    const locked = await login('secret');
    expect(locked.status).toBe(429);
    expect(locked.json()).toMatchObject({ code: 'PIPE_AUTH_FAILURES_LIMITED' });
  });
});
