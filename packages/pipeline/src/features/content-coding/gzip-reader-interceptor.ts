import { Priorities } from '../../core/util/priorities.js';
import { Priority } from '../../decorators/provider.js';
import { ContentCodingErrorCode, ContentEncodingReaderInterceptor } from './content-encoding-reader-interceptor.js';

export { gunzipBody } from './content-encoding-reader-interceptor.js';

/** Stable `code`s of the errors raised by the gzip reader interceptor (413 uses `PIPE_BODY_TOO_LARGE`). */
export const GzipErrorCode = {
  /** 400: the body is not valid gzip (bad header, bad checksum, truncated). */
  Corrupt: ContentCodingErrorCode.GzipCorrupt,
  /** 415: a `Content-Encoding` other than gzip / x-gzip / identity (RFC 9110 §15.5.16). */
  UnsupportedEncoding: ContentCodingErrorCode.UnsupportedEncoding,
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
 * {@link ContentEncodingReaderInterceptor} accepting gzip only: decodes `Content-Encoding: gzip`
 * (or `x-gzip`) request bodies under the same bounds; any other coding is 415 with
 * `Accept-Encoding: gzip` (RFC 9110 §15.5.16).
 *
 * @example
 * app.register(new GzipReaderInterceptor({ maxDecodedBytes: 4 * 1024 * 1024 }));
 */
@Priority(Priorities.ENTITY_CODER)
export class GzipReaderInterceptor extends ContentEncodingReaderInterceptor {
  constructor(options: GzipReaderOptions = {}) {
    super({ codings: ['gzip'], maxDecodedBytes: options.maxDecodedBytes });
  }
}
