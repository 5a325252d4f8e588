import { createHash } from 'node:crypto';
import type { ContainerRequestContext } from '../../core/context/request-context.js';
import { EntityTag } from '../../core/http/entity-tag.js';
import { Response } from '../../core/http/response.js';

/**
 * A body computed once (the document, the docs page and its files), served as the same bytes with
 * a strong `ETag`: a client that revalidates with `If-None-Match` gets a 304 (RFC 9110 §13.1.2).
 */
export class StaticBody {
  readonly tag: EntityTag;

  constructor(
    readonly body: Buffer,
    readonly mediaType: string,
    private readonly headers: Readonly<Record<string, string>> = {},
  ) {
    this.tag = new EntityTag(createHash('sha256').update(body).digest('base64url').slice(0, 27));
  }

  /** The 200 (or the 304 the request's preconditions ask for), revalidated on every use (`no-cache`). */
  respond(request: ContainerRequestContext): Response {
    const response = request.evaluatePreconditions({ tag: this.tag }) ?? Response.ok(this.body).type(this.mediaType).tag(this.tag).build();
    response.setHeader('cache-control', 'no-cache');
    for (const [name, value] of Object.entries(this.headers)) response.setHeader(name, value);
    return response;
  }
}
