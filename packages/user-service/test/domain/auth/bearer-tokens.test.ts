import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { WebApplicationError } from '@jaxrs-node/pipeline';
import { InvalidTokenError, TokenService, type InvalidTokenReason } from '../../../src/domain/auth/bearer-tokens.js';

const secret = randomBytes(32);
const admin = { name: 'admin', roles: ['ADMIN'] };

function clockAt(ms: number) {
  const clock = { now: ms, read: () => clock.now };
  return clock;
}

function b64(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

/** Signs arbitrary header/payload with the service secret, as an insider or a bug would. */
function forge(header: unknown, payload: unknown, key: Buffer = secret): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
}

function failure(fn: () => unknown): InvalidTokenReason {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidTokenError);
    return (err as InvalidTokenError).failure;
  }
  throw new Error('expected InvalidTokenError');
}

describe('TokenService', () => {
  const clock = clockAt(Date.UTC(2030, 0, 1));
  const tokens = new TokenService({ secret, ttlSeconds: 3600, clock: clock.read });
  const nowS = Math.floor(clock.now / 1000);

  it('round-trips the principal through issue and verify', () => {
    const token = tokens.issue(admin);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(tokens.verify(token)).toEqual(admin);
    expect(tokens.verifyClaims(token)).toEqual({ sub: 'admin', roles: ['ADMIN'], iat: nowS, exp: nowS + 3600 });
  });

  it('uses a fixed HS256 header', () => {
    const header = JSON.parse(Buffer.from(tokens.issue(admin).split('.')[0]!, 'base64url').toString());
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
  });

  it('expires exactly at exp (RFC 7519: not accepted on or after exp), using the injected clock', () => {
    const local = clockAt(clock.now);
    const service = new TokenService({ secret, ttlSeconds: 60, clock: local.read });
    const token = service.issue(admin);
    local.now += 59_999;
    expect(service.verify(token).name).toBe('admin');
    local.now += 1;
    expect(failure(() => service.verify(token))).toBe('expired');
  });

  it('is a 401 with the invalid_token challenge and code', () => {
    let error: unknown;
    try {
      tokens.verify('x.y.z');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(WebApplicationError);
    const e = error as InvalidTokenError;
    expect(e.status).toBe(401);
    expect(e.code).toBe('invalid_token');
    expect(e.headers['www-authenticate']).toBe('Bearer realm="user-service", error="invalid_token"');
    // One message whatever failed; the reason is only on `failure`.
    expect(e.message).toBe('The access token is invalid or expired');
    expect(new InvalidTokenError('signature').message).toBe(e.message);
  });

  it.each([
    ['empty', ''],
    ['two segments', 'abc.def'],
    ['four segments', 'a.b.c.d'],
    ['padding', 'YQ==.YQ==.YQ=='],
    ['whitespace', 'a .b.c'],
    ['standard base64 chars', 'a+b.c/d.e'],
    ['too long', `${'a'.repeat(3000)}.${'a'.repeat(3000)}.a`],
  ])('refuses a malformed token (%s) before decoding', (_, token) => {
    expect(failure(() => tokens.verify(token))).toBe('malformed');
  });

  it('refuses a token with characters base64url decoding would silently drop', () => {
    const [h, p, s] = tokens.issue(admin).split('.') as [string, string, string];
    // Buffer.from drops '!' so the decoded bytes would match; the shape check must catch it.
    expect(failure(() => tokens.verify(`${h}.${p}!.${s}`))).toBe('malformed');
  });

  it('refuses a tampered payload, header or signature', () => {
    const [h, p, s] = tokens.issue(admin).split('.') as [string, string, string];
    const elevated = b64({ sub: 'admin', roles: ['ADMIN', 'ROOT'], iat: nowS, exp: nowS + 99999 });
    expect(failure(() => tokens.verify(`${h}.${elevated}.${s}`))).toBe('signature');
    expect(failure(() => tokens.verify(`${b64({ alg: 'none' })}.${p}.${s}`))).toBe('signature');
    const flipped = (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    expect(failure(() => tokens.verify(`${h}.${p}.${flipped}`))).toBe('signature');
    expect(failure(() => tokens.verify(`${h}.${p}.${s}A`))).toBe('signature');
  });

  it('refuses a non-canonical encoding of the right signature', () => {
    const [h, p, s] = tokens.issue(admin).split('.') as [string, string, string];
    // 43 chars encode 258 bits; the last char's two low bits are padding and decoders ignore them.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(s.at(-1)!);
    const twin = s.slice(0, -1) + alphabet[last ^ 1];
    expect(Buffer.from(twin, 'base64url').equals(Buffer.from(s, 'base64url'))).toBe(true);
    expect(failure(() => tokens.verify(`${h}.${p}.${twin}`))).toBe('signature');
  });

  it('refuses alg "none" with an empty signature as malformed', () => {
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'admin', roles: ['ADMIN'], iat: nowS, exp: nowS + 60 })}.`;
    expect(failure(() => tokens.verify(unsigned))).toBe('malformed');
  });

  it('refuses a correctly signed token whose header names another algorithm', () => {
    const token = forge({ alg: 'HS512', typ: 'JWT' }, { sub: 'admin', roles: ['ADMIN'], iat: nowS, exp: nowS + 60 });
    expect(failure(() => tokens.verify(token))).toBe('algorithm');
  });

  it('refuses a token signed with another secret', () => {
    const token = forge({ alg: 'HS256', typ: 'JWT' }, { sub: 'admin', roles: ['ADMIN'], iat: nowS, exp: nowS + 60 }, randomBytes(32));
    expect(failure(() => tokens.verify(token))).toBe('signature');
  });

  it.each([
    ['missing sub', { roles: ['ADMIN'], iat: nowS, exp: nowS + 60 }],
    ['empty sub', { sub: '', roles: ['ADMIN'], iat: nowS, exp: nowS + 60 }],
    ['roles not an array', { sub: 'a', roles: 'ADMIN', iat: nowS, exp: nowS + 60 }],
    ['non-string role', { sub: 'a', roles: [1], iat: nowS, exp: nowS + 60 }],
    ['fractional exp', { sub: 'a', roles: [], iat: nowS, exp: nowS + 0.5 }],
    ['exp before iat', { sub: 'a', roles: [], iat: nowS, exp: nowS - 1 }],
    ['iat in the future', { sub: 'a', roles: [], iat: nowS + 3600, exp: nowS + 7200 }],
  ])('refuses signed claims with %s', (_, claims) => {
    expect(failure(() => tokens.verify(forge({ alg: 'HS256', typ: 'JWT' }, claims)))).toBe('claims');
  });

  it('refuses a signed payload that is not a JSON object', () => {
    expect(failure(() => tokens.verify(forge({ alg: 'HS256' }, 'not json')))).toBe('malformed');
    expect(failure(() => tokens.verify(forge({ alg: 'HS256' }, [1, 2])))).toBe('malformed');
  });

  it('ignores unknown claims and does not let __proto__ leak into the principal', () => {
    const payload = `{"sub":"a","roles":["USER"],"iat":${nowS},"exp":${nowS + 60},"__proto__":{"admin":true},"extra":1}`;
    const principal = tokens.verify(forge({ alg: 'HS256' }, payload));
    expect(principal).toEqual({ name: 'a', roles: ['USER'] });
    expect(({} as Record<string, unknown>)['admin']).toBeUndefined();
  });

  it('rejects short secrets and bad lifetimes at construction', () => {
    expect(() => new TokenService({ secret: randomBytes(16), ttlSeconds: 60 })).toThrow(RangeError);
    expect(() => new TokenService({ secret, ttlSeconds: 0 })).toThrow(RangeError);
  });
});
