import { TooManyRequestsError, WebApplicationError } from '../../core/http/errors.js';
import { RateLimitConfigurationError } from './errors.js';
import type { RateLimitDecision } from './sliding-window.js';
import { MemoryRateLimitStore, type RateLimitPolicy, type RateLimitStore } from './store.js';

/** Options of {@link FailedAuthLimiter}. */
export interface FailedAuthLimiterOptions {
  /** Failed attempts allowed per key within `windowMs`, an integer >= 1. */
  readonly limit: number;
  /** Window length in ms; default 60 000. */
  readonly windowMs?: number;
  /**
   * Where failures are counted; default a {@link MemoryRateLimitStore} of 20 000 keys. A store
   * shared by several instances makes failures count across them (`check` and `failed` pass it
   * `fresh: true` where a stale count could let a right guess through).
   */
  readonly store?: RateLimitStore;
  /** The policy's id in the store (shared counts: the same on every instance); default `failed-auth`. */
  readonly id?: string;
}

const MESSAGE = 'Too many failed authentication attempts, retry later';

/**
 * Failed-authentication limits shared by every scheme (Basic, a login form, Bearer/JWT, API keys):
 * failures count per key (the client's address and, for schemes that name one, the account tried);
 * once a key used up its failures, further attempts are refused with 429 and `Retry-After`
 * BEFORE any credential is checked, so guessing costs the server nothing and cannot make it hash
 * passwords (OWASP Authentication Cheat Sheet, "Protect against automated attacks"; RFC 6585 §4).
 * Successful attempts are not counted and reset nothing: a guesser who also holds one valid
 * account cannot clear its count by logging in.
 *
 * A scheme uses it in three calls, or one (`attempt`):
 * 1. `await limiter.check(keys)` before verifying: rejects with the 429 when a key is over;
 * 2. on a wrong credential, `await limiter.failed(keys)`: counts it, and rejects with the 429 when
 *    fresh counts show the attempt came past the limit (then answer that instead of the 401);
 * 3. on success, `limiter.succeeded(keys)` (counts nothing; the hook keeps schemes uniform).
 *
 * The 429's code is `PIPE_AUTH_FAILURES_LIMITED`.
 * @example
 * const failures = new FailedAuthLimiter({ limit: 10 });
 * const keys = failures.keys(ctx.remoteAddress, username);
 * const principal = await failures.attempt(keys, () => verify(username, password)); // a 401/403 it throws counts
 */
export class FailedAuthLimiter {
  /** The policy failures are counted under. */
  readonly policy: RateLimitPolicy;
  readonly #store: RateLimitStore;

  constructor(options: FailedAuthLimiterOptions) {
    const { limit, windowMs = 60_000, store = new MemoryRateLimitStore({ maxKeys: 20_000 }), id = 'failed-auth' } = options;
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new RateLimitConfigurationError('PIPE_RATE_LIMIT_INVALID', `FailedAuthLimiter: limit ${String(limit)} must be an integer >= 1`);
    }
    if (!Number.isSafeInteger(windowMs) || windowMs < 1) {
      throw new RateLimitConfigurationError(
        'PIPE_RATE_LIMIT_INVALID',
        `FailedAuthLimiter: windowMs ${String(windowMs)} must be an integer >= 1`,
      );
    }
    this.policy = Object.freeze({ id, name: 'failed-auth', limit, windowMs });
    this.#store = store;
  }

  /** The keys an attempt on `account` from `address` is charged to: `client:<address>` and `account:<account>`. */
  keys(address: string | undefined, account?: string): string[] {
    const keys = [`client:${address ?? 'unknown'}`];
    if (account !== undefined && account.length > 0) keys.push(`account:${account}`);
    return keys;
  }

  /** Rejects with a 429 when any of `keys` has used up its failed attempts. */
  async check(keys: readonly string[]): Promise<void> {
    const decisions = await Promise.all(keys.map(async (key) => this.#store.peek(key, this.policy)));
    const over = decisions.find((d) => !d.allowed);
    if (over !== undefined) throw tooMany(over);
  }

  /**
   * Charges one failed attempt to each of `keys`; rejects with a 429 when the fresh counts show it
   * came past the limit (a concurrent guess, or another instance's), else resolves.
   */
  async failed(keys: readonly string[]): Promise<void> {
    const decisions = await Promise.all(keys.map(async (key) => this.#store.take(key, this.policy, { fresh: true })));
    const refused = decisions.find((d) => !d.allowed);
    if (refused !== undefined) throw tooMany(refused);
  }

  /** A successful attempt: counts nothing and resets nothing (see the class comment); for symmetry. */
  succeeded(_keys: readonly string[]): void {}

  /**
   * Runs `attempt` unless `keys` are over their limit; a 401 or 403 it throws counts as a failure
   * (other errors, e.g. a 503 while hashing is saturated, are not the client's guess) and is
   * rethrown, or replaced by the 429 when this failure came past the limit.
   */
  async attempt<T>(keys: readonly string[], attempt: () => T | Promise<T>): Promise<T> {
    await this.check(keys);
    let result: T;
    try {
      result = await attempt();
    } catch (error) {
      if (error instanceof WebApplicationError && (error.status === 401 || error.status === 403)) await this.failed(keys);
      throw error;
    }
    this.succeeded(keys);
    return result;
  }
}

function tooMany(decision: RateLimitDecision): TooManyRequestsError {
  return new TooManyRequestsError(decision.retryAfterSeconds, MESSAGE, { code: 'PIPE_AUTH_FAILURES_LIMITED' });
}
