/**
 * The etcd shared counts as a `RateLimitStore` of the library's `RateLimitFeature` and
 * `FailedAuthLimiter`: each call goes to one {@link SharedRateLimiter}, whose module comment has the
 * bound on what several instances admit together (exact for a client whose requests do not
 * overlap, near the limit; at worst N times the limit while etcd is unreachable).
 */
import type { RateLimitDecision, RateLimitPolicy, RateLimitStore, RateLimitStoreOptions } from '@jaxrs-node/pipeline';
import type { SharedRateLimiter } from './rate-limit-shared.js';

/**
 * A {@link SharedRateLimiter} as a store. The limiter has one limit and window: the policies it is
 * given must have them (one adapter per policy; a mismatch is a wiring error and throws).
 * @example
 * const store = new SharedRateLimitStore(new SharedRateLimiter({ limit: 600, counts }));
 * new RateLimitFeature({ key: RateLimitKeys.principal, default: { limit: 600, windowMs: 60_000 }, store });
 */
export class SharedRateLimitStore implements RateLimitStore {
  constructor(readonly limiter: SharedRateLimiter) {}

  take(key: string, policy: RateLimitPolicy, options?: RateLimitStoreOptions): RateLimitDecision | Promise<RateLimitDecision> {
    this.#check(policy);
    return this.limiter.takeShared(key, options);
  }

  peek(key: string, policy: RateLimitPolicy, options?: RateLimitStoreOptions): RateLimitDecision | Promise<RateLimitDecision> {
    this.#check(policy);
    return this.limiter.peekShared(key, options);
  }

  #check(policy: RateLimitPolicy): void {
    const { limit, windowMs } = this.limiter;
    if (policy.limit !== limit || policy.windowMs !== windowMs) {
      throw new TypeError(
        `SharedRateLimitStore: policy ${policy.id} (${policy.limit} per ${policy.windowMs} ms) differs from its limiter's ${limit} per ${windowMs} ms`,
      );
    }
  }
}
