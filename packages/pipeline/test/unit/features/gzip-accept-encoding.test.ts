import { describe, expect, it, vi } from 'vitest';
import { acceptsGzip } from '../../../src/features/content-coding/accept-encoding.js';
import { lastValueMemo } from '../../../src/core/util/memo.js';

describe('acceptsGzip (RFC 9110 §12.5.3)', () => {
  it.each<[string | undefined, boolean]>([
    // absent: we do not compress (documented choice); empty: identity only
    [undefined, false],
    ['', false],
    ['gzip', true],
    ['GZip', true],
    ['x-gzip', true],
    ['gzip, deflate, br', true],
    ['br, gzip;q=0.8', true],
    ['deflate, br', false],
    ['identity', false],
    ['identity;q=1', false],
    // weights
    ['gzip;q=0', false],
    ['gzip;q=0.000', false],
    ['gzip;q=0.001', true],
    ['gzip; q=0.5', true],
    ['gzip;Q=1.000', true],
    // wildcard
    ['*', true],
    ['*;q=0', false],
    ['br, *;q=0.1', true],
    ['*, gzip;q=0', false], // the explicit entry beats the wildcard
    ['gzip, *;q=0', true],
    ['identity, *;q=0', false],
    // identity preferred over gzip: send identity; ties go to gzip
    ['gzip;q=0.5, identity', false],
    ['gzip, identity;q=0.5', true],
    ['gzip;q=0.5, identity;q=0.5', true],
    ['*;q=0.3, identity;q=0.5', false],
    // malformed weights make the element void, not the header
    ['gzip;q=2', false],
    ['gzip;q=abc', false],
    ['gzip;q=abc, *', true],
    ['gzip;q=0.5000', false],
    // odd spacing and empty elements
    [' , gzip ,', true],
    ['deflate ;q=1 ,  gzip ; q=0.9', true],
    // mixed case: codings and the q parameter name are case-insensitive
    ['GZIP;Q=0', false],
    ['X-GZip;q=0.5', true],
    ['*;Q=0', false],
    ['IDENTITY, gzip;q=0.5', false],
    ['Identity;Q=0, GZIP', true],
    // repeated header lines, as Node and getHeader join them
    ['gzip;q=0, br', false],
    ['br, gzip', true],
    ['identity, *;q=0', false],
    ['*;q=0, gzip', true],
  ])('%j -> %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });

  it('answers each header on its own through the one-entry cache (alternating and repeated values)', () => {
    const cases: [string, boolean][] = [
      ['gzip', true],
      ['gzip', true],
      ['gzip;q=0', false],
      ['gzip;q=0', false],
      ['gzip', true],
      ['*;q=0', false],
      ['*', true],
      ['identity', false],
      ['GZIP', true],
      ['GZIP;Q=0', false],
      ['', false],
      ['gzip', true],
      // longer than what is cached: computed each time, and the short entry stays valid
      [`${'br;q=0.5, '.repeat(40)}gzip;q=0`, false],
      ['gzip', true],
      [`${'br;q=0.5, '.repeat(40)}gzip`, true],
      ['gzip;q=0', false],
    ];
    expect(cases.map(([h]) => acceptsGzip(h))).toEqual(cases.map(([, expected]) => expected));
    // The same content in a different string instance is the same header.
    const built = ['gz', 'ip;q=0'].join('');
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip(built)).toBe(false);
  });
});

describe('lastValueMemo', () => {
  it('computes once for a value repeated from call to call', () => {
    const compute = vi.fn((v: string) => v.length);
    const memo = lastValueMemo(compute, 16);
    expect([memo('gzip'), memo('gzip'), memo(['gz', 'ip'].join(''))]).toEqual([4, 4, 4]);
    expect(compute).toHaveBeenCalledTimes(1);
  });

  it('keeps one entry: another value is computed and replaces it', () => {
    const compute = vi.fn((v: string) => v.toUpperCase());
    const memo = lastValueMemo(compute, 16);
    expect([memo('a'), memo('b'), memo('a'), memo('a')]).toEqual(['A', 'B', 'A', 'A']);
    expect(compute.mock.calls.map(([v]) => v)).toEqual(['a', 'b', 'a']);
  });

  it('caches falsy results too', () => {
    const compute = vi.fn((_v: string) => false);
    const memo = lastValueMemo(compute, 16);
    memo('gzip;q=0');
    memo('gzip;q=0');
    expect(compute).toHaveBeenCalledTimes(1);
  });

  it('computes values longer than maxLength every time, without evicting the cached one', () => {
    const compute = vi.fn((v: string) => v.length);
    const memo = lastValueMemo(compute, 4);
    const long = 'x'.repeat(5);
    expect([memo('gzip'), memo(long), memo(long), memo('gzip')]).toEqual([4, 5, 5, 4]);
    expect(compute.mock.calls.map(([v]) => v)).toEqual(['gzip', long, long]);
  });
});
