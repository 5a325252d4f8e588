import {
  BadRequestError,
  PreMatching,
  Priorities,
  Priority,
  type ContainerRequestContext,
  type ContainerRequestFilter,
  type ContainerResponseContext,
  type ContainerResponseFilter,
} from '@jaxrs-node/pipeline';

/** The only API version: clients send `X-API-Version: 1` (`docs/api.md` rule 41). */
export const API_VERSION = '1';

/**
 * `X-API-Version`: missing means 1, `1` is accepted, anything else is a 400 naming the supported
 * version. Every response says which version answered. Pre-matching, so even a 404 carries it.
 */
@PreMatching()
@Priority(Priorities.HEADER_DECORATOR)
export class ApiVersionFilter implements ContainerRequestFilter, ContainerResponseFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    const v = ctx.headers['x-api-version'];
    if (v === undefined || v === API_VERSION) return;
    const shown = Array.isArray(v) ? v.join(', ') : v;
    throw new BadRequestError(`Unsupported API version '${shown.slice(0, 20)}': supported versions are ${API_VERSION}`, {
      details: [{ field: 'X-API-Version', message: `must be ${API_VERSION}` }],
    });
  }

  filterResponse(_req: ContainerRequestContext, res: ContainerResponseContext): void {
    res.headers['x-api-version'] = API_VERSION;
  }
}
