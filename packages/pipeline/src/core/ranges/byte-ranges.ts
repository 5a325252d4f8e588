/**
 * Byte ranges (RFC 9110 §14): the `Range` header read against a representation's length, the
 * `If-Range` condition (§13.1.5), and the `Content-Range` field (§14.4) in both directions. Pure
 * functions; the response step that uses them is core/stages/send-ranges.ts. The rules chosen
 * where the RFC leaves a choice (coalescing, how many ranges) are in docs/ranges.md.
 */
import { EntityTag } from '../http/entity-tag.js';

/** One selected range of bytes, `end` inclusive (as `Content-Range` writes it). */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/**
 * What a `Range` header asks of a representation: `'ignore'` (send it whole, 200: the header is
 * malformed, names another unit, or asks for too much), `'unsatisfiable'` (416), or the ranges to
 * send (206), coalesced and in the order the client listed them.
 */
export type RangeSelection = 'ignore' | 'unsatisfiable' | readonly ByteRange[];

/**
 * Most range-specs read from one header; more is a broken client or a denial-of-service attempt
 * (RFC 9110 §14.2), answered with the whole representation.
 */
export const MAX_RANGES = 100;

/**
 * Two ranges closer than this many bytes are sent as one part: a part's own headers (boundary,
 * Content-Type, Content-Range) cost about as much, and fewer parts is what §14.2 asks for.
 */
export const COALESCE_GAP = 80;

const INT_RANGE = /^([0-9]+)-([0-9]*)$/;
const SUFFIX_RANGE = /^-([0-9]+)$/;
const UNIT = /^bytes=/i;

/**
 * Reads `header` (a `Range` field value) against a representation of `length` bytes (RFC 9110
 * §14.1.1, §14.2). Malformed input is `'ignore'`, never an error: a server may ignore a Range it
 * does not understand, and then answers 200 with the whole representation.
 * - `500-`: from byte 500 to the end; `-500`: the last 500 bytes (all of them when shorter);
 *   `500-999`: bytes 500 to 999, the end cut at the last byte.
 * - Satisfiable when at least one range starts before `length` or is a non-empty suffix; else
 *   `'unsatisfiable'`. A zero-length representation has no byte to select: a non-empty suffix
 *   range is then `'ignore'` (200, empty), any other range `'unsatisfiable'`.
 * - Each range is merged into the previous one when they overlap or lie less than
 *   {@link COALESCE_GAP} bytes apart; if the parts left still add up to more than the whole
 *   (ranges overlapping out of order), the whole is cheaper: `'ignore'`.
 * @example
 * selectRanges('bytes=0-99', 1000);        // [{ start: 0, end: 99 }]
 * selectRanges('bytes=-100', 1000);        // [{ start: 900, end: 999 }]
 * selectRanges('bytes=2000-', 1000);       // 'unsatisfiable'
 * selectRanges('lines=1-2', 1000);         // 'ignore'
 */
export function selectRanges(header: string, length: number): RangeSelection {
  if (!UNIT.test(header)) return 'ignore';
  const specs = header.slice(6).split(',');
  const selected: ByteRange[] = [];
  let count = 0;
  let emptySuffix = false;
  for (const raw of specs) {
    const spec = raw.trim();
    // Empty list elements are allowed and ignored (RFC 9110 §5.6.1).
    if (spec === '') continue;
    if (++count > MAX_RANGES) return 'ignore';
    const int = INT_RANGE.exec(spec);
    if (int !== null) {
      const first = Number(int[1]);
      const last = int[2] === '' ? undefined : Number(int[2]);
      // An int-range whose last-pos is below its first-pos is invalid: so is the whole header.
      if (last !== undefined && last < first) return 'ignore';
      if (first < length) selected.push({ start: first, end: last === undefined || last >= length ? length - 1 : last });
      continue;
    }
    const suffix = SUFFIX_RANGE.exec(spec);
    if (suffix === null) return 'ignore';
    const n = Number(suffix[1]);
    if (n === 0) continue;
    if (length === 0) emptySuffix = true;
    else selected.push({ start: n >= length ? 0 : length - n, end: length - 1 });
  }
  if (count === 0) return 'ignore';
  if (selected.length === 0) return emptySuffix ? 'ignore' : 'unsatisfiable';
  return coalesce(selected, length);
}

/** Merges neighbours (see {@link selectRanges}); `'ignore'` when the parts outweigh the whole. */
function coalesce(ranges: readonly ByteRange[], length: number): RangeSelection {
  const parts: ByteRange[] = [];
  let total = 0;
  let previous: ByteRange | undefined;
  for (const r of ranges) {
    if (previous !== undefined && r.start <= previous.end + COALESCE_GAP && r.end + COALESCE_GAP >= previous.start) {
      total -= previous.end - previous.start + 1;
      previous = { start: Math.min(previous.start, r.start), end: Math.max(previous.end, r.end) };
      parts[parts.length - 1] = previous;
    } else {
      previous = r;
      parts.push(r);
    }
    total += previous.end - previous.start + 1;
  }
  return total > length ? 'ignore' : parts;
}

/** The current validators of the selected representation, as the response's headers state them. */
export interface CurrentValidators {
  /** The response's `ETag` value. */
  readonly etag: string | undefined;
  /** The response's `Last-Modified` value. */
  readonly lastModified: string | undefined;
}

/**
 * Does the `If-Range` condition hold (RFC 9110 §13.1.5)? Then the Range is served; otherwise the
 * whole representation is (200).
 * - An entity tag (the value starts with `"` or `W/"`) holds only by strong comparison with the
 *   current `ETag`: a weak tag, on either side, never does.
 * - An HTTP-date holds only when it is exactly the current `Last-Modified` and that date can be
 *   taken as a strong validator (§8.8.2.2): the second it names is over at `now`, so a later change
 *   carries a later date (the rule Apache httpd applies; a change within that same second, before
 *   the client's copy, cannot be seen in a one-second date: use entity tags where that matters).
 * - Anything else (malformed, no validator to compare with) does not hold.
 * @param now the request's time in ms since the epoch.
 */
export function ifRangeHolds(header: string, current: CurrentValidators, now: number): boolean {
  const value = header.trim();
  if (value.startsWith('"') || value.startsWith('W/"')) {
    const tag = EntityTag.parse(value);
    const etag = current.etag === undefined ? undefined : EntityTag.parse(current.etag);
    return tag !== undefined && etag !== undefined && tag.strongEquals(etag);
  }
  if (current.lastModified === undefined) return false;
  const date = Date.parse(value);
  const lastModified = Date.parse(current.lastModified);
  if (Number.isNaN(date) || Number.isNaN(lastModified)) return false;
  const second = Math.floor(lastModified / 1000) * 1000;
  return Math.floor(date / 1000) * 1000 === second && now >= second + 1000;
}

/**
 * A `Content-Range` field (RFC 9110 §14.4): a range of a representation of `length` bytes, or,
 * on a 416, only the length (`bytes *\/1000`: `start` and `end` undefined). `length` is
 * undefined when the server does not know it (`bytes 0-99/*`).
 */
export interface ContentRange {
  readonly start: number | undefined;
  readonly end: number | undefined;
  readonly length: number | undefined;
}

const CONTENT_RANGE = /^bytes (?:([0-9]+)-([0-9]+)|\*)\/([0-9]+|\*)$/i;

/**
 * Parses a `Content-Range` value; undefined when it is not a valid byte range (another unit,
 * `end` before `start`, `end` past the length, or `*` for both parts).
 * @example parseContentRange('bytes 0-99/1000'); // { start: 0, end: 99, length: 1000 }
 */
export function parseContentRange(value: string): ContentRange | undefined {
  const m = CONTENT_RANGE.exec(value.trim());
  if (m === null) return undefined;
  const length = m[3] === '*' ? undefined : Number(m[3]);
  if (m[1] === undefined) return length === undefined ? undefined : { start: undefined, end: undefined, length };
  const start = Number(m[1]);
  const end = Number(m[2]);
  if (end < start || (length !== undefined && end >= length)) return undefined;
  return { start, end, length };
}

/** The `Content-Range` value of `range` of a representation of `length` bytes: `bytes 0-99/1000`. */
export function contentRange(range: ByteRange, length: number): string {
  return `bytes ${range.start}-${range.end}/${length}`;
}
