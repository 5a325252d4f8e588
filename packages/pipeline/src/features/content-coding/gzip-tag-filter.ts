import type { ContainerRequestFilter, ContainerResponseContext, ContainerResponseFilter } from '../../core/context/contracts.js';
import type { ContainerRequestContext } from '../../core/context/request-context.js';
import { EntityTag } from '../../core/http/entity-tag.js';
import { appendVary } from '../../core/http/vary.js';
import { Priorities } from '../../core/util/priorities.js';
import { PreMatching, Priority } from '../../decorators/provider.js';
import { GZIP_TAG_SUFFIX, isCompressibleMediaType } from './gzip-writer-interceptor.js';
import { parseMediaType, type MediaType } from '../../core/http/media-type.js';

/** A tag (weak or strong) whose value ends with the gzip suffix; `$1` keeps `W/` and the value before it. */
const SUFFIXED = new RegExp(`((?:W/)?"[^"]*)${GZIP_TAG_SUFFIX}"`, 'g');

/**
 * The request half of the gzip tag rule (registered by `GzipFeature`): the compressed
 * representation's `ETag` is the identity tag with a `-gzip` suffix, so, as a pre-matching
 * request filter (Jakarta REST 3.1 §6.4), this removes that suffix from the tags of `If-Match`
 * and `If-None-Match` (RFC 9110 §13.1.1, §13.1.2). A resource (or `evaluatePreconditions`) then
 * compares the identity tag it knows, and a client echoing the gzipped tag gets the same answer
 * as one echoing the identity tag. `*` and other tags are kept. Costs two header lookups on a
 * request without those headers.
 *
 * As a response filter it completes a 304 made without an entity (by `evaluatePreconditions` or
 * `Response.notModified`, which no writer interceptor sees), so that it carries the `Vary` and the
 * tag the 200 would have carried (RFC 9110 §15.4.5; a cache updates the stored response's headers
 * from the 304, RFC 9111 §4.3.4): `Vary: Accept-Encoding` whenever the 200 would have had it, that
 * is unless its media type (the 304's `Content-Type`, else the method's `@Produces` type) is known
 * not to be compressible; and, when the client's original `If-None-Match` named the gzip variant
 * of the 304's tag, that tag.
 *
 * @example
 * // What GzipFeature does (with the writer's `mediaTypes`):
 * app.register(new GzipTagFilter());
 */
@PreMatching()
@Priority(Priorities.HEADER_DECORATOR)
export class GzipTagFilter implements ContainerRequestFilter, ContainerResponseFilter {
  private readonly compressible: (mediaType: MediaType) => boolean;

  /** `mediaTypes`: the writer interceptor's choice of compressible types (default {@link isCompressibleMediaType}). */
  constructor(options: { mediaTypes?: ((mediaType: MediaType) => boolean) | undefined } = {}) {
    this.compressible = options.mediaTypes ?? isCompressibleMediaType;
  }

  filterRequest(ctx: ContainerRequestContext): void {
    strip(ctx, 'if-match');
    strip(ctx, 'if-none-match');
  }

  filterResponse(request: ContainerRequestContext, response: ContainerResponseContext): void {
    // With an entity, the gzip writer interceptor decides (it knows whether the body is compressed).
    if (response.status !== 304 || response.hasEntity()) return;
    if (this.mayCompress(request, response)) appendVary(response.headers, 'Accept-Encoding');
    const etag = response.headers.etag;
    if (typeof etag !== 'string') return;
    const tag = EntityTag.parse(etag);
    const sent = request.raw.headers['if-none-match'];
    if (tag === undefined || sent === undefined) return;
    const list = EntityTag.parseList(Array.isArray(sent) ? sent.join(', ') : sent);
    const variant = `${tag.value}${GZIP_TAG_SUFFIX}`;
    if (list === '*' || !list.some((t) => t.value === variant)) return;
    response.headers.etag = new EntityTag(variant, tag.weak).toString();
    appendVary(response.headers, 'Accept-Encoding');
  }

  /**
   * Could the 200 this 304 stands for have been compressed? Unknown (no concrete type) counts as
   * yes: a missing `Vary` lets a cache serve one coding to a client that asked for another, an extra
   * one only costs cache hits.
   */
  private mayCompress(request: ContainerRequestContext, response: ContainerResponseContext): boolean {
    const declared = response.headers['content-type'];
    const mt = declared === undefined ? request.responseMediaType : parseMediaType(String(declared));
    if (mt === undefined || mt.type === '*' || mt.subtype === '*') return true;
    return this.compressible(mt);
  }
}

function strip(ctx: ContainerRequestContext, name: string): void {
  const value = ctx.getHeader(name);
  if (value === undefined || !value.includes(GZIP_TAG_SUFFIX)) return;
  const stripped = value.replace(SUFFIXED, '$1"');
  if (stripped !== value) ctx.setHeader(name, stripped);
}
