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
 *
 * Across instances (a `SharedRateLimiter`), every failure is published before its answer, and a
 * check exchanges the key's counts once it is within the limiter's `syncMargin` of the limit, so a
 * client whose attempts do not overlap is refused on any instance once it used up its failures:
 * a wrong guess that fresh counts show came past the limit is answered 429, not 401/403, and is
 * not counted. A RIGHT guess can only slip through where the check decided alone (the instance
 * knew of fewer than limit - syncMargin failures) while the others had already seen the limit.
 */
import { TooManyRequestsError, WebApplicationError } from '@jaxrs-node/pipeline';
import { RateLimiter, type RateLimitDecision } from '../limits/rate-limit.js';
import { SharedRateLimiter } from '../limits/rate-limit-shared.js';

/** Options of {@link AuthFailureGuard}. */
export interface AuthFailureGuardOptions {
  /** Failed attempts allowed per client and per account within `windowMs`, >= 1. */
  readonly limit: number;
  /** Window length in ms; default 60 000. */
  readonly windowMs?: number;
}

/**
 * The limiter to count failures in, instead of a private one: e.g. a `SharedRateLimiter`, so
 * failures count across instances. Its `limit` and window then apply. Give a shared one a
 * `syncMargin` below its limit (e.g. half of it), else every credentialed request exchanges counts.
 * @example
 * const guard = new AuthFailureGuard({ limiter: new SharedRateLimiter({ limit: 10, syncMargin: 5, maxKeys: 20_000, counts }) });
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
    const limiter = this.#limiter;
    if (limiter instanceof SharedRateLimiter) return attemptShared(limiter, keys, attempt);
    this.check(keys);
    try {
      return await attempt();
    } catch (error) {
      if (error instanceof WebApplicationError && (error.status === 401 || error.status === 403)) this.failed(keys);
      throw error;
    }
  }
}

function tooMany(decision: RateLimitDecision): TooManyRequestsError {
  return new TooManyRequestsError(decision.retryAfterSeconds, 'Too many failed authentication attempts, retry later');
}

/** A 401 or 403: the client's guess was wrong (not e.g. a 503 while hashing is saturated). */
function isGuessError(error: unknown): boolean {
  return error instanceof WebApplicationError && (error.status === 401 || error.status === 403);
}

/** {@link AuthFailureGuard.attempt} on a limiter shared by several instances (see the module comment). */
async function attemptShared<T>(limiter: SharedRateLimiter, keys: readonly string[], attempt: () => T | Promise<T>): Promise<T> {
  const checked = await Promise.all(keys.map(async (key) => limiter.peekShared(key)));
  const over = checked.find((decision) => !decision.allowed);
  if (over !== undefined) throw tooMany(over);
  try {
    return await attempt();
  } catch (error) {
    if (!isGuessError(error)) throw error;
    const counted = await Promise.all(keys.map(async (key) => limiter.takeShared(key, { fresh: true })));
    const refused = counted.find((decision) => !decision.allowed);
    throw refused === undefined ? error : tooMany(refused);
  }
}
