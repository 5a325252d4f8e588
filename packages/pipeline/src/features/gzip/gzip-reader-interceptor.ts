import { finished, pipeline, Transform, type Readable, type TransformCallback } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { BadRequestError, NotSupportedError } from '../../core/errors.js';
import { Priorities } from '../../core/priorities.js';
import type { ReaderInterceptor, ReaderInterceptorContext } from '../../core/providers.js';
import { Priority } from '../../decorators/provider.js';
import { tooLarge } from '../../providers/body-errors.js';
import { truncate } from '../../core/params.js';

const ignore = (): void => {};

/** Stable `code`s of the errors raised by the gzip reader interceptor (413 uses `PIPE_BODY_TOO_LARGE`). */
export const GzipErrorCode = {
  /** 400: the body is not valid gzip (bad header, bad checksum, truncated). */
  Corrupt: 'PIPE_GZIP_CORRUPT',
  /** 415: a `Content-Encoding` other than gzip / x-gzip / identity (RFC 9110 §15.5.16). */
  UnsupportedEncoding: 'PIPE_UNSUPPORTED_CONTENT_ENCODING',
} as const;

/** Options of {@link GzipReaderInterceptor}. */
export interface GzipReaderOptions {
  /** Most decoded bytes accepted before 413; default: the reader's limit (`ctx.limit`). */
  maxDecodedBytes?: number;
}

/**
 * Decodes gzip request bodies (JAX-RS `ReaderInterceptor` at `ENTITY_CODER`): with
 * `Content-Encoding: gzip` (or `x-gzip`), the entity stream is replaced by its gunzipped form
 * and `Content-Encoding` / `Content-Length` are dropped from the headers the reader sees (the
 * declared length is the encoded one). Decoded bytes are counted, so a gzip bomb stops with 413
 * at the limit instead of inflating (HARDENING.md "Bodies"); encoded bytes are capped at the
 * original `ctx.limit` too (a stream of empty gzip members decodes to nothing, forever).
 *
 * Corrupt or truncated gzip: 400. Any other coding: 415 with `Accept-Encoding: gzip`, as RFC 9110
 * §15.5.16 asks, so the client learns what it may send.
 *
 * @example
 * app.register(new GzipReaderInterceptor({ maxDecodedBytes: 4 * 1024 * 1024 }));
 */
@Priority(Priorities.ENTITY_CODER)
export class GzipReaderInterceptor implements ReaderInterceptor {
  private readonly maxDecodedBytes: number | undefined;

  constructor(options: GzipReaderOptions = {}) {
    const max = options.maxDecodedBytes;
    if (max !== undefined && (!Number.isSafeInteger(max) || max < 0)) {
      throw new RangeError(`maxDecodedBytes must be a non-negative integer, got ${max}`);
    }
    this.maxDecodedBytes = max;
  }

  aroundReadFrom(ctx: ReaderInterceptorContext): unknown {
    if (!isGzip(ctx.headers['content-encoding'])) return ctx.proceed();
    const decodedLimit = this.maxDecodedBytes ?? ctx.limit;
    ctx.input = gunzipBody(ctx.input, ctx.limit, decodedLimit);
    // The reader counts what it reads, i.e. decoded bytes: give it the decoded limit.
    ctx.limit = decodedLimit;
    delete ctx.headers['content-encoding'];
    delete ctx.headers['content-length'];
    return ctx.proceed();
  }
}

/**
 * true for gzip / x-gzip (RFC 9110 §8.4.1.3), false for none or identity; throws 415 for any
 * other coding, including stacked ones (`deflate, gzip`), which we do not decode.
 */
function isGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  const value = header.trim().toLowerCase();
  if (value === 'gzip' || value === 'x-gzip') return true;
  if (value === '' || value === 'identity') return false;
  const codings = value.split(',').map((c) => c.trim()).filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return false;
  if (codings.length === 1 && (codings[0] === 'gzip' || codings[0] === 'x-gzip')) return true;
  // Bound the echoed value: the header is client-controlled.
  const shown = truncate(header);
  throw new NotSupportedError(`Content-Encoding ${shown} is not supported`, {
    code: GzipErrorCode.UnsupportedEncoding,
    headers: { 'accept-encoding': 'gzip' },
  });
}

/**
 * `input` gunzipped, failing with 413 once more than `maxDecodedBytes` come out (or more than
 * `maxEncodedBytes` go in) and with 400 on corrupt data.
 *
 * `input` is piped, not passed to `stream.pipeline()`: pipeline would destroy it on error, and
 * destroying a half-read `IncomingMessage` destroys its socket, so the 413/400 could never be
 * sent. On failure `input` is unpiped and left paused (like `readBody`, it belongs to the
 * caller); the decoder stages are destroyed, so inflating stops at once.
 */
export function gunzipBody(input: Readable, maxEncodedBytes: number, maxDecodedBytes: number): Readable {
  const encoded = new ByteLimit(maxEncodedBytes);
  const decoded = new ByteLimit(maxDecodedBytes);
  pipeline(encoded, createGunzip(), decoded, ignore);
  // A client reset or abort on `input` must reach whoever reads `decoded`.
  const stopWatching = finished(input, { writable: false }, (err) => {
    if (err !== undefined && err !== null) decoded.destroy(err);
  });
  decoded.once('close', () => {
    stopWatching();
    input.unpipe(encoded);
    // Our error listener is gone; a late error on a stream nobody listens to must not crash.
    input.on('error', ignore);
  });
  input.pipe(encoded);
  return decoded;
}

/** Passes bytes through, failing with 413 past `limit`; turns zlib errors into 400. */
class ByteLimit extends Transform {
  private seen: number;
  private readonly limit: number;

  constructor(limit: number) {
    super();
    this.seen = 0;
    this.limit = limit;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.limit) callback(tooLarge(this.limit));
    else callback(null, chunk);
  }

  // pipeline() destroys every stage with the first error; this is where the reader-facing
  // stage gets to translate zlib's Z_DATA_ERROR / Z_BUF_ERROR ("unexpected end of file").
  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    const code = (err as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && code.startsWith('Z_')) {
      callback(new BadRequestError('The request body is not valid gzip', { code: GzipErrorCode.Corrupt, cause: err }));
    } else {
      callback(err);
    }
  }
}
