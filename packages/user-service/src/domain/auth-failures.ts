/**
 * Failed authentication, of every scheme (Basic, login, Bearer, API key), counts toward a limit
 * per client (socket address) and per account (the username tried, for the schemes that name
 * one). Past it, further attempts are refused with 429 and `Retry-After` BEFORE any credential is
 * checked, so guessing costs the server nothing and a guesser cannot make it hash passwords
 * (OWASP Authentication Cheat Sheet, "Protect against automated attacks"; RFC 6585 §4).
 *
 * Successful attempts are not counted. Credentials that already passed recently (the
 * authenticator's cache) are accepted even while an account is over its limit, so a guesser
 * elsewhere cannot lock the real admin out.
 */
import { TooManyRequestsError, WebApplicationError } from '@jaxrs-node/pipeline';
import { RateLimiter } from './rate-limit.js';

/** Options of {@link AuthFailureGuard}. */
export interface AuthFailureGuardOptions {
  /** Failed attempts allowed per client and per account within `windowMs`, >= 1. */
  readonly limit: number;
  /** Window length in ms; default 60 000. */
  readonly windowMs?: number;
}

/**
 * The limiter to count failures in, instead of a private one: e.g. a `SharedRateLimiter`, so
 * failures count across instances. Its `limit` and window then apply.
 * @example
 * const guard = new AuthFailureGuard({ limiter: new SharedRateLimiter({ limit: 10, maxKeys: 20_000, counts }) });
 */
export interface AuthFailureLimiter {
  readonly limiter: RateLimiter;
}

/**
 * @example
 * const guard = new AuthFailureGuard({ limit: 10 });
 * const principal = await guard.attempt(guard.keys(ctx.remoteAddress, username), () => verify(...));
 */
export class AuthFailureGuard {
  readonly #limiter: RateLimiter;

  constructor(options: AuthFailureGuardOptions | AuthFailureLimiter) {
    this.#limiter =
      'limiter' in options
        ? options.limiter
        : new RateLimiter({ limit: options.limit, windowMs: options.windowMs ?? 60_000, maxKeys: 20_000 });
  }

  /** The counters an attempt of `account` from `address` is charged to. */
  keys(address: string | undefined, account?: string): string[] {
    const keys = [`client:${address ?? 'unknown'}`];
    if (account !== undefined && account.length > 0) keys.push(`account:${account}`);
    return keys;
  }

  /** @throws TooManyRequestsError when any of `keys` has used up its failed attempts. */
  check(keys: readonly string[]): void {
    for (const key of keys) {
      const d = this.#limiter.peek(key);
      if (!d.allowed) throw new TooManyRequestsError(d.retryAfterSeconds, 'Too many failed authentication attempts, retry later');
    }
  }

  /** Charges one failed attempt to each of `keys`. */
  failed(keys: readonly string[]): void {
    for (const key of keys) this.#limiter.take(key);
  }

  /**
   * Runs `attempt` unless `keys` are over their limit; a 401 or 403 it throws is counted as a
   * failure (other errors, e.g. 503 while hashing is saturated, are not the client's guess).
   */
  async attempt<T>(keys: readonly string[], attempt: () => T | Promise<T>): Promise<T> {
    this.check(keys);
    try {
      return await attempt();
    } catch (error) {
      if (error instanceof WebApplicationError && (error.status === 401 || error.status === 403)) this.failed(keys);
      throw error;
    }
  }
}
