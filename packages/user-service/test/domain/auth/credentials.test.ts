import { scrypt } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { ApiKeyVerifier, BasicAuthenticator, parseBasicCredentials, type ScryptParams } from '../../../src/domain/auth/credentials.js';

// Spy on scrypt (still the real one) to prove which attempts pay for a hash.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, scrypt: vi.fn(actual.scrypt) };
});

/** Cheap scrypt for behaviour tests; the timing test uses the real default. */
const FAST: ScryptParams = { N: 1024, r: 8, p: 1, keyLength: 32 };
const basic = (raw: string) => `Basic ${Buffer.from(raw, 'utf8').toString('base64')}`;

describe('parseBasicCredentials', () => {
  it('decodes user:password and splits at the first colon', () => {
    expect(parseBasicCredentials(basic('admin:password'))).toEqual({ username: 'admin', password: 'password' });
    expect(parseBasicCredentials(basic('admin:pa:ss:'))).toEqual({ username: 'admin', password: 'pa:ss:' });
    expect(parseBasicCredentials(basic(':'))).toEqual({ username: '', password: '' });
  });

  it('accepts the scheme in any case and UTF-8 credentials (RFC 7617 charset)', () => {
    expect(parseBasicCredentials(`bAsIc ${Buffer.from('ädmin:pässword').toString('base64')}`)).toEqual({
      username: 'ädmin',
      password: 'pässword',
    });
  });

  it.each([
    ['missing', undefined],
    ['other scheme', 'Bearer abc'],
    ['no token', 'Basic'],
    ['no colon', basic('adminpassword')],
    ['bad base64 characters', 'Basic YWRtaW46cGFz!3dvcmQ='],
    ['bad padding length', 'Basic YWRtaW46cGFzc3dvcmQ'],
    ['padding in the middle', 'Basic YW=taW46cGFzc3dvcmQ='],
    ['invalid UTF-8', `Basic ${Buffer.from([0x61, 0x3a, 0xff, 0xfe]).toString('base64')}`],
    ['control character', basic('admin:pass\u0000word')],
    ['trailing garbage', `${basic('admin:password')} extra`],
    ['oversized', basic(`admin:${'x'.repeat(5000)}`)],
  ])('returns null for %s', (_, header) => {
    expect(parseBasicCredentials(header)).toBeNull();
  });
});

describe('BasicAuthenticator', () => {
  it('authenticates the configured account as ADMIN', async () => {
    const auth = await BasicAuthenticator.create('admin', 'password', { scrypt: FAST });
    expect(await auth.authenticate(basic('admin:password'))).toEqual({ name: 'admin', roles: ['ADMIN'] });
    expect(await auth.verifyLogin('admin', 'password')).toEqual({ name: 'admin', roles: ['ADMIN'] });
  });

  it('works without awaiting create (hashing finishes before the first check)', async () => {
    const auth = new BasicAuthenticator('admin', 's3cret', { scrypt: FAST });
    expect(await auth.verifyLogin('admin', 's3cret')).not.toBeNull();
  });

  it('refuses wrong, partial and differently sized credentials without throwing', async () => {
    const auth = await BasicAuthenticator.create('admin', 'password', { scrypt: FAST });
    const wrong: [unknown, unknown][] = [
      ['admin', 'passwordx'],
      ['admin', 'passwor'],
      ['admin', ''],
      ['Admin', 'password'],
      ['admin ', 'password'],
      ['', ''],
      ['root', 'password'],
      ['admin', 'x'.repeat(2000)],
      [undefined, 'password'],
      ['admin', 42],
      [{}, []],
    ];
    for (const [user, pass] of wrong) expect(await auth.verifyLogin(user, pass)).toBeNull();
    expect(await auth.authenticate(basic('admin:wrong'))).toBeNull();
    expect(await auth.authenticate(undefined)).toBeNull();
  });

  it('does not let a cached success admit other credentials', async () => {
    const auth = await BasicAuthenticator.create('admin', 'password', { scrypt: FAST });
    expect(await auth.verifyLogin('admin', 'password')).not.toBeNull();
    expect(await auth.verifyLogin('admin', 'password2')).toBeNull();
    expect(await auth.verifyLogin('admin2', 'password')).toBeNull();
    // JSON encoding of the pair keeps "a" + "b:c" apart from "a:b" + "c".
    expect(await auth.verifyLogin('admin:pass', 'word')).toBeNull();
    expect(await auth.verifyLogin('admin', 'password')).not.toBeNull();
  });

  it('pays the same scrypt cost for an unknown user as for a wrong password', async () => {
    const auth = await BasicAuthenticator.create('admin', 'password');
    const spy = vi.mocked(scrypt);
    const hashesFor = async (user: string): Promise<unknown[][]> => {
      spy.mockClear();
      expect(await auth.verifyLogin(user, 'not-the-password')).toBeNull();
      // Drop the password argument; keep salt length, key length and cost options.
      return spy.mock.calls.map(([, salt, keyLength, options]) => [(salt as Buffer).length, keyLength, options]);
    };
    const wrongPassword = await hashesFor('admin');
    const unknownUser = await hashesFor('nobody');
    expect(wrongPassword).toHaveLength(1);
    expect(unknownUser).toEqual(wrongPassword);
    expect(wrongPassword[0]![2]).toMatchObject({ N: 16_384, r: 8, p: 1 });
  });

  it('skips scrypt only for a repeat of credentials that already passed', async () => {
    const auth = await BasicAuthenticator.create('admin', 'password', { scrypt: FAST });
    const spy = vi.mocked(scrypt);
    spy.mockClear();
    await auth.verifyLogin('admin', 'password');
    await auth.verifyLogin('admin', 'password');
    expect(spy).toHaveBeenCalledTimes(1);
    await auth.verifyLogin('admin', 'wrong');
    await auth.verifyLogin('admin', 'wrong');
    expect(spy).toHaveBeenCalledTimes(3);
  });

  it('rejects empty configured credentials', () => {
    expect(() => new BasicAuthenticator('', 'x')).toThrow(TypeError);
    expect(() => new BasicAuthenticator('x', '')).toThrow(TypeError);
  });
});

describe('ApiKeyVerifier', () => {
  const verifier = new ApiKeyVerifier(['test-api-key-123', 'second-key', 'test-api-key-123']);

  it('accepts each configured key and names it by position, never by value', () => {
    expect(verifier.authenticate('test-api-key-123')).toEqual({ name: 'api-key-1', roles: ['API_CLIENT'] });
    expect(verifier.authenticate('second-key')).toEqual({ name: 'api-key-2', roles: ['API_CLIENT'] });
    expect(verifier.verify('second-key')).toBe(true);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['prefix', 'test-api-key-12'],
    ['longer', 'test-api-key-1234'],
    ['case changed', 'TEST-API-KEY-123'],
    ['joined duplicates', 'test-api-key-123, test-api-key-123'],
    ['oversized', 'k'.repeat(10_000)],
  ])('refuses a %s key without throwing', (_, key) => {
    expect(verifier.authenticate(key)).toBeNull();
    expect(verifier.verify(key)).toBe(false);
  });

  it('refuses everything when no key is configured, and rejects empty keys', () => {
    expect(new ApiKeyVerifier([]).verify('anything')).toBe(false);
    expect(() => new ApiKeyVerifier(['ok', ''])).toThrow(TypeError);
  });
});
