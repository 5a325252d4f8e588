import type { MediaType } from '../../core/http/media-type.js';
import { Priorities } from '../../core/util/priorities.js';
import { PreMatching, Priority } from '../../decorators/provider.js';
import { ContentCodingTagFilter } from './content-coding-tag-filter.js';

/**
 * {@link ContentCodingTagFilter} for gzip only (registered by `GzipFeature`): removes the `-gzip`
 * suffix from the tags of `If-Match` / `If-None-Match`, and completes an entity-less 304 with the
 * `Vary` and the tag its 200 would have carried.
 *
 * @example
 * // What GzipFeature does (with the writer's `mediaTypes`):
 * app.register(new GzipTagFilter());
 */
@PreMatching()
@Priority(Priorities.HEADER_DECORATOR)
export class GzipTagFilter extends ContentCodingTagFilter {
  /** `mediaTypes`: the writer interceptor's choice of compressible types (default `isCompressibleMediaType`). */
  constructor(options: { mediaTypes?: ((mediaType: MediaType) => boolean) | undefined } = {}) {
    super({ codings: ['gzip'], mediaTypes: options.mediaTypes });
  }
}
