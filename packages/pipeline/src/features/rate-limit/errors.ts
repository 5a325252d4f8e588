/** The stable codes of {@link RateLimitConfigurationError}. */
export type RateLimitConfigurationCode = 'PIPE_RATE_LIMIT_INVALID' | 'PIPE_RATE_LIMIT_NO_KEY';

/**
 * A rate limit the application cannot start with, thrown by `build()` (or by the feature's
 * constructor for its own options): the message names the class, the member and the fix.
 * @example
 * try { app.build(); } catch (e) { if (e instanceof RateLimitConfigurationError) console.error(e.code, e.message); }
 */
export class RateLimitConfigurationError extends TypeError {
  override readonly name = 'RateLimitConfigurationError';
  constructor(
    readonly code: RateLimitConfigurationCode,
    message: string,
  ) {
    super(message);
  }
}
