/**
 * The two filters of `pipeline-filters` (and of the in-process `micro` measurement): the same work
 * `bare-filters` does inline and `fastify-hooks` does in hooks.
 */
import {
  Response,
  type ContainerRequestContext,
  type ContainerRequestFilter,
  type ContainerResponseContext,
  type ContainerResponseFilter,
} from '@jaxrs-node/pipeline';
import { FILTER_HEADER, filterHeaderValue, refused, sendsFilterHeader, stamp } from './common.js';

const STAMP = 'bench.stamp';

/** Synchronous request filter: refuses requests as {@link refused} says; leaves a {@link stamp} for the response filter. */
export class RejectFilter implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    ctx.setProperty(STAMP, stamp());
    if (refused(ctx.rawQuery, (name) => ctx.getHeader(name))) ctx.abortWith(Response.status(403).entity({ error: 'Forbidden' }));
  }
}

/** Response filter: adds {@link FILTER_HEADER}. */
export class TimingFilter implements ContainerResponseFilter {
  filterResponse(req: ContainerRequestContext, res: ContainerResponseContext): void {
    const value = req.getProperty(STAMP) as number | string;
    if (sendsFilterHeader(res.status)) res.setHeader(FILTER_HEADER, filterHeaderValue(value));
  }
}
