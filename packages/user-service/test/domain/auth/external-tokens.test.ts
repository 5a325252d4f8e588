/** ExternalTokens: an external issuer's JWTs become the service's principals; failures its errors. */
import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ServiceUnavailableError } from '@jaxrs-node/pipeline';
import { InvalidTokenError } from '../../../src/domain/auth/bearer-tokens.js';
import { ExternalTokens } from '../../../src/domain/auth/external-tokens.js';

const b64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const NOW = 1_800_000_000;
function token(claims: object): string {
  const input = `${b64url({ alg: 'ES256', kid: 'k' })}.${b64url(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}
const claims = (extra: object = {}) => ({ iss: 'https://id.test', aud: 'svc', sub: 'alice', exp: NOW + 60, ...extra });

async function withKeySet<T>(up: boolean, run: (url: string) => Promise<T>): Promise<T> {
  const server = createServer((_req, res) => {
    if (!up) return void res.writeHead(500).end();
    res.writeHead(200).end(JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k' }] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    return await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

const external = (jwksUrl: string) =>
  new ExternalTokens({ issuer: 'https://id.test', audience: 'svc', jwksUrl }, { clock: () => NOW * 1000 });

describe('ExternalTokens', () => {
  it('names the caller jwt:<sub> with the roles of the roles claim', async () => {
    await withKeySet(true, async (url) => {
      expect(await external(url).verify(token(claims({ roles: ['USER', 'ADMIN'] })))).toEqual({
        name: 'jwt:alice',
        roles: ['USER', 'ADMIN'],
      });
      expect(await external(url).verify(token(claims()))).toEqual({ name: 'jwt:alice', roles: [] });
    });
  });

  it('a token that does not verify, or whose roles are not a list of strings, is the service’s InvalidTokenError', async () => {
    await withKeySet(true, async (url) => {
      for (const c of [claims({ aud: 'other' }), claims({ exp: NOW - 3600 }), claims({ roles: 'ADMIN' }), claims({ sub: undefined })]) {
        await expect(external(url).verify(token(c))).rejects.toBeInstanceOf(InvalidTokenError);
      }
    });
  });

  it('a key set that cannot be fetched is 503 AUTH_KEYS_UNAVAILABLE, not 401', async () => {
    await withKeySet(false, async (url) => {
      const error = await external(url)
        .verify(token(claims()))
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect(error).toMatchObject({ status: 503, code: 'AUTH_KEYS_UNAVAILABLE', headers: { 'retry-after': '5' } });
    });
  });
});
