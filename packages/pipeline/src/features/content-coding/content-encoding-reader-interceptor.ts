import { declareExclusiveRole } from '../../core/internal/exclusive-roles.js';
import { pipeline, type Readable } from 'node:stream';
import { BadRequestError, NotSupportedError } from '../../core/http/errors.js';
import { truncate } from '../../core/util/type-name.js';
import { Priorities } from '../../core/util/priorities.js';
import type { ReaderInterceptor, ReaderInterceptorContext } from '../../core/context/contracts.js';
import { declaredLength } from '../../core/internal/readers.js';
import { Priority } from '../../decorators/provider.js';
import { tooLarge } from '../../providers/body-errors.js';
import { BodyLimitGuard, guardStream } from '../../providers/stream.js';
import {
  AVAILABLE_CONTENT_CODINGS,
  codingOf,
  createDecoderStages,
  isContentCoding,
  isDecoderDataError,
  ZSTD_AVAILABLE,
  type ContentCoding,
  contentCodingRole,
} from './codings.js';

const ignore = (): void => {};

/**
 * Stable `code`s of the errors raised when decoding request bodies (413 uses `PIPE_BODY_TOO_LARGE`).
 */
export const ContentCodingErrorCode = {
  /** 400: a gzip body that is not valid gzip (bad header, bad checksum, truncated). */
  GzipCorrupt: 'PIPE_GZIP_CORRUPT',
  /** 400: a br or zstd body that is not valid in its coding (corrupt, truncated, a zstd window above 8 MB). */
  Corrupt: 'PIPE_CONTENT_CODING_CORRUPT',
  /** 415: a `Content-Encoding` the server does not decode (RFC 9110 §15.5.16). */
  UnsupportedEncoding: 'PIPE_UNSUPPORTED_CONTENT_ENCODING',
} as const;

/** Options of {@link ContentEncodingReaderInterceptor}. */
export interface ContentEncodingReaderOptions {
  /**
   * The codings accepted in requests; default every coding this Node has (`zstd` where
   * `node:zlib` has it, `br`, `gzip`). Naming `zstd` on a Node without it throws.
   */
  codings?: readonly ContentCoding[];
  /**
   * Most decoded bytes accepted before 413; default: the reader's limit (`ctx.limit`). The
   * compressed bytes are always capped at `ctx.limit` (`limits.bodyLimit`), whatever this is.
   */
  maxDecodedBytes?: number;
}

/**
 * Decodes request bodies in the codings it accepts (JAX-RS `ReaderInterceptor` at
 * `ENTITY_CODER`): with `Content-Encoding: br` (or `gzip`, `x-gzip`, `zstd`), the entity stream is
 * replaced by its decoded form and `Content-Encoding` / `Content-Length` are dropped from the
 * headers the reader sees (the declared length is the encoded one). Decoded bytes are counted, so a
 * compression bomb stops with 413 at the limit instead of inflating (Fastify's body-limit
 * contract); encoded bytes are capped at the original `ctx.limit` too (a stream of empty gzip
 * members decodes to nothing, forever), with the contract of a raw body: a declared
 * `Content-Length` above it is 413 before any byte is read, and a byte count different from it is
 * 400. A zstd frame may not ask for a window above 8 MB (RFC 9659 §3), so a few bytes cannot make
 * the decoder allocate more.
 *
 * Corrupt or truncated data: 400 (`PIPE_GZIP_CORRUPT` for gzip, `PIPE_CONTENT_CODING_CORRUPT`
 * otherwise). Any other coding, stacked codings (`gzip, br`) included: 415 with `Accept-Encoding`
 * listing the accepted codings, as RFC 9110 §15.5.16 and §12.5.3 ask, so the client learns what it
 * may send.
 *
 * @example
 * app.register(new ContentEncodingReaderInterceptor({ maxDecodedBytes: 4 * 1024 * 1024 }));
 */
@Priority(Priorities.ENTITY_CODER)
export class ContentEncodingReaderInterceptor implements ReaderInterceptor {
  private readonly maxDecodedBytes: number | undefined;
  private readonly accepted: ReadonlySet<ContentCoding>;
  /** The 415's `Accept-Encoding`, computed once. */
  private readonly acceptEncoding: string;

  constructor(options: ContentEncodingReaderOptions = {}) {
    const owner = new.target.name;
    const max = options.maxDecodedBytes;
    if (max !== undefined && (!Number.isSafeInteger(max) || max < 0)) {
      throw new RangeError(`${owner}: maxDecodedBytes must be a non-negative integer, got ${max}`);
    }
    const codings = options.codings ?? AVAILABLE_CONTENT_CODINGS;
    for (const coding of codings) {
      if (!isContentCoding(coding))
        throw new RangeError(`${owner}: codings has ${JSON.stringify(coding)}; the codings are gzip, br and zstd`);
      if (coding === 'zstd' && !ZSTD_AVAILABLE) {
        throw new RangeError(
          `${owner}: codings has zstd, but this Node (${process.version}) has no zstd in node:zlib (Node 22.15+ or 23.8+); ` +
            'remove it or leave codings out to accept what this Node has',
        );
      }
    }
    this.maxDecodedBytes = max;
    this.accepted = new Set(codings);
    this.acceptEncoding = codings.length === 0 ? 'identity' : codings.join(', ');
  }

  aroundReadFrom(ctx: ReaderInterceptorContext): unknown {
    const header = ctx.headers['content-encoding'];
    if (header === undefined) return ctx.proceed();
    const coding = this.codingOf(header);
    if (coding === undefined) return ctx.proceed();
    const decodedLimit = this.maxDecodedBytes ?? ctx.limit;
    // Throws the 413 for an oversized declared length before ctx is touched.
    ctx.input = decodeBody(ctx.input, coding, ctx.limit, decodedLimit, declaredLength(ctx));
    // The reader counts what it reads, i.e. decoded bytes: give it the decoded limit.
    ctx.limit = decodedLimit;
    delete ctx.headers['content-encoding'];
    delete ctx.headers['content-length'];
    return ctx.proceed();
  }

  /**
   * The one accepted coding of a `Content-Encoding` value; undefined for none or identity; throws
   * 415 for any other coding, including stacked ones (`deflate, gzip`), which are not decoded.
   */
  private codingOf(header: string): ContentCoding | undefined {
    const value = header.trim().toLowerCase();
    const single = codingOf(value);
    if (single !== undefined && this.accepted.has(single)) return single;
    if (value === '' || value === 'identity') return undefined;
    const codings = value
      .split(',')
      .map((c) => c.trim())
      .filter((c) => c !== '' && c !== 'identity');
    if (codings.length === 0) return undefined;
    const only = codings.length === 1 ? codingOf(codings[0] ?? '') : undefined;
    if (only !== undefined && this.accepted.has(only)) return only;
    // Bound the echoed value: the header is client-controlled.
    throw new NotSupportedError(`Content-Encoding ${truncate(header)} is not supported`, {
      code: ContentCodingErrorCode.UnsupportedEncoding,
      headers: { 'accept-encoding': this.acceptEncoding },
    });
  }
}

/**
 * `input` decoded from `coding`, failing with 413 once more than `maxDecodedBytes` come out (or
 * more than `maxEncodedBytes` go in) and with 400 on corrupt data.
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
 * const body = decodeBody(req, 'br', 1 << 20, 4 << 20, cl === undefined ? undefined : Number(cl));
 */
export function decodeBody(
  input: Readable,
  coding: ContentCoding,
  maxEncodedBytes: number,
  maxDecodedBytes: number,
  contentLength?: number,
): Readable {
  if (contentLength !== undefined && contentLength > maxEncodedBytes) throw tooLarge(maxEncodedBytes);
  // guardStream also turns a client reset or abort on `input` into an error of the stage chain,
  // so it reaches whoever reads the decoded stream.
  const encoded = guardStream(input, maxEncodedBytes, contentLength);
  const decoded = new DecodedLimit(maxDecodedBytes, coding);
  pipeline([encoded, ...createDecoderStages(coding), decoded], ignore);
  return decoded;
}

/** {@link decodeBody} for gzip. */
export function gunzipBody(input: Readable, maxEncodedBytes: number, maxDecodedBytes: number, contentLength?: number): Readable {
  return decodeBody(input, 'gzip', maxEncodedBytes, maxDecodedBytes, contentLength);
}

/** The decoded side's {@link BodyLimitGuard}, which also turns the decoder's data errors into 400. */
class DecodedLimit extends BodyLimitGuard {
  constructor(
    limit: number,
    private readonly coding: ContentCoding,
  ) {
    super(limit, undefined);
  }

  // pipeline() destroys every stage with the first error; this is where the reader-facing
  // stage gets to translate the decoder's errors (zlib's Z_DATA_ERROR / Z_BUF_ERROR "unexpected
  // end of file", brotli's and zstd's own).
  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    if (err !== null && isDecoderDataError(err)) {
      const code = this.coding === 'gzip' ? ContentCodingErrorCode.GzipCorrupt : ContentCodingErrorCode.Corrupt;
      callback(new BadRequestError(`The request body is not valid ${this.coding}`, { code, cause: err }));
    } else {
      callback(err);
    }
  }
}

// One coder of requests per application (see contentCodingRole).
declareExclusiveRole(ContentEncodingReaderInterceptor, contentCodingRole('requests'));
