/**
 * Per-client request quota (`docs/api.md` rule 39: `X-Rate-Limit-Limit`, 429 when limited): the
 * library's sliding-window counter (`SlidingWindowLimiter`, behind `RateLimitFeature`'s in-memory
 * store), named as the service always named it. `SharedRateLimiter` extends it with counts shared
 * across instances.
 */
export { SlidingWindowLimiter as RateLimiter } from '@jaxrs-node/pipeline';
export type { CountSharing, RateLimitDecision, SlidingWindowLimiterOptions as RateLimiterOptions } from '@jaxrs-node/pipeline';
