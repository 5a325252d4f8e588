import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, removeDir, startServer, type HttpResult, type RunningServer } from '../helpers/server.js';

/**
 * Rate limiting with RATE_LIMIT_PER_MINUTE=5 (SPEC "Limits": X-Rate-Limit-Limit, 429).
 * Tests run in order and share one client quota (the socket address 127.0.0.1): the five
 * allowed requests, then the limited ones. Health endpoints are never limited.
 */

let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_PER_MINUTE: '5' } });
});
afterAll(async () => {
  expect(await server.stop('SIGTERM')).toBe(0);
  removeDir(server.dataDir);
});

const WHOLE_SECONDS = /^[1-9]\d*$/;

async function expectHealthNeverLimited(): Promise<number> {
  let users = -1;
  for (let i = 0; i < 20; i++) {
    for (const path of ['/api/health', '/health']) {
      const r = await http(server.url, 'GET', path);
      expect(r.status, `${path} #${i}`).toBe(200);
      expect(r.headers['x-rate-limit-limit']).toBeUndefined();
      expect(r.headers['x-rate-limit-remaining']).toBeUndefined();
      users = r.json().users as number;
    }
  }
  return users;
}

function expectQuotaHeaders(r: HttpResult, remaining: number): void {
  expect(r.headers['x-rate-limit-limit']).toBe('5');
  expect(r.headers['x-rate-limit-remaining']).toBe(String(remaining));
  const reset = String(r.headers['x-rate-limit-reset']);
  expect(reset).toMatch(WHOLE_SECONDS);
  expect(Number(reset)).toBeLessThanOrEqual(60);
}

describe('RATE_LIMIT_PER_MINUTE=5', () => {
  let usersBefore = 0;

  it('never limits /api/health and /health (no X-Rate-Limit headers, 40 requests)', async () => {
    usersBefore = await expectHealthNeverLimited();
    expect(usersBefore).toBeGreaterThan(0);
  });

  it('counts one quota across the user endpoints: Limit 5, Remaining 4..0, Reset in whole seconds', async () => {
    const requests: [string, string, unknown][] = [
      ['GET', '/api/users/1', undefined],
      ['GET', '/api/users', undefined],
      ['POST', '/api/users', { email: 'counted@example.com', firstName: 'Cou', lastName: 'Nted' }],
      ['GET', '/api/users/search?email=example', undefined],
      ['GET', '/api/users/1/orders', undefined],
    ];
    let remaining = 4;
    for (const [method, path, body] of requests) {
      const r = await http(server.url, method, path, { body });
      expect(r.status, `${method} ${path}`).toBeLessThan(300);
      expectQuotaHeaders(r, remaining);
      remaining--;
    }
  });

  it('answers the 6th request 429 with Retry-After (whole seconds >= 1) and the error body', async () => {
    const r = await http(server.url, 'GET', '/api/users/1');
    expect(r.status).toBe(429);
    const retryAfter = String(r.headers['retry-after']);
    expect(retryAfter).toMatch(WHOLE_SECONDS);
    expect(Number(retryAfter)).toBeLessThanOrEqual(120);
    expect(r.headers['x-rate-limit-limit']).toBe('5');
    expect(r.headers['x-rate-limit-remaining']).toBe('0');
    // The IETF draft's fields beside them (draft-ietf-httpapi-ratelimit-headers-09).
    expect(r.headers['ratelimit-policy']).toBe('"default";q=5;w=60');
    expect(String(r.headers.ratelimit)).toMatch(/^"default";r=0;t=[1-9]\d*$/);
    expect(Number(/t=(\d+)$/.exec(String(r.headers.ratelimit))?.[1])).toBeGreaterThanOrEqual(Number(retryAfter));
    const body = r.json();
    expect(body).toMatchObject({ status: 429, error: 'Too Many Requests', path: '/api/users/1' });
    expect(typeof body.timestamp).toBe('string');
    expect(Array.isArray(body.errors)).toBe(true);
    expect(typeof body.message).toBe('string');
    // The error still passes through the response filters.
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.headers['x-api-version']).toBe('1');
  });

  it('keeps limiting every user endpoint, including writes, which are not performed', async () => {
    // One user was created while allowed (the 3rd counted request). /api/health is never limited,
    // so it reports the count after each limited write; checking after each one keeps a wrongly
    // executed POST and a wrongly executed DELETE from cancelling out.
    const usersNow = async (): Promise<number> => {
      const health = await http(server.url, 'GET', '/api/health');
      expect(health.status).toBe(200);
      return health.json().users as number;
    };
    expect(await usersNow()).toBe(usersBefore + 1);
    const post = await http(server.url, 'POST', '/api/users', {
      body: { email: 'limited@example.com', firstName: 'Lim', lastName: 'Ited' },
    });
    expect(post.status).toBe(429);
    expect(await usersNow(), 'after the limited POST').toBe(usersBefore + 1);
    expect((await http(server.url, 'DELETE', '/api/users/2')).status).toBe(429);
    expect(await usersNow(), 'after the limited DELETE').toBe(usersBefore + 1);
    expect((await http(server.url, 'GET', '/api/users?page=0')).status).toBe(429);
  });

  it('is not fooled by X-Forwarded-For (no trusted proxy is configured)', async () => {
    const r = await http(server.url, 'GET', '/api/users/1', { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(r.status).toBe(429);
  });

  it('still never limits the health endpoints after the quota is spent', async () => {
    await expectHealthNeverLimited();
  });
});
