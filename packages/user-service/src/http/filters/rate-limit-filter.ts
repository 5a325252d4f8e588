import { inject, injectable } from 'tsyringe';
import {
  Priorities,
  Priority,
  TooManyRequestsError,
  type ContainerRequestContext,
  type ContainerRequestFilter,
  type ContainerResponseContext,
  type ContainerResponseFilter,
} from '@jaxrs-node/pipeline';
import type { RateLimitDecision, RateLimiter } from '../../domain/limits/rate-limit.js';
import { SharedRateLimiter } from '../../domain/limits/rate-limit-shared.js';
import { RateLimited } from '../bindings.js';
import { TOKENS } from '../di-tokens.js';

const DECISION = 'rateLimit';

/** Records `decision` for the response headers; throws 429 when it refuses. */
function apply(ctx: ContainerRequestContext, decision: RateLimitDecision): void {
  ctx.setProperty(DECISION, decision);
  if (!decision.allowed) throw new TooManyRequestsError(decision.retryAfterSeconds, 'Rate limit exceeded, retry later');
}

/**
 * Quota per client on `@RateLimited` resources. Runs after authentication so the key is the
 * principal when there is one, else the socket address (`X-Forwarded-For` is ignored: no trusted
 * proxy is configured). Every response of a bound method carries `X-Rate-Limit-Limit`,
 * `-Remaining` and `-Reset`; over the quota: 429 with `Retry-After` (whole seconds, >= 1).
 * A local {@link RateLimiter} decides synchronously; a {@link SharedRateLimiter} (several instances)
 * too, except near the limit, where the request waits for the exchange of its key's counts.
 */
@injectable()
@RateLimited()
@Priority(Priorities.AUTHORIZATION)
export class RateLimitFilter implements ContainerRequestFilter, ContainerResponseFilter {
  constructor(@inject(TOKENS.rateLimiter) private readonly limiter: RateLimiter | null) {}

  filterRequest(ctx: ContainerRequestContext): void | Promise<void> {
    const limiter = this.limiter;
    if (limiter === null) return;
    const principal = ctx.securityContext.principal;
    const key = principal !== undefined ? `p:${principal.name}` : `a:${ctx.remoteAddress ?? 'unknown'}`;
    const decision = limiter instanceof SharedRateLimiter ? limiter.takeShared(key) : limiter.take(key);
    if (decision instanceof Promise) return decision.then((d) => apply(ctx, d));
    apply(ctx, decision);
  }

  filterResponse(req: ContainerRequestContext, res: ContainerResponseContext): void {
    const d = req.getProperty(DECISION) as RateLimitDecision | undefined;
    if (d === undefined) return;
    res.headers['x-rate-limit-limit'] = d.limit;
    res.headers['x-rate-limit-remaining'] = d.remaining;
    // Denied: the sliding window frees a slot only after Retry-After, so Reset never says earlier.
    res.headers['x-rate-limit-reset'] = d.allowed ? d.resetSeconds : Math.max(d.resetSeconds, d.retryAfterSeconds);
  }
}
