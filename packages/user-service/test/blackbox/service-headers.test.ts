/**
 * Headers every answer carries: `X-Content-Type-Options: nosniff` and the other security headers
 * of the pipeline's SecurityHeadersFeature on successes and on errors (no HSTS over plain HTTP),
 * and, with PUBLIC_BASE_URL, `Location` values on the configured public base instead of the
 * client's `Host`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, removeDir, startServer, type RunningServer } from '../helpers/server.js';

const user = { email: 'loc@example.com', firstName: 'Lo', lastName: 'Cation' };

describe('service headers', () => {
  let plain: RunningServer;
  let proxied: RunningServer;
  beforeAll(async () => {
    [plain, proxied] = await Promise.all([
      startServer({ env: { LOG_REQUESTS: 'false' } }),
      startServer({ env: { LOG_REQUESTS: 'false', PUBLIC_BASE_URL: 'https://users.example.com/v1/' } }),
    ]);
  });
  afterAll(async () => {
    for (const s of [plain, proxied]) {
      await s?.stop();
      if (s !== undefined) removeDir(s.dataDir);
    }
  });

  it.each([
    ['a JSON success', '/api/users/1', 200],
    ['a JSON 404', '/api/users/999999', 404],
    ['a 404 before matching', '/no/such/path', 404],
    ['a 400 for a bad id', '/api/users/abc', 400],
  ])('sends nosniff on %s', async (_, path, status) => {
    const r = await http(plain.url, 'GET', path);
    expect(r.status).toBe(status);
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers).toMatchObject({
      'referrer-policy': 'no-referrer',
      'content-security-policy': "frame-ancestors 'none'",
      'x-frame-options': 'DENY',
      'cross-origin-resource-policy': 'same-origin',
    });
    expect(r.headers['strict-transport-security']).toBeUndefined();
  });

  it('builds Location from the Host header without PUBLIC_BASE_URL', async () => {
    const r = await http(plain.url, 'POST', '/api/users', { headers: { 'x-api-version': '1' }, body: user });
    expect(r.status).toBe(201);
    expect(r.headers.location).toBe(`${plain.url}/api/users/${r.json<{ id: number }>().id}`);
  });

  it('builds Location on PUBLIC_BASE_URL, whatever Host the client sends', async () => {
    const r = await http(proxied.url, 'POST', '/api/users', { headers: { 'x-api-version': '1', host: 'evil.example' }, body: user });
    expect(r.status).toBe(201);
    expect(r.headers.location).toBe(`https://users.example.com/v1/api/users/${r.json<{ id: number }>().id}`);
  });
});
