/**
 * The response step for a rangeable entity (RFC 9110 §14), reached from send.ts only when the body
 * is still the {@link RangeableBody} its writer gave (no content coding replaced it): every other
 * response skips it. It decides between the whole representation (200), one range (206 with
 * `Content-Range`), several (206 `multipart/byteranges`, §14.6) and 416, then opens the entity and
 * hands the chosen bytes to the sender. The rules are in docs/ranges.md.
 */
import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { finished, Readable } from 'node:stream';
import type { Body } from '../context/contracts.js';
import { WebApplicationError } from '../http/errors.js';
import type { OutgoingHeaders, Response } from '../http/response.js';
import type { Exchange } from '../internal/exchange.js';
import { contentRange, ifRangeHolds, selectRanges, type ByteRange } from '../ranges/byte-ranges.js';
import type { RangeableBody } from '../ranges/rangeable-body.js';
import type { ByteReader, RangeableEntity } from '../ranges/rangeable-entity.js';
import { isThenable, type Step } from '../util/thenable.js';

/** Sends the final body (send.ts, past its headers prelude). */
export type SendBody = (ex: Exchange, response: Response, body: Body | undefined) => Step;

/**
 * Serves `body.entity` for `response`: ranges only for a GET answered 200 by the method (not a
 * mapped error), and announced with `Accept-Ranges: bytes` on GET and HEAD. A HEAD never opens
 * the entity. Throws the 416 (`PIPE_RANGE_NOT_SATISFIABLE`, `Content-Range: bytes *\/length`)
 * for the error path to answer with the application's error body.
 */
export function sendRangeable(ex: Exchange, response: Response, body: RangeableBody, sendBody: SendBody): Step {
  const entity = body.entity;
  const length = entity.length;
  const headers = response.headers;
  // The writer's lazy stream is replaced by what is chosen here; it never opened anything.
  body.destroy();
  let ranges: readonly ByteRange[] | undefined;
  const method = ex.method;
  if (response.status === 200 && !ex.mapped && (method === 'GET' || method === 'HEAD')) {
    headers['accept-ranges'] = 'bytes';
    const range = method === 'GET' ? ex.headers.range : undefined;
    if (range !== undefined && ifRange(ex, headers)) {
      const selection = selectRanges(range, length);
      if (selection === 'unsatisfiable') {
        throw new WebApplicationError(416, `None of the ranges asked for is within the ${length} bytes of the representation`, {
          code: 'PIPE_RANGE_NOT_SATISFIABLE',
          headers: { 'content-range': `bytes */${length}` },
        });
      }
      if (selection !== 'ignore') ranges = selection;
    }
  }
  if (ranges === undefined) headers['content-length'] = length;
  else if (ranges.length === 1) {
    response.status = 206;
    headers['content-range'] = contentRange(ranges[0]!, length);
    headers['content-length'] = ranges[0]!.end - ranges[0]!.start + 1;
  }
  const multipart = ranges !== undefined && ranges.length > 1 ? byteranges(response, ranges, length) : undefined;
  if (ex.isHead) return sendBody(ex, response, undefined);
  const reader = entity.open();
  if (isThenable(reader)) return Promise.resolve(reader).then((r) => sendBody(ex, response, bodyOf(r, entity, ranges, multipart)));
  return sendBody(ex, response, bodyOf(reader, entity, ranges, multipart));
}

/** Does the request's `If-Range` (if any) let the Range apply (RFC 9110 §13.1.5)? */
function ifRange(ex: Exchange, headers: OutgoingHeaders): boolean {
  const condition = ex.getHeader('if-range');
  if (condition === undefined) return true;
  const etag = headers.etag;
  const lastModified = headers['last-modified'];
  return ifRangeHolds(
    condition,
    {
      etag: typeof etag === 'string' ? etag : undefined,
      lastModified: typeof lastModified === 'string' ? lastModified : undefined,
    },
    Date.now(),
  );
}

/** The parts of a `multipart/byteranges` answer (RFC 9110 §14.6): each part's head, and the closing delimiter. */
interface Multipart {
  readonly heads: readonly string[];
  readonly tail: string;
}

/**
 * Sets the 206 `multipart/byteranges` status and headers for `ranges` and returns the part heads:
 * each part carries the representation's Content-Type and its own Content-Range. The boundary is
 * 96 random bits, which no content is expected to contain (RFC 2046 §5.1.1).
 */
function byteranges(response: Response, ranges: readonly ByteRange[], length: number): Multipart {
  const headers = response.headers;
  const boundary = randomBytes(12).toString('hex');
  const type = headers['content-type'];
  const typeLine = type === undefined ? '' : `Content-Type: ${String(type)}\r\n`;
  const heads = ranges.map(
    (r, i) => `${i === 0 ? '' : '\r\n'}--${boundary}\r\n${typeLine}Content-Range: ${contentRange(r, length)}\r\n\r\n`,
  );
  const tail = `\r\n--${boundary}--\r\n`;
  let total = Buffer.byteLength(tail);
  for (let i = 0; i < ranges.length; i++) total += Buffer.byteLength(heads[i]!) + ranges[i]!.end - ranges[i]!.start + 1;
  response.status = 206;
  headers['content-type'] = `multipart/byteranges; boundary=${boundary}`;
  headers['content-length'] = total;
  return { heads, tail };
}

/** The bytes to send from an opened reader: the whole, one range, or the multipart stream; the reader is closed after them. */
function bodyOf(
  reader: ByteReader,
  entity: RangeableEntity,
  ranges: readonly ByteRange[] | undefined,
  multipart: Multipart | undefined,
): Body {
  if (multipart !== undefined) {
    const stream = Readable.from(parts(reader, ranges!, multipart), { objectMode: false });
    stream.once('close', () => reader.close());
    return stream;
  }
  const start = ranges === undefined ? 0 : ranges[0]!.start;
  const end = ranges === undefined ? entity.length : ranges[0]!.end + 1;
  if (start === end) {
    reader.close();
    return new Uint8Array(0);
  }
  const slice = reader.slice(start, end);
  if (slice instanceof Uint8Array) reader.close();
  // On end, error or a client gone: a file's slice is read with autoClose off (the handle is the
  // reader's), so it never emits 'close' after its end; Node 26 throws when a FileHandle is left
  // to the garbage collector.
  else finished(slice, () => reader.close());
  return slice;
}

/** The multipart body, part by part; each slice is read only when the previous one was sent. */
async function* parts(reader: ByteReader, ranges: readonly ByteRange[], multipart: Multipart): AsyncGenerator<Uint8Array | string> {
  for (let i = 0; i < ranges.length; i++) {
    yield multipart.heads[i]!;
    const r = ranges[i]!;
    const slice = reader.slice(r.start, r.end + 1);
    if (slice instanceof Uint8Array) yield slice;
    else yield* slice as AsyncIterable<Uint8Array>;
  }
  yield multipart.tail;
}
