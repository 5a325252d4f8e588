/**
 * Asking for part of a representation (RFC 9110 §14.1.2 `Range`, §13.1.5 `If-Range`): the
 * per-call `range` option of a typed client and `InvocationBuilder.range`. The answer is a 206
 * whose `ClientResponse.contentRange` says which bytes came, or a 200 with the whole
 * representation when the server ignored the range (or `ifRange` no longer matched).
 */
import type { ClientHeaders } from './request-context.js';

/**
 * A byte range to ask for: `{ start, end }` (both inclusive, `end` omitted for "to the end"), or
 * `{ suffix }` for the last `suffix` bytes. `ifRange` (an entity tag as sent in `ETag`, or the
 * `Last-Modified` date) makes the range conditional: if the representation changed, the server
 * sends all of it (200) instead of a piece of the new one.
 * @example { start: 0, end: 1023 }   { start: 4096 }   { suffix: 500, ifRange: '"3e8-1f2e"' }
 */
export type ByteRangeRequest = ({ readonly start: number; readonly end?: number } | { readonly suffix: number }) & {
  readonly ifRange?: string | Date;
};

const isOffset = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

/**
 * Sets `Range` (and `If-Range`) in `headers` for `range`.
 * @throws TypeError naming the bad field (a negative or fractional offset, `end` before `start`,
 *   an `ifRange` that is neither a date nor a string).
 */
export function setRangeHeaders(headers: ClientHeaders, range: ByteRangeRequest): void {
  if (typeof range !== 'object' || range === null) throw new TypeError('range must be { start, end? } or { suffix }');
  if ('suffix' in range) {
    if (!isOffset(range.suffix) || range.suffix === 0)
      throw new TypeError(`range.suffix must be a positive integer, got ${String(range.suffix)}`);
    headers.range = `bytes=-${range.suffix}`;
  } else {
    const { start, end } = range;
    if (!isOffset(start)) throw new TypeError(`range.start must be a non-negative integer, got ${String(start)}`);
    if (end !== undefined && (!isOffset(end) || end < start)) {
      throw new TypeError(`range.end must be an integer at least range.start (${start}), got ${String(end)}`);
    }
    headers.range = `bytes=${start}-${end ?? ''}`;
  }
  const ifRange = range.ifRange;
  if (ifRange === undefined) return;
  if (ifRange instanceof Date && !Number.isNaN(ifRange.getTime())) headers['if-range'] = ifRange.toUTCString();
  else if (typeof ifRange === 'string' && ifRange !== '') headers['if-range'] = ifRange;
  else throw new TypeError('range.ifRange must be an entity tag (as in ETag) or a valid Date');
}
