import { lastValueMemo } from '../../core/util/memo.js';

/**
 * `Accept-Encoding` negotiation for one coding, gzip (RFC 9110 §12.5.3).
 *
 * Rules, in order:
 * - no header: do not compress. RFC 9110 allows any coding then, but clients that omit the header
 *   (scripts, plain `curl`, health checkers) often cannot decode gzip; nginx and Express's
 *   `compression` make the same choice.
 * - an empty header means "identity only" (RFC 9110 §12.5.3): do not compress.
 * - an explicit `gzip` (or its alias `x-gzip`, RFC 9110 §8.4.1.3) beats `*`; a weight of 0
 *   refuses it (`gzip;q=0`, or `*;q=0` with no `gzip` entry).
 * - if the client weighs `identity` above gzip (`gzip;q=0.5, identity`) it prefers no coding:
 *   do not compress. Equal weights go to gzip (the server's preference).
 * - an element with a malformed weight is ignored (lenient, like a missing element).
 *
 * Repeated header lines arrive joined with `, ` (Node, `getHeader`), which is the same list.
 * This runs for every compressible response, and a client sends the same value every time: the
 * last answer is remembered (see {@link lastValueMemo}), so the common case is one string compare.
 *
 * @example
 * acceptsGzip('gzip, deflate, br'); // true
 * acceptsGzip('gzip;q=0, *');       // false: the explicit entry beats the wildcard
 */
export function acceptsGzip(header: string | undefined): boolean {
  return header === undefined ? false : cachedAcceptsGzip(header);
}

/** Real values are short ("gzip, deflate, br, zstd" is 23 characters). */
const MAX_CACHED_LENGTH = 256;
const cachedAcceptsGzip = lastValueMemo(parseAcceptsGzip, MAX_CACHED_LENGTH);

/** {@link acceptsGzip} for a present header, without the cache. */
function parseAcceptsGzip(header: string): boolean {
  let gzip = -1;
  let identity = -1;
  let star = -1;
  let start = 0;
  // Hand-rolled split: this runs for every compressible response, and real headers are short.
  while (start <= header.length) {
    let end = header.indexOf(',', start);
    if (end < 0) end = header.length;
    const element = header.slice(start, end);
    start = end + 1;
    const semi = element.indexOf(';');
    const coding = (semi < 0 ? element : element.slice(0, semi)).trim().toLowerCase();
    if (coding === '') continue;
    const q = semi < 0 ? 1 : weightOf(element.slice(semi + 1));
    if (q < 0) continue;
    if (coding === 'gzip' || coding === 'x-gzip') gzip = Math.max(gzip, q);
    else if (coding === 'identity') identity = q;
    else if (coding === '*') star = q;
  }
  const q = gzip >= 0 ? gzip : star;
  if (q <= 0) return false;
  return q >= identity;
}

// RFC 9110 §12.4.2 qvalue: 0, 0.xxx, 1, 1.000.
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** The `q` weight among `;`-separated parameters: 1 when absent, -1 when malformed. */
function weightOf(params: string): number {
  for (const param of params.split(';')) {
    const p = param.trim();
    if (p.length < 2 || (p.charCodeAt(0) | 0x20) !== 0x71 /* q */ || p.charCodeAt(1) !== 0x3d /* = */) continue;
    const value = p.slice(2);
    return QVALUE.test(value) ? Number(value) : -1;
  }
  return 1;
}
