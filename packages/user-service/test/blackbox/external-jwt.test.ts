/**
 * Black box: `/api/protected/users` accepts the JWTs of an external issuer (JWT_ISSUER,
 * JWT_AUDIENCE, JWKS_URL) beside the service's own tokens. The issuer is played here: a JWK Set
 * server on 127.0.0.1 that can rotate its keys, and tokens signed in the test with node:crypto.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, removeDir, startServer, type RunningServer } from '../helpers/server.js';

const ISSUER = 'https://id.example.test/';
const AUDIENCE = 'user-service';
const b64url = (value: unknown): string => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const nowS = (): number => Math.floor(Date.now() / 1000);

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });

function rs256(privateKey: KeyObject, claims: object, kid: string): string {
  const input = `${b64url({ alg: 'RS256', kid, typ: 'JWT' })}.${b64url(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
}
function es256(privateKey: KeyObject, claims: object, kid: string): string {
  const input = `${b64url({ alg: 'ES256', kid })}.${b64url(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}
const claims = (extra: object = {}) => ({
  iss: ISSUER,
  aud: AUDIENCE,
  sub: 'svc-reporting',
  roles: ['USER'],
  iat: nowS(),
  exp: nowS() + 300,
  ...extra,
});

describe('external issuer JWTs on /api/protected/users (black box)', () => {
  let issuer: Server;
  let published: object[] = [];
  let server: RunningServer;

  beforeAll(async () => {
    published = [{ ...rsa.publicKey.export({ format: 'jwk' }), kid: 'rsa-2026', use: 'sig' }];
    issuer = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/jwk-set+json', 'cache-control': 'max-age=3600' });
      res.end(JSON.stringify({ keys: published }));
    });
    await new Promise<void>((r) => issuer.listen(0, '127.0.0.1', r));
    const jwks = `http://127.0.0.1:${(issuer.address() as AddressInfo).port}/.well-known/jwks.json`;
    server = await startServer({ env: { AUTH_FAILURES_PER_MINUTE: '0', JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE, JWKS_URL: jwks } });
  });
  afterAll(async () => {
    if (server !== undefined) {
      expect(await server.stop('SIGTERM')).toBe(0);
      removeDir(server.dataDir);
    }
    issuer.closeAllConnections();
    await new Promise((r) => issuer.close(r));
  });

  const get = (token: string) => http(server.url, 'GET', '/api/protected/users', { headers: { authorization: `Bearer ${token}` } });

  it('accepts a token of the issuer, and still the service’s own tokens', async () => {
    expect((await get(rs256(rsa.privateKey, claims(), 'rsa-2026'))).status).toBe(200);
    const login = await http(server.url, 'POST', '/api/auth/login', { body: { username: 'admin', password: 'password' } });
    expect((await get(login.json<{ accessToken: string }>().accessToken)).status).toBe(200);
  });

  it('follows a key rotation: a token naming a new kid makes the service refetch the key set', async () => {
    published = [...published, { ...ec.publicKey.export({ format: 'jwk' }), kid: 'ec-2027', use: 'sig' }];
    expect((await get(es256(ec.privateKey, claims(), 'ec-2027'))).status).toBe(200);
  });

  it.each([
    ['another audience', () => rs256(rsa.privateKey, claims({ aud: 'billing' }), 'rsa-2026')],
    ['another issuer', () => rs256(rsa.privateKey, claims({ iss: 'https://evil.test/' }), 'rsa-2026')],
    ['an expired token', () => rs256(rsa.privateKey, claims({ exp: nowS() - 3600 }), 'rsa-2026')],
    ['no sub', () => rs256(rsa.privateKey, claims({ sub: undefined }), 'rsa-2026')],
    [
      'a key the issuer does not publish',
      () => rs256(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey, claims(), 'rsa-2026'),
    ],
    ['a kid with path characters', () => rs256(rsa.privateKey, claims(), '../../../etc/passwd')],
    ['alg none', () => `${b64url({ alg: 'none' })}.${b64url(claims())}.`],
  ])('refuses %s: 401 invalid_token, the same body as for the service’s own tokens', async (_name, token) => {
    const r = await get(token());
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toMatch(/^Bearer realm="[^"]+".*error="invalid_token"/);
    expect(r.json()).toMatchObject({ status: 401, error: 'invalid_token' });
    expect(r.text).not.toMatch(/id\.example|user-service|rsa-2026|audience/);
  });
});
