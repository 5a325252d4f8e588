/**
 * The JWT feature's own errors. They are not HTTP errors: {@link JwtAuthFilter} turns a
 * {@link JwtVerificationError} into 401 `invalid_token` and a {@link JwtKeySetUnavailableError}
 * into 503, so a verifier used outside a request (a job, a WebSocket upgrade) decides for itself.
 */

/**
 * Why a token was refused: for logs, metrics and tests, never sent to the client (RFC 6750 §3.1
 * lets a server describe the error; naming the failed check would tell an attacker which part of
 * a forgery to fix next, so the response says only `invalid_token`).
 */
export type JwtFailure =
  | 'malformed'
  | 'too-large'
  | 'algorithm'
  | 'critical'
  | 'type'
  | 'no-key'
  | 'signature'
  | 'expired'
  | 'not-yet-valid'
  | 'issued-in-future'
  | 'issuer'
  | 'audience'
  | 'missing-claim'
  | 'claim-type';

/** A token that does not verify; `failure` says which check refused it. */
export class JwtVerificationError extends Error {
  constructor(readonly failure: JwtFailure) {
    // One message whatever the failure: it may end up in a response or a log line read by others.
    super('The token is invalid');
    this.name = 'JwtVerificationError';
  }
}

/**
 * The JWKS could not be fetched and no key set is at hand (never fetched, or refused): the
 * server's problem, not the client's, so the filter answers 503 rather than 401 (a 401 would make
 * a client throw away a good token and log in again, for nothing).
 */
export class JwtKeySetUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'JwtKeySetUnavailableError';
  }
}

/**
 * A JWT option that cannot work, thrown by the constructor (so before `build()`, at start-up):
 * the message names the class, the option and the fix. `code` is stable.
 */
export class JwtConfigurationError extends TypeError {
  readonly code = 'PIPE_JWT_CONFIG';
  constructor(message: string) {
    super(message);
    this.name = 'JwtConfigurationError';
  }
}
