import type { Feature, FeatureContext } from '../../core/context/contracts.js';
import { AVAILABLE_CONTENT_CODINGS } from './codings.js';
import { ContentCodingTagFilter } from './content-coding-tag-filter.js';
import { ContentEncodingReaderInterceptor, type ContentEncodingReaderOptions } from './content-encoding-reader-interceptor.js';
import { ContentEncodingWriterInterceptor, type ContentEncodingWriterOptions } from './content-encoding-writer-interceptor.js';

/** Options of {@link ContentEncodingFeature}: those of both interceptors (`codings` is shared). */
export type ContentEncodingFeatureOptions = ContentEncodingWriterOptions & ContentEncodingReaderOptions;

/**
 * Content codings in both directions (RFC 9110 §8.4): registers a
 * {@link ContentEncodingWriterInterceptor} (compresses responses with the coding the client's
 * `Accept-Encoding` weighs highest, zstd > br > gzip among equal weights), a
 * {@link ContentEncodingReaderInterceptor} (decodes request bodies in the same codings, bomb-safe)
 * and a pre-matching {@link ContentCodingTagFilter} (a compressed response's ETag is the identity
 * tag plus `-zstd`, `-br` or `-gzip`; the filter removes the suffix from `If-Match` /
 * `If-None-Match`, so preconditions compare identity tags, and gives an entity-less 304 the `Vary`
 * its 200 would have had). `codings` defaults to every coding this Node has: zstd only where
 * `node:zlib` has it (Node 22.15+, 23.8+). Options are validated here, when the application is
 * built. See docs/compression.md for the measurements behind the defaults.
 *
 * @example
 * new Application({ providers: [new ContentEncodingFeature({ levels: { br: 5 }, maxDecodedBytes: 1 << 22 })] });
 */
export class ContentEncodingFeature implements Feature {
  private readonly writer: ContentEncodingWriterInterceptor;
  private readonly reader: ContentEncodingReaderInterceptor;
  private readonly tags: ContentCodingTagFilter;

  constructor(options: ContentEncodingFeatureOptions = {}) {
    const { codings, levels, threshold, mediaTypes, maxDecodedBytes } = options;
    this.writer = new ContentEncodingWriterInterceptor({ codings, levels, threshold, mediaTypes });
    this.reader = new ContentEncodingReaderInterceptor({ codings, maxDecodedBytes });
    // The same codings and compressible types, so a 304 varies exactly when its 200 would.
    this.tags = new ContentCodingTagFilter({ codings: codings ?? AVAILABLE_CONTENT_CODINGS, mediaTypes });
  }

  setup(context: FeatureContext): void {
    context.register(this.writer).register(this.reader).register(this.tags);
  }
}
