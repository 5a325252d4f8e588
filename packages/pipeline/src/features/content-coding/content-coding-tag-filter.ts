import { declareExclusiveRole } from '../../core/internal/exclusive-roles.js';
import type { ContainerRequestFilter, ContainerResponseContext, ContainerResponseFilter } from '../../core/context/contracts.js';
import type { ContainerRequestContext } from '../../core/context/request-context.js';
import { EntityTag } from '../../core/http/entity-tag.js';
import { appendVary } from '../../core/http/vary.js';
import { Priorities } from '../../core/util/priorities.js';
import { PreMatching, Priority } from '../../decorators/provider.js';
import { parseMediaType, type MediaType } from '../../core/http/media-type.js';
import { AVAILABLE_CONTENT_CODINGS, contentCodingRole, type ContentCoding } from './codings.js';
import { codingTagSuffix, isCompressibleMediaType } from './content-encoding-writer-interceptor.js';

/** Options of {@link ContentCodingTagFilter}. */
export interface ContentCodingTagFilterOptions {
  /** The codings whose tag suffix is recognised; default every coding this Node has. */
  codings?: readonly ContentCoding[] | undefined;
  /** The writer interceptor's choice of compressible types (default {@link isCompressibleMediaType}). */
  mediaTypes?: ((mediaType: MediaType) => boolean) | undefined;
}

/**
 * The request half of the coded-tag rule (registered by `ContentEncodingFeature` and
 * `GzipFeature`): a compressed representation's `ETag` is the identity tag with the coding as a
 * suffix (`-gzip`, `-br`, `-zstd`), so, as a pre-matching request filter (Jakarta REST 3.1 §6.4),
 * this removes that suffix from the tags of `If-Match` and `If-None-Match` (RFC 9110 §13.1.1,
 * §13.1.2). A resource (or `evaluatePreconditions`) then compares the identity tag it knows, and a
 * client echoing a coded tag gets the same answer as one echoing the identity tag. `*` and other
 * tags are kept. Costs two header lookups on a request without those headers.
 *
 * As a response filter it completes a 304 made without an entity (by `evaluatePreconditions` or
 * `Response.notModified`, which no writer interceptor sees), so that it carries the `Vary` and the
 * tag the 200 would have carried (RFC 9110 §15.4.5; a cache updates the stored response's headers
 * from the 304, RFC 9111 §4.3.4): `Vary: Accept-Encoding` whenever the 200 would have had it, that
 * is unless its media type (the 304's `Content-Type`, else the method's `@Produces` type) is known
 * not to be compressible; and, when the client's original `If-None-Match` named a coded variant
 * of the 304's tag, that variant's tag.
 *
 * @example
 * // What ContentEncodingFeature does (with the writer's codings and `mediaTypes`):
 * app.register(new ContentCodingTagFilter({ codings: ['br', 'gzip'] }));
 */
@PreMatching()
@Priority(Priorities.HEADER_DECORATOR)
export class ContentCodingTagFilter implements ContainerRequestFilter, ContainerResponseFilter {
  private readonly compressible: (mediaType: MediaType) => boolean;
  private readonly suffixes: readonly string[];
  /** A tag (weak or strong) whose value ends with a coding suffix; `$1` keeps `W/` and the value before it. */
  private readonly suffixed: RegExp;

  constructor(options: ContentCodingTagFilterOptions = {}) {
    this.compressible = options.mediaTypes ?? isCompressibleMediaType;
    this.suffixes = (options.codings ?? AVAILABLE_CONTENT_CODINGS).map(codingTagSuffix);
    this.suffixed = new RegExp(`((?:W/)?"[^"]*)(?:${this.suffixes.join('|')})"`, 'g');
  }

  filterRequest(ctx: ContainerRequestContext): void {
    this.strip(ctx, 'if-match');
    this.strip(ctx, 'if-none-match');
  }

  filterResponse(request: ContainerRequestContext, response: ContainerResponseContext): void {
    // With an entity, the writer interceptor decides (it knows whether the body is compressed).
    if (response.status !== 304 || response.hasEntity()) return;
    if (this.mayCompress(request, response)) appendVary(response.headers, 'Accept-Encoding');
    const etag = response.headers.etag;
    if (typeof etag !== 'string') return;
    const tag = EntityTag.parse(etag);
    const sent = request.raw.headers['if-none-match'];
    if (tag === undefined || sent === undefined) return;
    const list = EntityTag.parseList(Array.isArray(sent) ? sent.join(', ') : sent);
    if (list === '*') return;
    const named = new Set(list.map((t) => t.value));
    const suffix = this.suffixes.find((s) => named.has(`${tag.value}${s}`));
    if (suffix === undefined) return;
    response.headers.etag = new EntityTag(`${tag.value}${suffix}`, tag.weak).toString();
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

  private strip(ctx: ContainerRequestContext, name: string): void {
    const value = ctx.getHeader(name);
    if (value === undefined || !this.suffixes.some((s) => value.includes(s))) return;
    const stripped = value.replace(this.suffixed, '$1"');
    if (stripped !== value) ctx.setHeader(name, stripped);
  }
}

// One coder of entity tags per application (see contentCodingRole).
declareExclusiveRole(ContentCodingTagFilter, contentCodingRole('entity tags'));
