import { randomUUID } from 'node:crypto';
import {
  PreMatching,
  Priority,
  type ContainerRequestContext,
  type ContainerRequestFilter,
  type ContainerResponseContext,
  type ContainerResponseFilter,
} from '@jaxrs-node/pipeline';

export const REQUEST_ID_PROPERTY = 'requestId';
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id: the client's `X-Request-Id` when it is a safe token, else a new UUID.
 * Echoed in the response and written in the access log line.
 */
@PreMatching()
@Priority(0)
export class RequestIdFilter implements ContainerRequestFilter, ContainerResponseFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    const given = ctx.headers['x-request-id'];
    ctx.setProperty(REQUEST_ID_PROPERTY, typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID());
  }

  filterResponse(req: ContainerRequestContext, res: ContainerResponseContext): void {
    const id = req.getProperty(REQUEST_ID_PROPERTY);
    if (typeof id === 'string') res.headers['x-request-id'] = id;
  }
}
