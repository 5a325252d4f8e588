import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ForbiddenError, NotAuthorizedError, type WebApplicationError } from '@jaxrs-node/pipeline';
import { loginFailed } from '../../../src/domain/auth/principal.js';
import { readBearerToken, requireApiKey, requireBasic, requireBearer } from '../../../src/domain/auth/guards.js';
import { ApiKeyVerifier, BasicAuthenticator } from '../../../src/domain/auth/credentials.js';
import { InvalidTokenError, TokenService } from '../../../src/domain/auth/bearer-tokens.js';

async function caught(fn: () => unknown): Promise<WebApplicationError> {
  try {
    await fn();
  } catch (err) {
    return err as WebApplicationError;
  }
  throw new Error('expected an error');
}

describe('readBearerToken', () => {
  it.each([
    ['Bearer abc.def.ghi', 'abc.def.ghi'],
    ['bearer   abc', 'abc'],
    ['Bearer', ''],
    ['Bearer a b', 'a b'],
    ['Basic YWRtaW46cGFzc3dvcmQ=', undefined],
    ['Bearerabc', undefined],
    [undefined, undefined],
  ])('%s -> %s', (header, token) => {
    expect(readBearerToken(header)).toBe(token);
  });
});

describe('requireBearer', () => {
  const tokens = new TokenService({ secret: randomBytes(32), ttlSeconds: 60 });

  it('returns the principal of a valid token', () => {
    const token = tokens.issue({ name: 'admin', roles: ['ADMIN'] });
    expect(requireBearer(tokens, `Bearer ${token}`)).toEqual({ name: 'admin', roles: ['ADMIN'] });
  });

  it('answers a missing token with 401 and a challenge without error (RFC 6750 §3.1)', async () => {
    for (const header of [undefined, 'Basic abc']) {
      const error = await caught(() => requireBearer(tokens, header));
      expect(error).toBeInstanceOf(NotAuthorizedError);
      expect(error).not.toBeInstanceOf(InvalidTokenError);
      expect(error.headers['www-authenticate']).toBe('Bearer realm="user-service"');
    }
  });

  it('answers a garbage or empty token with invalid_token', async () => {
    for (const header of ['Bearer', 'Bearer not-a-token', 'Bearer a b']) {
      const error = await caught(() => requireBearer(tokens, header));
      expect(error).toBeInstanceOf(InvalidTokenError);
      expect(error.code).toBe('invalid_token');
      expect(error.status).toBe(401);
    }
  });
});

describe('requireBasic', () => {
  it('accepts the admin and answers anything else with 401 + Basic challenge', async () => {
    const auth = await BasicAuthenticator.create('admin', 'password', { scrypt: { N: 1024, r: 8, p: 1, keyLength: 32 } });
    const good = `Basic ${Buffer.from('admin:password').toString('base64')}`;
    expect(await requireBasic(auth, good)).toEqual({ name: 'admin', roles: ['ADMIN'] });
    const missing = await caught(() => requireBasic(auth, undefined));
    const wrong = await caught(() => requireBasic(auth, `Basic ${Buffer.from('admin:nope').toString('base64')}`));
    for (const error of [missing, wrong]) {
      expect(error.status).toBe(401);
      expect(error.headers['www-authenticate']).toBe('Basic realm="user-service", charset="UTF-8"');
    }
    // Same body whatever went wrong.
    expect(wrong.message).toBe(missing.message);
  });
});

describe('requireApiKey', () => {
  const verifier = new ApiKeyVerifier(['test-api-key-123']);

  it('accepts a configured key', () => {
    expect(requireApiKey(verifier, 'test-api-key-123').name).toBe('api-key-1');
  });

  it('answers a missing key with 401 + WWW-Authenticate: API-Key (SPEC rule 5)', async () => {
    for (const value of [undefined, '', '   ']) {
      const error = await caught(() => requireApiKey(verifier, value));
      expect(error.status).toBe(401);
      expect(error.headers['www-authenticate']).toBe('API-Key');
    }
  });

  it('answers a wrong key, or two keys, with 403 Forbidden (SPEC rule 4)', async () => {
    for (const value of ['wrong', ['test-api-key-123', 'test-api-key-123']]) {
      const error = await caught(() => requireApiKey(verifier, value));
      expect(error).toBeInstanceOf(ForbiddenError);
      expect(error.message).toBe('Forbidden');
    }
  });
});

describe('loginFailed', () => {
  it('is a 401 with a generic message', () => {
    const error = loginFailed();
    expect(error.status).toBe(401);
    expect(error.message).toBe('Invalid username or password');
    expect(error.headers['www-authenticate']).toMatch(/^Bearer realm=/);
  });
});
