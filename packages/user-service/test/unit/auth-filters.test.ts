/**
 * The three authentication filters in isolation, each over the real credential service from
 * src/domain: the 401 challenges, the 403 for a wrong API key, and the security context a
 * successful check leaves for the filters and resources after it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ForbiddenError, NotAuthorizedError } from '@jaxrs-node/pipeline';
import { createRequestContext, runRequestFilter } from '@jaxrs-node/pipeline/testing';
import { ApiKeyVerifier, BasicAuthenticator } from '../../src/domain/auth/credentials.js';
import { InvalidTokenError, TokenService } from '../../src/domain/auth/bearer-tokens.js';
import { ApiKeyFilter, BasicAuthFilter, BearerAuthFilter } from '../../src/http/filters/auth-filters.js';

const BASIC_CHALLENGE = 'Basic realm="user-service", charset="UTF-8"';
const BEARER_CHALLENGE = 'Bearer realm="user-service"';
const INVALID_TOKEN_CHALLENGE = 'Bearer realm="user-service", error="invalid_token"';

const basicHeader = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const ctxWith = (headers: Record<string, string | string[]>) => createRequestContext({ url: '/api/x', headers });

/** Runs the filter expecting a rejection; returns the error. */
async function rejection(promise: Promise<unknown>): Promise<NotAuthorizedError | ForbiddenError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (error === undefined) throw new Error('the filter let the request through');
  return error as NotAuthorizedError;
}

describe('BasicAuthFilter (real BasicAuthenticator)', () => {
  let filter: BasicAuthFilter;
  beforeAll(async () => {
    // Cheap scrypt parameters: the cost is not what is under test here.
    const authenticator = await BasicAuthenticator.create('admin', 's3cret:with:colons', {
      scrypt: { N: 1024, r: 8, p: 1, keyLength: 32 },
    });
    filter = new BasicAuthFilter(authenticator, null);
  });

  it.each([
    ['no Authorization header', undefined],
    ['a wrong password', basicHeader('admin', 'nope')],
    ['an unknown user', basicHeader('root', 's3cret:with:colons')],
    ['another scheme', 'Bearer abc.def.ghi'],
    ['malformed base64', 'Basic !!!'],
  ])('answers 401 with the Basic challenge for %s', async (_label, header) => {
    const ctx = ctxWith(header === undefined ? {} : { authorization: header });
    const error = await rejection(runRequestFilter(filter, ctx));
    expect(error).toBeInstanceOf(NotAuthorizedError);
    expect(error.status).toBe(401);
    expect(error.headers['www-authenticate']).toBe(BASIC_CHALLENGE);
    expect(ctx.securityContext.authenticated).toBe(false);
  });

  it('authenticates the admin (password split at the first colon) and sets the security context', async () => {
    const ctx = ctxWith({ authorization: basicHeader('admin', 's3cret:with:colons') });
    expect(await runRequestFilter(filter, ctx)).toBeUndefined();
    expect(ctx.securityContext.principal?.name).toBe('admin');
    expect(ctx.securityContext.isUserInRole('ADMIN')).toBe(true);
    expect(ctx.securityContext.authenticationScheme).toBe('Basic');
  });
});

describe('BearerAuthFilter (real TokenService)', () => {
  let now = Date.UTC(2026, 0, 1);
  const tokens = new TokenService({ secret: Buffer.alloc(32, 7), ttlSeconds: 60, clock: () => now });
  const filter = new BearerAuthFilter(tokens, null, null);

  it.each([
    ['no Authorization header', undefined],
    ['another scheme', basicHeader('admin', 'password')],
  ])('answers 401 with a bare Bearer challenge (no error code) for %s', async (_label, header) => {
    const error = await rejection(runRequestFilter(filter, ctxWith(header === undefined ? {} : { authorization: header })));
    expect(error).toBeInstanceOf(NotAuthorizedError);
    expect(error).not.toBeInstanceOf(InvalidTokenError);
    expect(error.status).toBe(401);
    expect(error.headers['www-authenticate']).toBe(BEARER_CHALLENGE);
  });

  it('answers 401 invalid_token for garbage, tampered, foreign and expired tokens', async () => {
    const good = tokens.issue({ name: 'admin', roles: ['ADMIN'] });
    const [h, p, s] = good.split('.') as [string, string, string];
    const forged = new TokenService({ secret: Buffer.alloc(32, 8), ttlSeconds: 60, clock: () => now }).issue({
      name: 'admin',
      roles: ['ADMIN'],
    });
    const tampered = `${h}.${Buffer.from(JSON.stringify({ sub: 'root', roles: ['ADMIN'], iat: 0, exp: 9e9 })).toString('base64url')}.${s}`;
    for (const token of ['', 'garbage', `${h}.${p}.${s}x`, tampered, forged, `${h}.${p}!.${s}`]) {
      const error = await rejection(runRequestFilter(filter, ctxWith({ authorization: `Bearer ${token}` })));
      expect(error, token).toBeInstanceOf(InvalidTokenError);
      expect(error.headers['www-authenticate']).toBe(INVALID_TOKEN_CHALLENGE);
    }
    const issuedAt = now;
    now += 60_000; // exactly exp: RFC 7519 says not accepted on or after
    const expired = await rejection(runRequestFilter(filter, ctxWith({ authorization: `Bearer ${good}` })));
    expect(expired).toMatchObject({ status: 401, failure: 'expired' });
    now = issuedAt;
  });

  it('authenticates a valid token and sets the security context from its claims', async () => {
    const ctx = ctxWith({ authorization: `bearer   ${tokens.issue({ name: 'alice', roles: ['USER', 'ADMIN'] })}` });
    expect(await runRequestFilter(filter, ctx)).toBeUndefined();
    expect(ctx.securityContext.principal?.name).toBe('alice');
    expect([...ctx.securityContext.roles].sort()).toEqual(['ADMIN', 'USER']);
    expect(ctx.securityContext.authenticationScheme).toBe('Bearer');
  });
});

describe('ApiKeyFilter (real ApiKeyVerifier)', () => {
  const filter = new ApiKeyFilter(new ApiKeyVerifier(['key-one', 'key-two']), null);

  it.each([
    ['missing', {}],
    ['empty', { 'x-api-key': '' }],
    ['blank', { 'x-api-key': '   ' }],
  ])('answers 401 + WWW-Authenticate: API-Key when the key is %s', async (_label, headers) => {
    const error = await rejection(runRequestFilter(filter, ctxWith(headers)));
    expect(error).toBeInstanceOf(NotAuthorizedError);
    expect(error.status).toBe(401);
    expect(error.headers['www-authenticate']).toBe('API-Key');
  });

  it.each([
    ['unknown', 'key-three'],
    ['a prefix', 'key-'],
    ['case-changed', 'KEY-ONE'],
    ['oversized', 'k'.repeat(5000)],
    ['repeated', ['key-one', 'key-two']],
  ])('answers 403 Forbidden for an %s key', async (_label, key) => {
    const ctx = ctxWith({ 'x-api-key': key });
    const error = await rejection(runRequestFilter(filter, ctx));
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error).toMatchObject({ status: 403, message: 'Forbidden' });
    expect(ctx.securityContext.authenticated).toBe(false);
  });

  it('authenticates a configured key; the principal names the key by position, never by value', async () => {
    const ctx = ctxWith({ 'x-api-key': 'key-two' });
    expect(await runRequestFilter(filter, ctx)).toBeUndefined();
    expect(ctx.securityContext.principal?.name).toBe('api-key-2');
    expect(ctx.securityContext.isUserInRole('API_CLIENT')).toBe(true);
    expect(ctx.securityContext.authenticationScheme).toBe('API-Key');
  });
});
