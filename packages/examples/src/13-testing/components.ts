/**
 * The two components example 13 unit-tests in isolation: a filter and an interceptor. Nothing
 * here knows about an Application; that is what makes them easy to test alone.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  PreMatching,
  Priorities,
  Priority,
  type ContainerRequestContext,
  type ContainerRequestFilter,
  type ContainerResponseContext,
  type ContainerResponseFilter,
  type WriterInterceptor,
  type WriterInterceptorContext,
} from '@jaxrs-node/pipeline';

const REQUEST_ID = 'example.requestId';
// Echo a caller's id only when it is short and harmless: it ends up in logs and headers.
const VALID_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Gives every request an id: the caller's `X-Request-Id` when valid, else a new UUID; it is
 * echoed on the response. Pre-matching, so 404s and 405s get one too.
 */
@PreMatching()
@Priority(Priorities.AUTHENTICATION - 500)
export class RequestIdFilter implements ContainerRequestFilter, ContainerResponseFilter {
  constructor(private readonly newId: () => string = randomUUID) {}

  filterRequest(ctx: ContainerRequestContext): void {
    const incoming = ctx.getHeader('x-request-id');
    ctx.setProperty(REQUEST_ID, incoming !== undefined && VALID_ID.test(incoming) ? incoming : this.newId());
  }

  filterResponse(req: ContainerRequestContext, res: ContainerResponseContext): void {
    let id = req.getProperty(REQUEST_ID) as string | undefined;
    // Absent when the request failed before this filter ran (e.g. a malformed request target).
    if (id === undefined) req.setProperty(REQUEST_ID, (id = this.newId()));
    res.setHeader('X-Request-Id', id);
  }
}

/** The id {@link RequestIdFilter} gave the request (for resources and loggers). */
export function requestIdOf(ctx: ContainerRequestContext): string | undefined {
  return ctx.getProperty(REQUEST_ID) as string | undefined;
}

/**
 * Adds a strong `ETag` (RFC 9110 §8.8.3) computed from the serialized body of successful GET
 * and HEAD responses. USER priority puts it inside an ENTITY_CODER (gzip) interceptor, so the
 * tag names the identity bytes. Streams are skipped: their bytes are not known before they are sent.
 */
@Priority(Priorities.USER)
export class EtagInterceptor implements WriterInterceptor {
  async aroundWriteTo(ctx: WriterInterceptorContext): Promise<void> {
    await ctx.proceed();
    const body = ctx.body;
    const method = ctx.request.method;
    if (ctx.response.status !== 200 || (method !== 'GET' && method !== 'HEAD')) return;
    if (typeof body !== 'string' && !(body instanceof Uint8Array)) return;
    // Hashing is cheap next to serialization for typical API bodies; cache it for huge ones.
    const hash = createHash('sha256').update(body).digest('base64url').slice(0, 27);
    ctx.headers.etag = `"${hash}"`;
  }
}
