import type { IncomingMessage, ServerResponse } from 'node:http';
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ContainerRequestContext } from '../../../src/core/context/request-context.js';
import { Response } from '../../../src/core/http/response.js';
import { contentCodingNegotiator } from '../../../src/features/content-coding/accept-encoding.js';
import {
  AVAILABLE_CONTENT_CODINGS,
  ContentCodingTagFilter,
  ContentEncodingFeature,
  ContentEncodingReaderInterceptor,
  ContentEncodingWriterInterceptor,
  ZSTD_AVAILABLE,
  type ContentCoding,
} from '../../../src/features/content-coding/index.js';

describe('zstd detection', () => {
  it('follows node:zlib, not the version number', () => {
    expect(ZSTD_AVAILABLE).toBe(typeof Reflect.get(zlib, 'createZstdCompress') === 'function');
    expect(AVAILABLE_CONTENT_CODINGS).toEqual(ZSTD_AVAILABLE ? ['zstd', 'br', 'gzip'] : ['br', 'gzip']);
  });
});

describe('contentCodingNegotiator (RFC 9110 §12.5.3)', () => {
  const all = contentCodingNegotiator(['zstd', 'br', 'gzip']);
  const brFirst = contentCodingNegotiator(['br', 'zstd', 'gzip']);

  it.each<[string | undefined, ContentCoding | undefined, ContentCoding | undefined]>([
    // [header, preference zstd > br > gzip, preference br > zstd > gzip]
    [undefined, undefined, undefined],
    ['', undefined, undefined],
    ['gzip, deflate, br, zstd', 'zstd', 'br'],
    ['gzip, deflate, br', 'br', 'br'],
    ['*', 'zstd', 'br'],
    ['x-gzip', 'gzip', 'gzip'],
    ['br;q=0.5, gzip;q=0.6', 'gzip', 'gzip'],
    ['zstd;q=0.5, br;q=0.5, gzip;q=0.4', 'zstd', 'br'],
    ['br;q=0, *', 'zstd', 'zstd'],
    ['*;q=0.2, br;q=0.1', 'zstd', 'zstd'],
    ['zstd;q=0, br;q=0, *', 'gzip', 'gzip'],
    ['*;q=0', undefined, undefined],
    ['identity', undefined, undefined],
    ['br;q=0.5, identity', undefined, undefined],
    ['br;q=0.5, identity;q=0.5', 'br', 'br'],
    // nothing acceptable and identity refused: identity all the same (no 406 after the method ran)
    ['identity;q=0, deflate', undefined, undefined],
    ['br;q=2', undefined, undefined],
    ['br;q=abc, gzip', 'gzip', 'gzip'],
  ])('%j -> %s / %s', (header, expected, expectedBrFirst) => {
    expect(all(header)).toBe(expected);
    expect(brFirst(header)).toBe(expectedBrFirst);
  });

  it('offers only the listed codings', () => {
    const gzipOnly = contentCodingNegotiator(['gzip']);
    expect(gzipOnly('br, zstd')).toBeUndefined();
    expect(gzipOnly('br, zstd, *;q=0.1')).toBe('gzip');
  });

  it('remembers the last header per negotiator without mixing offers', () => {
    expect(all('br, zstd')).toBe('zstd');
    expect(brFirst('br, zstd')).toBe('br');
    expect(all('br, zstd')).toBe('zstd');
  });
});

describe('options, checked at start-up', () => {
  it.each<[string, () => unknown, RegExp]>([
    ['an unknown coding', () => new ContentEncodingWriterInterceptor({ codings: ['deflate' as ContentCoding] }), /codings has "deflate"/],
    ['no coding', () => new ContentEncodingWriterInterceptor({ codings: [] }), /codings is empty/],
    ['a repeated coding', () => new ContentEncodingWriterInterceptor({ codings: ['br', 'br'] }), /br twice/],
    [
      'a br level above 11',
      () => new ContentEncodingFeature({ levels: { br: 12 } }),
      /ContentEncodingWriterInterceptor: levels\.br must be an integer from 0 to 11, got 12/,
    ],
    ['a gzip level below -1', () => new ContentEncodingFeature({ levels: { gzip: -2 } }), /levels\.gzip .* -1 to 9/],
    ['a zstd level of 20', () => new ContentEncodingFeature({ levels: { zstd: 20 } }), /levels\.zstd .* 1 to 19/],
    ['a fractional level', () => new ContentEncodingFeature({ levels: { br: 4.5 } }), /levels\.br/],
    ['an unknown level key', () => new ContentEncodingFeature({ levels: { deflate: 1 } as never }), /levels has "deflate"/],
    ['a negative threshold', () => new ContentEncodingFeature({ threshold: -1 }), /threshold/],
    [
      'a bad maxDecodedBytes',
      () => new ContentEncodingReaderInterceptor({ maxDecodedBytes: 1.5 }),
      /ContentEncodingReaderInterceptor: maxDecodedBytes/,
    ],
  ])('%s throws a RangeError naming the class and the option', (_, make, message) => {
    expect(make).toThrow(RangeError);
    expect(make).toThrow(message);
  });

  it.skipIf(ZSTD_AVAILABLE)('zstd on a Node without it throws, naming the fix', () => {
    expect(() => new ContentEncodingFeature({ codings: ['zstd', 'gzip'] })).toThrow(/codings has zstd, but this Node .* remove it/);
    expect(() => new ContentEncodingReaderInterceptor({ codings: ['zstd'] })).toThrow(/no zstd in node:zlib/);
  });

  it.skipIf(!ZSTD_AVAILABLE)('zstd is accepted where Node has it', () => {
    expect(() => new ContentEncodingFeature({ codings: ['zstd'], levels: { zstd: 19 } })).not.toThrow();
  });
});

describe('ContentCodingTagFilter', () => {
  const request = (headers: Record<string, string>): ContainerRequestContext =>
    new ContainerRequestContext({ headers } as unknown as IncomingMessage, {} as ServerResponse, 'GET', '/x', '', false);

  it('removes any offered coding suffix from If-Match and If-None-Match, and only those', () => {
    const ctx = request({ 'if-match': '"a-br", "b-gzip", "c-zstd", "d-deflate"', 'if-none-match': 'W/"e-br", "f-brotli"' });
    new ContentCodingTagFilter({ codings: ['zstd', 'br', 'gzip'] }).filterRequest(ctx);
    expect(ctx.getHeader('if-match')).toBe('"a", "b", "c", "d-deflate"');
    expect(ctx.getHeader('if-none-match')).toBe('W/"e", "f-brotli"');
    const brOnly = request({ 'if-match': '"a-br", "b-gzip"' });
    new ContentCodingTagFilter({ codings: ['br'] }).filterRequest(brOnly);
    expect(brOnly.getHeader('if-match')).toBe('"a", "b-gzip"');
  });

  it('gives an entity-less 304 the tag of the coded variant the client named', () => {
    const filter = new ContentCodingTagFilter({ codings: ['zstd', 'br', 'gzip'] });
    for (const coding of ['br', 'gzip', 'zstd']) {
      const r = new Response(304, undefined, { etag: '"v1"' });
      filter.filterResponse(request({ 'if-none-match': `"v1-${coding}"` }), r);
      expect([r.headers.etag, r.headers.vary]).toEqual([`"v1-${coding}"`, 'Accept-Encoding']);
    }
  });
});
