/** NewCookie (Jakarta REST 3.1 §3.5.1): the Set-Cookie value of RFC 6265 §4.1 and its validation. */
import { describe, expect, it } from 'vitest';
import { NewCookie } from '../../src/index.js';

describe('NewCookie', () => {
  it('formats name=value alone', () => {
    expect(new NewCookie('sid', 'abc123').toString()).toBe('sid=abc123');
    expect(new NewCookie('empty', '').toString()).toBe('empty=');
    expect(new NewCookie('quoted', '"v"').toString()).toBe('quoted="v"');
  });

  it('formats every attribute in RFC 6265 §4.1.1 form', () => {
    const expires = new Date('2030-01-02T03:04:05Z');
    const c = new NewCookie('sid', 'a%20b', {
      path: '/app',
      domain: 'example.com',
      maxAge: 3600,
      expires,
      secure: true,
      httpOnly: true,
      sameSite: 'None',
      partitioned: true,
    });
    expect(c.toString()).toBe(
      'sid=a%20b; Path=/app; Domain=example.com; Max-Age=3600; Expires=Wed, 02 Jan 2030 03:04:05 GMT; Secure; HttpOnly; SameSite=None; Partitioned',
    );
    expect([c.name, c.value, c.maxAge, c.sameSite]).toEqual(['sid', 'a%20b', 3600, 'None']);
  });

  it('allows Max-Age=0 to delete a cookie (RFC 6265 §5.2.2)', () => {
    expect(new NewCookie('sid', '', { maxAge: 0, path: '/' }).toString()).toBe('sid=; Path=/; Max-Age=0');
  });

  it.each([
    ['a name with a space', () => new NewCookie('bad name', 'v'), 'name'],
    ['an empty name', () => new NewCookie('', 'v'), 'name'],
    ['a name with =', () => new NewCookie('a=b', 'v'), 'name'],
    ['a value with a space', () => new NewCookie('n', 'a b'), 'value'],
    ['a value with ;', () => new NewCookie('n', 'a;b'), 'value'],
    ['a value with ,', () => new NewCookie('n', 'a,b'), 'value'],
    ['a value with a backslash', () => new NewCookie('n', 'a\\b'), 'value'],
    ['a value with a lone quote', () => new NewCookie('n', '"ab'), 'value'],
    ['a value with non-ASCII', () => new NewCookie('n', 'café'), 'value'],
    ['a path with ;', () => new NewCookie('n', 'v', { path: '/a;b' }), 'path'],
    ['a domain with a leading dot', () => new NewCookie('n', 'v', { domain: '.example.com' }), 'domain'],
    ['a negative maxAge', () => new NewCookie('n', 'v', { maxAge: -1 }), 'maxAge'],
    ['a fractional maxAge', () => new NewCookie('n', 'v', { maxAge: 1.5 }), 'maxAge'],
    ['an invalid Date', () => new NewCookie('n', 'v', { expires: new Date('nope') }), 'expires'],
    ['an unknown sameSite', () => new NewCookie('n', 'v', { sameSite: 'lax' as never }), 'sameSite'],
    ['SameSite=None without Secure', () => new NewCookie('n', 'v', { sameSite: 'None' }), 'secure'],
    ['Partitioned without Secure', () => new NewCookie('n', 'v', { partitioned: true }), 'secure'],
    ['a __Secure- cookie without Secure', () => new NewCookie('__Secure-n', 'v'), 'secure'],
    ['a __Host- cookie with a Domain', () => new NewCookie('__Host-n', 'v', { secure: true, path: '/', domain: 'example.com' }), '__Host-'],
  ])('rejects %s with a TypeError', (_what, make, named) => {
    expect(make).toThrow(TypeError);
    expect(make).toThrow(named);
  });

  it('accepts a valid __Host- cookie', () => {
    expect(new NewCookie('__Host-sid', 'x', { secure: true, path: '/' }).toString()).toBe('__Host-sid=x; Path=/; Secure');
  });
});
