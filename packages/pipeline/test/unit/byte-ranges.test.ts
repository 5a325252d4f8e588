/**
 * The Range and If-Range rules in isolation (RFC 9110 §14.1.1, §14.2, §13.1.5): the request-level
 * behaviour is in test/conformance/ranges.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { COALESCE_GAP, ifRangeHolds, MAX_RANGES, selectRanges } from '../../src/core/ranges/byte-ranges.js';

describe('selectRanges', () => {
  it('int, open and suffix ranges, cut at the last byte', () => {
    expect(selectRanges('bytes=0-0', 10)).toEqual([{ start: 0, end: 0 }]);
    expect(selectRanges('bytes=5-', 10)).toEqual([{ start: 5, end: 9 }]);
    expect(selectRanges('bytes=-3', 10)).toEqual([{ start: 7, end: 9 }]);
    expect(selectRanges('bytes=-30', 10)).toEqual([{ start: 0, end: 9 }]);
    expect(selectRanges('bytes=8-99999999999999999999', 10)).toEqual([{ start: 8, end: 9 }]);
  });

  it('unsatisfiable only when no range selects a byte; satisfiable ones are kept', () => {
    expect(selectRanges('bytes=10-', 10)).toBe('unsatisfiable');
    expect(selectRanges('bytes=-0', 10)).toBe('unsatisfiable');
    expect(selectRanges('bytes=99999999999999999999-', 10)).toBe('unsatisfiable');
    expect(selectRanges('bytes=20-30,2-3', 10)).toEqual([{ start: 2, end: 3 }]);
  });

  it('malformed headers are ignored as a whole', () => {
    for (const h of ['bytes=3-2', 'bytes=1-2,x', 'bytes=', 'bytes=,', 'bytes =1-2', 'bytes=1 -2', 'bytes=+1-2', 'bytes=0x1-2']) {
      expect(selectRanges(h, 10), h).toBe('ignore');
    }
  });

  it(`at most ${MAX_RANGES} ranges`, () => {
    const list = (n: number) => `bytes=${Array.from({ length: n }, (_, i) => `${i * 1000}-${i * 1000}`).join(',')}`;
    expect(selectRanges(list(MAX_RANGES), 1_000_000)).toHaveLength(MAX_RANGES);
    expect(selectRanges(list(MAX_RANGES + 1), 1_000_000)).toBe('ignore');
  });

  it(`coalesces a range into the previous one when they overlap or are under ${COALESCE_GAP} bytes apart`, () => {
    // A gap of COALESCE_GAP - 1 bytes (10 to 88) is merged; one of COALESCE_GAP bytes is not.
    expect(selectRanges(`bytes=0-9,${9 + COALESCE_GAP}-200`, 1000)).toEqual([{ start: 0, end: 200 }]);
    expect(selectRanges(`bytes=0-9,${10 + COALESCE_GAP}-200`, 1000)).toHaveLength(2);
    expect(selectRanges('bytes=100-199,0-149', 1000)).toEqual([{ start: 0, end: 199 }]);
  });
});

describe('ifRangeHolds', () => {
  const lastModified = 'Fri, 02 Jan 2026 03:04:05 GMT';
  const at = Date.parse(lastModified);

  it('a strong tag matches the same strong tag only', () => {
    expect(ifRangeHolds('"a"', { etag: '"a"', lastModified: undefined }, at)).toBe(true);
    expect(ifRangeHolds('"a"', { etag: 'W/"a"', lastModified: undefined }, at)).toBe(false);
    expect(ifRangeHolds('W/"a"', { etag: '"a"', lastModified: undefined }, at)).toBe(false);
    expect(ifRangeHolds('"a"', { etag: undefined, lastModified }, at + 5000)).toBe(false);
  });

  it('a date matches the exact Last-Modified once its second is over', () => {
    expect(ifRangeHolds(lastModified, { etag: '"a"', lastModified }, at + 1000)).toBe(true);
    // Within the second it names, the date is a weak validator (RFC 9110 §8.8.2.2).
    expect(ifRangeHolds(lastModified, { etag: '"a"', lastModified }, at + 999)).toBe(false);
    expect(ifRangeHolds('Fri, 02 Jan 2026 03:04:06 GMT', { etag: undefined, lastModified }, at + 5000)).toBe(false);
    expect(ifRangeHolds(lastModified, { etag: undefined, lastModified: undefined }, at + 5000)).toBe(false);
    expect(ifRangeHolds('not a date', { etag: undefined, lastModified }, at + 5000)).toBe(false);
  });
});
