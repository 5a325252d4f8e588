import { lastValueMemo } from '../../core/util/memo.js';
import type { ContentCoding } from './codings.js';

/**
 * `Accept-Encoding` negotiation (RFC 9110 §12.5.3) among the codings a server offers, in its
 * order of preference. Answers the coding to apply, or `undefined` for identity (no coding).
 *
 * Rules, in order:
 * - no header: do not compress. RFC 9110 allows any coding then, but clients that omit the header
 *   (scripts, plain `curl`, health checkers) often cannot decode one; nginx and Express's
 *   `compression` make the same choice.
 * - an empty header means "identity only" (RFC 9110 §12.5.3): do not compress.
 * - each offered coding weighs its explicit entry (`x-gzip` is gzip, RFC 9110 §8.4.1.3), else `*`;
 *   a weight of 0 refuses it (`br;q=0`, or `*;q=0` with no `br` entry). The heaviest coding wins;
 *   equal weights go to the earlier one in `offered` (the server's preference).
 * - if the client weighs `identity` above that coding (`gzip;q=0.5, identity`) it prefers no
 *   coding: do not compress. Equal weights go to the coding.
 * - nothing acceptable: identity, even when the client refused identity too (`identity;q=0,
 *   gzip;q=0`). RFC 9110 §12.5.3 then allows a 406, but the writer runs after the resource method
 *   (a POST has already created its resource), so the answer is sent unencoded, which §12.1 also
 *   allows ("disregard the header field").
 * - an element with a malformed weight is ignored (lenient, like a missing element).
 *
 * Repeated header lines arrive joined with `, ` (Node, `getHeader`), which is the same list.
 * This runs for every compressible response, and a client sends the same value every time: the
 * last answer is remembered (see {@link lastValueMemo}), so the common case is one string compare.
 *
 * @example
 * const negotiate = contentCodingNegotiator(['zstd', 'br', 'gzip']);
 * negotiate('gzip, deflate, br, zstd'); // 'zstd': equal weights, the server's preference
 * negotiate('gzip, br;q=0.9');          // 'gzip'
 * negotiate('br;q=0, *');               // 'zstd'
 */
export function contentCodingNegotiator(offered: readonly ContentCoding[]): (header: string | undefined) => ContentCoding | undefined {
  const codings = [...offered];
  const cached = lastValueMemo((header: string) => negotiate(header, codings), MAX_CACHED_LENGTH);
  return (header) => (header === undefined ? undefined : cached(header));
}

/**
 * Does the client accept gzip, when gzip is the only coding offered? {@link contentCodingNegotiator}
 * for `['gzip']`.
 *
 * @example
 * acceptsGzip('gzip, deflate, br'); // true
 * acceptsGzip('gzip;q=0, *');       // false: the explicit entry beats the wildcard
 */
export function acceptsGzip(header: string | undefined): boolean {
  return negotiateGzip(header) === 'gzip';
}

/** Real values are short ("gzip, deflate, br, zstd" is 23 characters). */
const MAX_CACHED_LENGTH = 256;
const negotiateGzip = contentCodingNegotiator(['gzip']);

/** {@link contentCodingNegotiator}'s answer for a present header, without the cache. */
function negotiate(header: string, offered: readonly ContentCoding[]): ContentCoding | undefined {
  let gzip = -1;
  let br = -1;
  let zstd = -1;
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
    else if (coding === 'br') br = q;
    else if (coding === 'zstd') zstd = q;
    else if (coding === 'identity') identity = q;
    else if (coding === '*') star = q;
  }
  let best: ContentCoding | undefined;
  let bestQ = 0;
  for (const coding of offered) {
    const explicit = coding === 'gzip' ? gzip : coding === 'br' ? br : zstd;
    const q = explicit >= 0 ? explicit : star;
    if (q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  return best !== undefined && bestQ >= identity ? best : undefined;
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
