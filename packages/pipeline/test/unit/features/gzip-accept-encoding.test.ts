import { describe, expect, it } from 'vitest';
import { acceptsGzip } from '../../../src/features/gzip/accept-encoding.js';

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
  ])('%j -> %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});
