/**
 * Rate limits per client key and route, and failed-authentication limits shared by every scheme
 * (docs/rate-limits.md).
 * @example
 * new RateLimitFeature({ key: RateLimitKeys.principal, default: { limit: 600, windowMs: 60_000 } });
 */
export { NoRateLimit, RateLimit } from './annotations.js';
export type { RateLimitWindow } from './annotations.js';
export { RateLimitConfigurationError } from './errors.js';
export type { RateLimitConfigurationCode } from './errors.js';
export { FailedAuthLimiter } from './failed-auth-limiter.js';
export type { FailedAuthLimiterOptions } from './failed-auth-limiter.js';
export { RateLimitKeys } from './keys.js';
export type { RateLimitKey } from './keys.js';
export { RateLimitFeature } from './rate-limit-feature.js';
export type { RateLimitFeatureOptions, RateLimitHeadersOptions } from './rate-limit-feature.js';
export { SlidingWindowLimiter } from './sliding-window.js';
export type { CountSharing, RateLimitDecision, SlidingWindowLimiterOptions } from './sliding-window.js';
export { MemoryRateLimitStore } from './store.js';
export type { MemoryRateLimitStoreOptions, RateLimitPolicy, RateLimitStore, RateLimitStoreOptions } from './store.js';
