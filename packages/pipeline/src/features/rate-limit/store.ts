import { SlidingWindowLimiter, type RateLimitDecision } from './sliding-window.js';

/**
 * One quota as a store counts it: `limit` requests per `windowMs` for each client key. Built once
 * at start-up from a `@RateLimit` window or the feature's default; the same object is passed on
 * every call, so a store may key its own structures by it.
 */
export interface RateLimitPolicy {
  /**
   * The counts' scope: two policies with the same id share their counts (the feature's default
   * windows are shared by every route they apply to; a `@RateLimit` window is its route's own).
   */
  readonly id: string;
  /** The name the `RateLimit-Policy` and `RateLimit` fields show (draft-ietf-httpapi-ratelimit-headers-09 §3, §4). */
  readonly name: string;
  /** Requests allowed per window, an integer >= 1. */
  readonly limit: number;
  /** Window length in ms, an integer >= 1. */
  readonly windowMs: number;
}

/** Options of one {@link RateLimitStore.take} or {@link RateLimitStore.peek}. */
export interface RateLimitStoreOptions {
  /** The decision's instant, ms since the epoch; default `Date.now()`. */
  readonly now?: number;
  /**
   * The caller needs the freshest count the store can get, even at a cost (a failed
   * authentication: a right guess past the limit must not slip through). A local store ignores it;
   * a store shared by several instances may exchange the key's counts first.
   */
  readonly fresh?: boolean;
}

/**
 * Where {@link RateLimitFeature} and {@link FailedAuthLimiter} count: in memory by default
 * ({@link MemoryRateLimitStore}); an adapter of a store shared by several instances (a database,
 * etcd, Redis) implements the same two calls. A synchronous answer keeps the request on the fast
 * path; a Promise is awaited. A store must never reject for its own failures (an unreachable
 * backend): decide on what it knows locally instead, since a 500 per request would turn an outage
 * of the store into one of the service.
 * @example
 * class LoggingStore implements RateLimitStore {
 *   readonly #inner = new MemoryRateLimitStore();
 *   take(key: string, policy: RateLimitPolicy) { return this.#inner.take(key, policy); }
 *   peek(key: string, policy: RateLimitPolicy) { return this.#inner.peek(key, policy); }
 * }
 */
export interface RateLimitStore {
  /** Counts one request of `key` under `policy` if it is allowed; a refused request is not counted. */
  take(key: string, policy: RateLimitPolicy, options?: RateLimitStoreOptions): RateLimitDecision | Promise<RateLimitDecision>;
  /** What {@link RateLimitStore.take} would decide, counting nothing. */
  peek(key: string, policy: RateLimitPolicy, options?: RateLimitStoreOptions): RateLimitDecision | Promise<RateLimitDecision>;
}

/** Options of {@link MemoryRateLimitStore}. */
export interface MemoryRateLimitStoreOptions {
  /**
   * Keys tracked per policy, an integer >= 2; default 10 000. Memory is bounded by it: keys
   * untouched for a while are forgotten in bulk (a forgotten client starts a fresh quota), so size
   * it above the number of clients active within one window.
   */
  readonly maxKeys?: number;
}

/**
 * The default {@link RateLimitStore}: one sliding-window counter per policy in this process
 * ({@link SlidingWindowLimiter}), bounded by `maxKeys` keys per policy, O(1) per call, no timers.
 * @example
 * new RateLimitFeature({ key: RateLimitKeys.principalOrAddress, store: new MemoryRateLimitStore({ maxKeys: 50_000 }) });
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly maxKeys: number;
  readonly #limiters = new Map<string, SlidingWindowLimiter>();

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    const { maxKeys = 10_000 } = options;
    if (!Number.isSafeInteger(maxKeys) || maxKeys < 2) {
      throw new TypeError(`MemoryRateLimitStore: option maxKeys must be an integer >= 2, got ${String(maxKeys)}`);
    }
    this.maxKeys = maxKeys;
  }

  /** Keys tracked now under `policy` (never above `maxKeys`). */
  size(policy: RateLimitPolicy): number {
    return this.#limiters.get(policy.id)?.size ?? 0;
  }

  take(key: string, policy: RateLimitPolicy, options?: RateLimitStoreOptions): RateLimitDecision {
    return this.#limiter(policy).take(key, options?.now ?? Date.now());
  }

  peek(key: string, policy: RateLimitPolicy, options?: RateLimitStoreOptions): RateLimitDecision {
    return this.#limiter(policy).peek(key, options?.now ?? Date.now());
  }

  #limiter(policy: RateLimitPolicy): SlidingWindowLimiter {
    let limiter = this.#limiters.get(policy.id);
    if (limiter === undefined || limiter.limit !== policy.limit || limiter.windowMs !== policy.windowMs) {
      limiter = new SlidingWindowLimiter({ limit: policy.limit, windowMs: policy.windowMs, maxKeys: this.maxKeys });
      this.#limiters.set(policy.id, limiter);
    }
    return limiter;
  }
}
