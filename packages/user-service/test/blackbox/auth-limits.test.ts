/**
 * Failed authentication is limited per client and per account, for every scheme, over a real
 * socket: the (limit+1)th wrong Basic guess in a minute is 429 with Retry-After and the error body
 * (no password is hashed for it), credentials that already passed still work, and bad tokens and
 * wrong API keys count toward the same client limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, removeDir, startServer, type RunningServer } from '../helpers/server.js';

const LIMIT = 5;
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;

describe('failed-authentication limit (AUTH_FAILURES_PER_MINUTE)', () => {
  let basicServer: RunningServer;
  let otherServer: RunningServer;
  beforeAll(async () => {
    const env = { AUTH_FAILURES_PER_MINUTE: String(LIMIT), RATE_LIMIT_PER_MINUTE: '0', LOG_REQUESTS: 'false' };
    [basicServer, otherServer] = await Promise.all([startServer({ env }), startServer({ env })]);
  });
  afterAll(async () => {
    for (const s of [basicServer, otherServer]) {
      await s?.stop();
      if (s !== undefined) removeDir(s.dataDir);
    }
  });

  it(`HTTP Basic: the ${LIMIT + 1}th wrong guess is 429 with Retry-After; the admin who logged in before still gets in`, async () => {
    const admin = (auth: string) => http(basicServer.url, 'GET', '/api/admin/users', { headers: { authorization: auth } });
    expect((await admin(basic('admin', 'password'))).status).toBe(200); // remembered from now on
    // Without credentials: the challenge, not counted.
    for (let i = 0; i < LIMIT + 2; i++) expect((await http(basicServer.url, 'GET', '/api/admin/users')).status).toBe(401);
    for (let i = 0; i < LIMIT; i++) expect((await admin(basic('admin', `guess-${i}`))).status).toBe(401);
    const refused = await admin(basic('admin', 'guess-x'));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.json()).toMatchObject({ status: 429, error: 'Too Many Requests', path: '/api/admin/users' });
    // Another account from the same client: the client is over its limit too.
    expect((await admin(basic('someone', 'else'))).status).toBe(429);
    // The real admin's credentials, verified before, are not locked out.
    expect((await admin(basic('admin', 'password'))).status).toBe(200);
  });

  it('bad bearer tokens, wrong API keys and failed logins count toward the same client limit', async () => {
    const u = otherServer.url;
    const outcomes: number[] = [];
    outcomes.push((await http(u, 'GET', '/api/protected/users', { headers: { authorization: 'Bearer not-a-token' } })).status);
    outcomes.push((await http(u, 'GET', '/api/external/users', { headers: { 'x-api-key': 'wrong-key' } })).status);
    outcomes.push((await http(u, 'POST', '/api/auth/login', { body: { username: 'admin', password: 'nope' } })).status);
    outcomes.push((await http(u, 'GET', '/api/protected/users', { headers: { authorization: 'Bearer still-not' } })).status);
    outcomes.push((await http(u, 'GET', '/api/external/users', { headers: { 'x-api-key': 'wrong-again' } })).status);
    expect(outcomes).toEqual([401, 403, 401, 401, 403]);
    expect((await http(u, 'GET', '/api/external/users', { headers: { 'x-api-key': 'test-api-key-123' } })).status).toBe(429);
    expect((await http(u, 'POST', '/api/auth/login', { body: { username: 'admin', password: 'password' } })).status).toBe(429);
  });
});
