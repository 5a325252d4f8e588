import { Priorities } from '../../core/util/priorities.js';
import { Priority } from '../../decorators/provider.js';
import type { MediaType } from '../../core/http/media-type.js';
import { codingTagSuffix, ContentEncodingWriterInterceptor } from './content-encoding-writer-interceptor.js';

export { isCompressibleMediaType } from './content-encoding-writer-interceptor.js';

/** Options of {@link GzipWriterInterceptor}. */
export interface GzipWriterOptions {
  /** Smallest string/byte body (in bytes) worth compressing; default 1024. Streams are always compressed. */
  threshold?: number;
  /** zlib compression level, -1 (zlib's default, 6) to 9. */
  level?: number;
  /** Which response media types to compress; default {@link isCompressibleMediaType}. */
  mediaTypes?: (mediaType: MediaType) => boolean;
}

/**
 * {@link ContentEncodingWriterInterceptor} offering gzip only: compresses response bodies with
 * gzip when the client accepts it, and gives the compressed variant's `ETag` the `-gzip` suffix
 * (`"v1"` becomes `"v1-gzip"`). Everything else (threshold, types, `Vary`, 304, streams) is as there.
 *
 * @example
 * app.register(new GzipWriterInterceptor({ threshold: 2048, level: 6 }));
 */
@Priority(Priorities.ENTITY_CODER)
export class GzipWriterInterceptor extends ContentEncodingWriterInterceptor {
  constructor(options: GzipWriterOptions = {}) {
    const { threshold, level, mediaTypes } = options;
    super({ codings: ['gzip'], levels: { gzip: level }, threshold, mediaTypes });
  }
}

/** The suffix the gzip variant's entity tag gets inside the quotes. */
export const GZIP_TAG_SUFFIX = codingTagSuffix('gzip');
