import { pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { BadRequestError, NotSupportedError } from '../../core/http/errors.js';
import { truncate } from '../../core/util/type-name.js';
import { Priorities } from '../../core/util/priorities.js';
import type { ReaderInterceptor, ReaderInterceptorContext } from '../../core/context/contracts.js';
import { declaredLength } from '../../core/internal/readers.js';
import { Priority } from '../../decorators/provider.js';
import { tooLarge } from '../../providers/body-errors.js';
import { BodyLimitGuard, guardStream } from '../../providers/stream.js';

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
  /**
   * Most decoded bytes accepted before 413; default: the reader's limit (`ctx.limit`). The
   * compressed bytes are always capped at `ctx.limit` (`limits.bodyLimit`), whatever this is.
   */
  maxDecodedBytes?: number;
}

/**
 * Decodes gzip request bodies (JAX-RS `ReaderInterceptor` at `ENTITY_CODER`): with
 * `Content-Encoding: gzip` (or `x-gzip`), the entity stream is replaced by its gunzipped form
 * and `Content-Encoding` / `Content-Length` are dropped from the headers the reader sees (the
 * declared length is the encoded one). Decoded bytes are counted, so a gzip bomb stops with 413
 * at the limit instead of inflating (Fastify's body-limit contract); encoded bytes are capped at the
 * original `ctx.limit` too (a stream of empty gzip members decodes to nothing, forever), with the
 * contract of a raw body: a declared `Content-Length` above it is 413 before any byte is read,
 * and a byte count different from it is 400.
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
    // Throws the 413 for an oversized declared length before ctx is touched.
    ctx.input = gunzipBody(ctx.input, ctx.limit, decodedLimit, declaredLength(ctx));
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
  const codings = value
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '' && c !== 'identity');
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
 * The encoded side is core's {@link guardStream}, so a compressed body gets exactly the checks of
 * a raw one: pass `contentLength` (the declared length of `input`, only while `input` is the raw
 * request) and a value above `maxEncodedBytes` throws 413 here, before any byte is read; a byte
 * count that differs from it fails the stream with 400. The decoded side is a
 * {@link BodyLimitGuard} too.
 *
 * `input` is piped, not passed to `stream.pipeline()`: pipeline would destroy it on error, and
 * destroying a half-read `IncomingMessage` destroys its socket, so the 413/400 could never be
 * sent. On failure `input` is unpiped and left paused (like `readBody`, it belongs to the
 * caller); the decoder stages are destroyed, so inflating stops at once.
 *
 * @example
 * const cl = req.headers['content-length'];
 * const body = gunzipBody(req, 1 << 20, 4 << 20, cl === undefined ? undefined : Number(cl));
 */
export function gunzipBody(input: Readable, maxEncodedBytes: number, maxDecodedBytes: number, contentLength?: number): Readable {
  if (contentLength !== undefined && contentLength > maxEncodedBytes) throw tooLarge(maxEncodedBytes);
  // guardStream also turns a client reset or abort on `input` into an error of the stage chain,
  // so it reaches whoever reads the decoded stream.
  const encoded = guardStream(input, maxEncodedBytes, contentLength);
  const decoded = new DecodedLimit(maxDecodedBytes);
  pipeline(encoded, createGunzip(), decoded, ignore);
  return decoded;
}

/** The decoded side's {@link BodyLimitGuard}, which also turns zlib's errors into 400. */
class DecodedLimit extends BodyLimitGuard {
  constructor(limit: number) {
    super(limit, undefined);
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
