/**
 * The two filters of `pipeline-filters` (and of the in-process `micro` measurement): the same work
 * `bare-filters` does inline and `fastify-hooks` does in hooks.
 */
import {
  Response, type ContainerRequestContext, type ContainerRequestFilter, type ContainerResponseContext,
  type ContainerResponseFilter,
} from '@jaxrs-node/pipeline';
import { FILTER_HEADER, filterHeaderValue, REJECT_HEADER, stamp } from './common.js';

const STAMP = 'bench.stamp';

/** Synchronous request filter: refuses requests carrying {@link REJECT_HEADER}; leaves a {@link stamp} for the response filter. */
export class RejectFilter implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    ctx.setProperty(STAMP, stamp());
    if (ctx.getHeader(REJECT_HEADER) !== undefined) ctx.abortWith(Response.status(403).entity({ error: 'Forbidden' }));
  }
}

/** Response filter: adds {@link FILTER_HEADER}. */
export class TimingFilter implements ContainerResponseFilter {
  filterResponse(req: ContainerRequestContext, res: ContainerResponseContext): void {
    res.setHeader(FILTER_HEADER, filterHeaderValue(req.getProperty(STAMP) as number | string));
  }
}
