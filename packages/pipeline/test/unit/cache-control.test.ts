/** CacheControl (Jakarta REST 3.1 §3.5.1; RFC 9111 §5.2.2, RFC 8246, RFC 5861): building, formatting, parsing, validation. */
import { describe, expect, it } from 'vitest';
import { CacheControl } from '../../src/index.js';

describe('CacheControl', () => {
  it('formats every response directive in a fixed order', () => {
    const cc = new CacheControl({
      maxAge: 60,
      sMaxAge: 120,
      noCache: true,
      noStore: true,
      noTransform: true,
      mustRevalidate: true,
      proxyRevalidate: true,
      mustUnderstand: true,
      private: true,
      public: true,
      immutable: true,
      staleWhileRevalidate: 30,
      staleIfError: 600,
      extensions: { community: 'UCI', 'x-flag': true },
    });
    expect(cc.toString()).toBe(
      'public, private, no-cache, no-store, no-transform, must-revalidate, proxy-revalidate, must-understand, immutable, ' +
        'max-age=60, s-maxage=120, stale-while-revalidate=30, stale-if-error=600, community=UCI, x-flag',
    );
  });

  it('is empty without directives and leaves out false flags', () => {
    expect(new CacheControl().toString()).toBe('');
    expect(new CacheControl({ noStore: false, private: false }).toString()).toBe('');
  });

  it('sends field-name lists of no-cache and private as quoted-strings (RFC 9111 §5.2.2.4, §5.2.2.7)', () => {
    expect(new CacheControl({ private: ['Set-Cookie', 'X-Token'], noCache: ['Authorization'] }).toString()).toBe(
      'private="Set-Cookie, X-Token", no-cache="Authorization"',
    );
  });

  it('quotes an extension argument that is not a token', () => {
    expect(new CacheControl({ extensions: { ext: 'a b"c' } }).toString()).toBe('ext="a b\\"c"');
  });

  it('derives a copy with with(); undefined or false removes a directive', () => {
    const base = new CacheControl({ maxAge: 60, private: true });
    expect(base.with({ mustRevalidate: true }).toString()).toBe('private, must-revalidate, max-age=60');
    expect(base.with({ private: false, public: true, maxAge: undefined }).toString()).toBe('public');
    expect(base.toString()).toBe('private, max-age=60');
    expect(Object.isFrozen(base)).toBe(true);
  });

  it.each<[string, object, string]>([
    ['max-age', { maxAge: -1 }, 'max-age'],
    ['max-age', { maxAge: 1.5 }, 'max-age'],
    ['s-maxage', { sMaxAge: Number.NaN }, 's-maxage'],
    ['stale-while-revalidate', { staleWhileRevalidate: -5 }, 'stale-while-revalidate'],
    ['stale-if-error', { staleIfError: Infinity }, 'stale-if-error'],
    ['no-cache', { noCache: ['bad name'] }, 'no-cache'],
    ['private', { private: [] }, 'private'],
    ['extension name', { extensions: { 'a b': true } }, 'a b'],
    ['extension value', { extensions: { ext: 'line\nbreak' } }, 'ext'],
    ['standard directive as extension', { extensions: { 'Max-Age': '5' } }, 'max-age'],
    ['flag', { noStore: 'yes' }, 'no-store'],
  ])('rejects an invalid %s with a TypeError naming it', (_what, options, named) => {
    expect(() => new CacheControl(options as never)).toThrow(TypeError);
    expect(() => new CacheControl(options as never)).toThrow(named);
  });

  it('parses directives case-insensitively, with token or quoted arguments', () => {
    const cc = CacheControl.parse('Public, MAX-AGE=60, s-maxage="120", no-cache="Set-Cookie, X-A", must-revalidate, immutable');
    expect(cc.public).toBe(true);
    expect(cc.maxAge).toBe(60);
    expect(cc.sMaxAge).toBe(120);
    expect(cc.noCache).toEqual(['Set-Cookie', 'X-A']);
    expect(cc.mustRevalidate).toBe(true);
    expect(cc.immutable).toBe(true);
    expect(cc.noStore).toBeUndefined();
  });

  it('parses private with and without fields, extensions, and skips empty list members', () => {
    expect(CacheControl.parse('private').private).toBe(true);
    expect(CacheControl.parse('private=Set-Cookie').private).toEqual(['Set-Cookie']);
    const cc = CacheControl.parse(' , no-store,, community="UCI, x", x-flag ,');
    expect(cc.noStore).toBe(true);
    expect(cc.extensions).toEqual({ community: 'UCI, x', 'x-flag': true });
  });

  it('round-trips through toString and parse', () => {
    const cc = new CacheControl({ private: ['Set-Cookie'], maxAge: 0, staleIfError: 60, mustUnderstand: true, noStore: true });
    expect(CacheControl.parse(cc.toString())).toEqual(cc);
    expect(CacheControl.parse(cc.toString()).toString()).toBe(cc.toString());
  });

  it.each([
    ['max-age=-1', 'max-age'],
    ['max-age=1.5', 'max-age'],
    ['max-age', 'max-age'],
    ['no-store=1', 'no-store'],
    ['max-age=1, max-age=2', 'max-age'],
    ['no-cache="Set-Cookie', 'no-cache'],
    ['bad"name', 'not a directive name'],
    ['max-age=1 junk', 'max-age'],
  ])('parse rejects %j with a TypeError naming %s', (text, named) => {
    expect(() => CacheControl.parse(text)).toThrow(TypeError);
    expect(() => CacheControl.parse(text)).toThrow(named);
  });
});
