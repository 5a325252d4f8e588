/**
 * Black-box tests of the three authentication schemes against the real server: HTTP Basic on
 * `/api/admin/users`, login + bearer tokens on `/api/protected/users`, `X-API-Key` on
 * `/api/external/**`, and the endpoints that need nothing. Tokens are also forged here with the
 * secret given through TOKEN_SECRET (same compact HS256 format as src/domain/auth/bearer-tokens.ts), so expiry
 * and tampering are checked without waiting an hour.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/poll.js';
import { http, removeDir, startServer, type HttpResult, type RunningServer } from '../helpers/server.js';

const SECRET = 'blackbox-token-secret-0123456789abcdef';
const CUSTOM = { user: 'root-admin', password: 'S3cret:with:colons', keys: ['key-alpha', 'key-beta'] };

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
const b64url = (value: unknown): string => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** A token in the service's format, signed with `key` (the configured secret unless told). */
function forge(header: unknown, payload: unknown, key = SECRET): string {
  const input = `${b64url(header)}.${b64url(payload)}`;
  return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
}

const HS256 = { alg: 'HS256', typ: 'JWT' };
/**
 * Token lifetime of the configured server. 2 s, not 1: `iat` is floored to whole seconds, so a 1 s
 * token issued late in a second may already be dead when first used; 2 s leaves at least 1 s.
 */
const TTL_SECONDS = 2;
const nowS = (): number => Math.floor(Date.now() / 1000);

/** Replaces the character at `index` with a different base64url character. */
function flipChar(text: string, index: number): string {
  return `${text.slice(0, index)}${text[index] === 'A' ? 'B' : 'A'}${text.slice(index + 1)}`;
}

function expectErrorBody(r: HttpResult, status: number, error: string): void {
  expect(r.status).toBe(status);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  expect(r.json()).toMatchObject({ status, error, timestamp: expect.any(String), errors: expect.any(Array) });
}

function expectInvalidToken(r: HttpResult): void {
  expectErrorBody(r, 401, 'invalid_token');
  expect(r.headers['www-authenticate']).toMatch(/^Bearer realm="[^"]+".*error="invalid_token"/);
}

describe('authentication (black box)', () => {
  /** Development defaults: admin/password, test-api-key-123, generated token secret. */
  let dev: RunningServer;
  /** Configured: custom admin, API_KEYS, TOKEN_SECRET and a 2 s token lifetime (see TTL_SECONDS). */
  let custom: RunningServer;

  beforeAll(async () => {
    // These tests check each scheme's answer to many wrong credentials from one address: the
    // failed-authentication limit is off here and tested on its own (auth-limits.test.ts).
    [dev, custom] = await Promise.all([
      startServer({ env: { AUTH_FAILURES_PER_MINUTE: '0' } }),
      startServer({
        env: {
          AUTH_FAILURES_PER_MINUTE: '0',
          ADMIN_USERNAME: CUSTOM.user,
          ADMIN_PASSWORD: CUSTOM.password,
          API_KEYS: CUSTOM.keys.join(','),
          TOKEN_SECRET: SECRET,
          TOKEN_TTL_SECONDS: String(TTL_SECONDS),
        },
      }),
    ]);
  });
  afterAll(async () => {
    for (const s of [dev, custom]) {
      if (s === undefined) continue;
      expect(await s.stop('SIGTERM')).toBe(0);
      removeDir(s.dataDir);
    }
  });

  describe('HTTP Basic on /api/admin/users', () => {
    it.each([
      ['no credentials', undefined],
      ['wrong password', basic('admin', 'wrong')],
      ['unknown user', basic('nobody', 'password')],
      ['no colon', `Basic ${Buffer.from('adminpassword').toString('base64')}`],
      ['not base64', 'Basic !!!!'],
      ['other scheme', 'Bearer abc.def.ghi'],
      ['huge header', basic('admin', 'x'.repeat(8000))],
    ])('answers 401 with a Basic challenge and the JSON error body for %s', async (_name, authorization) => {
      const r = await http(dev.url, 'GET', '/api/admin/users', { headers: authorization === undefined ? {} : { authorization } });
      expectErrorBody(r, 401, 'Unauthorized');
      expect(r.headers['www-authenticate']).toMatch(/^Basic realm="[^"]+"/);
    });

    it('answers 200 with the user list for the development defaults admin/password', async () => {
      const r = await http(dev.url, 'GET', '/api/admin/users', { headers: { authorization: basic('admin', 'password') } });
      expect(r.status).toBe(200);
      expect(r.json()).toEqual(expect.arrayContaining([expect.objectContaining({ id: 1, email: 'test@example.com' })]));
    });

    it('uses ADMIN_USERNAME / ADMIN_PASSWORD when set (password may contain colons) and drops the defaults', async () => {
      const status = async (authorization: string) =>
        (await http(custom.url, 'GET', '/api/admin/users', { headers: { authorization } })).status;
      expect([await status(basic(CUSTOM.user, CUSTOM.password)), await status(basic('admin', 'password'))]).toEqual([200, 401]);
    });
  });

  describe('POST /api/auth/login and bearer tokens on /api/protected/users', () => {
    async function login(server: RunningServer, username: string, password: string): Promise<HttpResult> {
      return http(server.url, 'POST', '/api/auth/login', { body: { username, password } });
    }

    it('logs in with the right credentials and the token opens /api/protected/users', async () => {
      const r = await login(dev, 'admin', 'password');
      expect(r.status).toBe(200);
      const { accessToken } = r.json<{ accessToken: string }>();
      expect(accessToken).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      const p = await http(dev.url, 'GET', '/api/protected/users', { headers: { authorization: `Bearer ${accessToken}` } });
      expect(p.status).toBe(200);
      expect(Array.isArray(p.json())).toBe(true);
    });

    it('answers 401 with the same body for a wrong password and an unknown user', async () => {
      const wrong = await login(dev, 'admin', 'not-the-password');
      const unknown = await login(dev, 'mallory', 'password');
      expectErrorBody(wrong, 401, 'Unauthorized');
      expectErrorBody(unknown, 401, 'Unauthorized');
      expect(unknown.json().message).toBe(wrong.json().message);
    });

    it.each([
      ['invalid JSON', '{"username":"admin"', 'application/json'],
      ['an empty body', '', 'application/json'],
      ['an array', '[]', 'application/json'],
      ['missing password', '{"username":"admin"}', 'application/json'],
      ['non-string fields', '{"username":1,"password":true}', 'application/json'],
    ])('answers 400 for %s', async (_name, body, contentType) => {
      const r = await http(dev.url, 'POST', '/api/auth/login', { headers: { 'content-type': contentType }, body });
      expectErrorBody(r, 400, 'Bad Request');
    });

    it('lists each missing field in errors', async () => {
      const r = await http(dev.url, 'POST', '/api/auth/login', { body: {} });
      expectErrorBody(r, 400, 'Bad Request');
      expect(
        r
          .json()
          .errors.map((e: { field: string }) => e.field)
          .sort(),
      ).toEqual(['password', 'username']);
    });

    it('answers 401 with `WWW-Authenticate: Bearer realm=...` and no error code when the token is missing', async () => {
      for (const authorization of [undefined, basic('admin', 'password')]) {
        const r = await http(dev.url, 'GET', '/api/protected/users', { headers: authorization === undefined ? {} : { authorization } });
        expectErrorBody(r, 401, 'Unauthorized');
        expect(r.headers['www-authenticate']).toMatch(/^Bearer realm="[^"]+"$/);
      }
    });

    it('accepts a token it did not issue but that is correctly signed with TOKEN_SECRET (format pinned)', async () => {
      const token = forge(HS256, { sub: 'admin', roles: ['ADMIN'], iat: nowS(), exp: nowS() + 600 });
      const r = await http(custom.url, 'GET', '/api/protected/users', { headers: { authorization: `Bearer ${token}` } });
      expect(r.status).toBe(200);
    });

    it('answers 401 invalid_token for garbage, tampered, re-signed, alg:none and expired tokens', async () => {
      const iat = nowS();
      const good = forge(HS256, { sub: 'admin', roles: ['ADMIN'], iat, exp: iat + 600 });
      const [h, p, s] = good.split('.') as [string, string, string];
      const forged = b64url({ sub: 'admin', roles: ['ADMIN', 'ROOT'], iat, exp: iat + 86_400 });
      const cases: Record<string, string> = {
        'empty token': '',
        garbage: 'not-a-token',
        'three garbage segments': 'abc.def.ghi',
        'invalid base64url character': `${h}.${p}.${s.slice(0, -1)}!`,
        'flipped signature character': `${h}.${p}.${flipChar(s, 5)}`,
        'flipped payload character': `${h}.${flipChar(p, 10)}.${s}`,
        'payload swapped, old signature': `${h}.${forged}.${s}`,
        'alg none, no signature': `${b64url({ alg: 'none', typ: 'JWT' })}.${p}.`,
        'alg none, signature kept': `${b64url({ alg: 'none', typ: 'JWT' })}.${p}.${s}`,
        'alg none, correctly signed': forge({ alg: 'none', typ: 'JWT' }, { sub: 'admin', roles: ['ADMIN'], iat, exp: iat + 600 }),
        'alg HS512 header': forge({ alg: 'HS512', typ: 'JWT' }, { sub: 'admin', roles: ['ADMIN'], iat, exp: iat + 600 }),
        'signed with another secret': forge(HS256, { sub: 'admin', roles: ['ADMIN'], iat, exp: iat + 600 }, `${SECRET}-other`),
        expired: forge(HS256, { sub: 'admin', roles: ['ADMIN'], iat: iat - 120, exp: iat - 60 }),
        'exp equals now-1': forge(HS256, { sub: 'admin', roles: ['ADMIN'], iat: iat - 10, exp: iat - 1 }),
        'missing exp': forge(HS256, { sub: 'admin', roles: ['ADMIN'], iat }),
        'oversized token': `${h}.${'A'.repeat(5000)}.${s}`,
      };
      for (const [name, token] of Object.entries(cases)) {
        const r = await http(custom.url, 'GET', '/api/protected/users', { headers: { authorization: `Bearer ${token}` } });
        expect.soft(r.status, name).toBe(401);
        if (r.status === 401) expectInvalidToken(r);
      }
      // The untouched token still works: the failures above are about the changes, not the format.
      const ok = await http(custom.url, 'GET', '/api/protected/users', { headers: { authorization: `Bearer ${good}` } });
      expect(ok.status).toBe(200);
    });

    it('a token issued by the dev server is refused by a server with another secret', async () => {
      const { accessToken } = (await login(dev, 'admin', 'password')).json<{ accessToken: string }>();
      expectInvalidToken(await http(custom.url, 'GET', '/api/protected/users', { headers: { authorization: `Bearer ${accessToken}` } }));
    });

    it('a real login token carries exp = iat + TOKEN_TTL_SECONDS, works at once and expires at exp (polled, bounded)', async () => {
      const r = await login(custom, CUSTOM.user, CUSTOM.password);
      expect(r.status).toBe(200);
      const { accessToken, expiresIn } = r.json<{ accessToken: string; expiresIn: number }>();
      expect(expiresIn).toBe(TTL_SECONDS);
      const claims = JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iat: number; exp: number };
      expect(claims.exp - claims.iat).toBe(TTL_SECONDS);
      const expiresAtMs = claims.exp * 1000;
      const auth = { authorization: `Bearer ${accessToken}` };
      // At least TTL_SECONDS - 1 s of validity is left after issue, so the first use must succeed.
      const first = await http(custom.url, 'GET', '/api/protected/users', { headers: auth });
      expect(first.status).toBe(200);
      // Poll with short requests, one every 20 ms, until the token is refused: at most ~5 s.
      let last = first;
      const refused = async (): Promise<boolean> => {
        const sentAt = Date.now();
        last = await http(custom.url, 'GET', '/api/protected/users', { headers: auth });
        if (last.status === 200) expect(sentAt, 'still accepted although sent after exp').toBeLessThan(expiresAtMs);
        return last.status !== 200;
      };
      await until(refused, 'the expired token to be refused', 5000, 20);
      expectInvalidToken(last);
      // Refused only on or after exp (RFC 7519 §4.1.4), never early; server and test share a clock.
      expect(Date.now()).toBeGreaterThanOrEqual(expiresAtMs);
    });
  });

  describe('X-API-Key on /api/external/**', () => {
    it('answers 401 with `WWW-Authenticate: API-Key` and a JSON error when the key is missing or empty', async () => {
      for (const headers of [{}, { 'x-api-key': '' }, { 'x-api-key': '   ' }] as Record<string, string>[]) {
        const r = await http(dev.url, 'GET', '/api/external/users', { headers });
        expectErrorBody(r, 401, 'Unauthorized');
        expect(r.headers['www-authenticate']).toBe('API-Key');
      }
    });

    it.each([
      ['a wrong key', 'nope'],
      ['a prefix of the right key', 'test-api-key-12'],
      ['a very long key', 'k'.repeat(4000)],
      ['the right key with a suffix', 'test-api-key-1234'],
    ])('answers 403 Forbidden for %s (never 500)', async (_name, key) => {
      const r = await http(dev.url, 'GET', '/api/external/users', { headers: { 'x-api-key': key } });
      expectErrorBody(r, 403, 'Forbidden');
    });

    it('answers 200 for the development key test-api-key-123', async () => {
      const r = await http(dev.url, 'GET', '/api/external/users', { headers: { 'x-api-key': 'test-api-key-123' } });
      expect(r.status).toBe(200);
      expect(Array.isArray(r.json())).toBe(true);
    });

    it('uses API_KEYS when set: every listed key works, the development key is refused', async () => {
      for (const key of CUSTOM.keys)
        expect((await http(custom.url, 'GET', '/api/external/users', { headers: { 'x-api-key': key } })).status, key).toBe(200);
      const old = await http(custom.url, 'GET', '/api/external/users', { headers: { 'x-api-key': 'test-api-key-123' } });
      expectErrorBody(old, 403, 'Forbidden');
    });
  });

  describe('endpoints without credentials', () => {
    const open = ['/api/health', '/health', '/api/users', '/api/users/1', '/api/users/1/orders', '/api/products/1', '/test'];
    it.each(open)('%s answers 200 without any credentials', async (path) => {
      const r = await http(dev.url, 'GET', path);
      expect([r.status, r.headers['www-authenticate']]).toEqual([200, undefined]);
    });

    it('creating a user needs no API key either', async () => {
      const r = await http(dev.url, 'POST', '/api/users', {
        body: { email: 'no-key@example.com', firstName: 'Nora', lastName: 'Key', age: 40 },
      });
      expect(r.status).toBe(201);
    });
  });
});
