/**
 * JWT bearer authentication (RFC 7519, 7515, 7517, 6750) on `node:crypto`: {@link JwtAuthFilter}
 * fills the security context from `Authorization: Bearer` tokens; {@link JwtVerifier} verifies
 * tokens anywhere. See docs/jwt.md.
 */
export { JwtAuthFilter, JwtInvalidTokenError } from './jwt-auth-filter.js';
export type { FailedAuthCounter, JwtAuthOptions, JwtPrincipal, JwtRolesClaim } from './jwt-auth-filter.js';
export { JwtVerifier } from './jwt-verifier.js';
export type { JwtClaims, JwtHeader, JwtVerifierOptions } from './jwt-verifier.js';
export { JWT_ALGORITHMS } from './algorithms.js';
export type { JwtAlgorithm } from './algorithms.js';
export type { JwtKeyInput } from './keys.js';
export type { JwksOptions } from './remote-key-set.js';
export { JwtConfigurationError, JwtKeySetUnavailableError, JwtVerificationError } from './errors.js';
export type { JwtFailure } from './errors.js';
