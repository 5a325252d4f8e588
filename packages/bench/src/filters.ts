/**
 * The two filters of `pipeline-filters` (and of the in-process `micro` measurement): the same work
 * `bare-filters` does inline and `fastify-hooks` does in hooks.
 */
import {
  Response, type ContainerRequestContext, type ContainerRequestFilter, type ContainerResponseContext,
  type ContainerResponseFilter,
} from '@jaxrs-node/pipeline';
import { elapsed, REJECT_HEADER, TIME_HEADER } from './common.js';

const START = 'bench.start';

/** Synchronous request filter: refuses requests carrying {@link REJECT_HEADER}; records the arrival time. */
export class RejectFilter implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    ctx.setProperty(START, performance.now());
    if (ctx.getHeader(REJECT_HEADER) !== undefined) ctx.abortWith(Response.status(403).entity({ error: 'Forbidden' }));
  }
}

/** Response filter: adds {@link TIME_HEADER}. */
export class TimingFilter implements ContainerResponseFilter {
  filterResponse(req: ContainerRequestContext, res: ContainerResponseContext): void {
    res.setHeader(TIME_HEADER, elapsed(req.getProperty(START) as number));
  }
}
