import type { Feature, FeatureContext } from '../../core/context/contracts.js';
import { GzipReaderInterceptor, type GzipReaderOptions } from './gzip-reader-interceptor.js';
import { GzipTagFilter } from './gzip-tag-filter.js';
import { GzipWriterInterceptor, type GzipWriterOptions } from './gzip-writer-interceptor.js';

/** Options of {@link GzipFeature}: those of both interceptors. */
export type GzipFeatureOptions = GzipWriterOptions & GzipReaderOptions;

/**
 * gzip in both directions: registers a {@link GzipWriterInterceptor} (compresses responses), a
 * {@link GzipReaderInterceptor} (decodes `Content-Encoding: gzip` requests, bomb-safe) and a
 * pre-matching {@link GzipTagFilter} (a compressed response's ETag is the identity tag plus
 * `-gzip`; the filter removes the suffix from `If-Match` / `If-None-Match`, so preconditions
 * compare identity tags, and gives an entity-less 304 the `Vary` its 200 would have had). Options are validated here, when the application is built.
 *
 * @example
 * new Application({ providers: [new GzipFeature({ threshold: 2048, maxDecodedBytes: 1 << 22 })] });
 */
export class GzipFeature implements Feature {
  private readonly writer: GzipWriterInterceptor;
  private readonly reader: GzipReaderInterceptor;
  private readonly tags: GzipTagFilter;

  constructor(options: GzipFeatureOptions = {}) {
    const { threshold, level, mediaTypes, maxDecodedBytes } = options;
    this.writer = new GzipWriterInterceptor({ threshold, level, mediaTypes });
    this.reader = new GzipReaderInterceptor({ maxDecodedBytes });
    // The same compressible types, so a 304 varies exactly when its 200 would.
    this.tags = new GzipTagFilter({ mediaTypes });
  }

  setup(context: FeatureContext): void {
    context.register(this.writer).register(this.reader).register(this.tags);
  }
}
