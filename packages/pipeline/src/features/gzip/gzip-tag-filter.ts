import type { ContainerRequestFilter, ContainerResponseContext, ContainerResponseFilter } from '../../core/context/providers.js';
import type { ContainerRequestContext } from '../../core/context/request-context.js';
import { EntityTag } from '../../core/http/entity-tag.js';
import { appendVary } from '../../core/http/vary.js';
import { Priorities } from '../../core/util/priorities.js';
import { PreMatching, Priority } from '../../decorators/provider.js';
import { GZIP_TAG_SUFFIX } from './gzip-writer-interceptor.js';

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
 * As a response filter it completes a 304 made without an entity (by `evaluatePreconditions`,
 * which no writer interceptor sees): when the client's original `If-None-Match` named the gzip
 * variant of the 304's tag, the 304 carries that tag and `Vary: Accept-Encoding`, as the 200 did,
 * so the client's cache can match it to the response it stored (RFC 9110 §15.4.5, RFC 9111 §4.3.4).
 *
 * @example
 * // What GzipFeature does:
 * app.register(new GzipTagFilter());
 */
@PreMatching()
@Priority(Priorities.HEADER_DECORATOR)
export class GzipTagFilter implements ContainerRequestFilter, ContainerResponseFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    strip(ctx, 'if-match');
    strip(ctx, 'if-none-match');
  }

  filterResponse(request: ContainerRequestContext, response: ContainerResponseContext): void {
    // With an entity, the gzip writer interceptor decides (it knows whether the body is compressed).
    if (response.status !== 304 || response.hasEntity()) return;
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
}

function strip(ctx: ContainerRequestContext, name: string): void {
  const value = ctx.getHeader(name);
  if (value === undefined || !value.includes(GZIP_TAG_SUFFIX)) return;
  const stripped = value.replace(SUFFIXED, '$1"');
  if (stripped !== value) ctx.setHeader(name, stripped);
}
