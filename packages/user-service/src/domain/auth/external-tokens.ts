/**
 * Bearer tokens of an external issuer (an OpenID Connect provider, an API gateway): JWTs verified
 * by the pipeline's `JwtVerifier` against the issuer's JWK Set, accepted on `/api/protected/*`
 * beside the service's own tokens (README, "Tokens of an external issuer").
 */
import {
  JwtKeySetUnavailableError,
  JwtVerificationError,
  JwtVerifier,
  ServiceUnavailableError,
  type JwtAlgorithm,
} from '@jaxrs-node/pipeline';
import { InvalidTokenError } from './bearer-tokens.js';
import type { Principal } from './principal.js';

/** Where the external issuer's tokens come from (`JWT_ISSUER`, `JWT_AUDIENCE`, `JWKS_URL`). */
export interface ExternalIssuerConfig {
  readonly issuer: string;
  readonly audience: string;
  readonly jwksUrl: string;
}

/**
 * Signature algorithms with public keys only: a JWK Set publishes no secrets, and HS* would need
 * one shared with the issuer (RFC 8725 §3.1: the allow-list is the deployment's).
 */
const ALGORITHMS: readonly JwtAlgorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'EdDSA'];

/** Principal names of external callers start with this, so that they never share a local account's name (nor its rate-limit bucket). */
export const EXTERNAL_PRINCIPAL_PREFIX = 'jwt:';

/** Verifies external tokens into the service's {@link Principal}. */
export class ExternalTokens {
  readonly #verifier: JwtVerifier;

  constructor(config: ExternalIssuerConfig, options: { clock?: () => number } = {}) {
    this.#verifier = new JwtVerifier({
      algorithms: ALGORITHMS,
      jwksUrl: config.jwksUrl,
      issuer: config.issuer,
      audience: config.audience,
      requiredClaims: ['exp', 'sub'],
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
  }

  /**
   * The principal of an external token: `jwt:` + `sub`, the roles of its `roles` claim (an array of
   * strings; absent means none).
   * @throws {InvalidTokenError} when it does not verify (401 `invalid_token`, like the service's own tokens)
   * @throws {ServiceUnavailableError} 503 when the issuer's key set cannot be fetched: the token may be good
   */
  async verify(token: string): Promise<Principal> {
    try {
      const claims = await this.#verifier.verify(token);
      const roles: unknown = claims['roles'] ?? [];
      if (!Array.isArray(roles) || !roles.every((r) => typeof r === 'string') || claims.sub === '') throw new InvalidTokenError('claims');
      return { name: `${EXTERNAL_PRINCIPAL_PREFIX}${claims.sub!}`, roles: roles as string[] };
    } catch (e) {
      if (e instanceof JwtVerificationError) throw new InvalidTokenError(e.failure === 'expired' ? 'expired' : 'signature');
      if (e instanceof JwtKeySetUnavailableError) {
        throw new ServiceUnavailableError('The issuer keys are unavailable, retry later', {
          code: 'AUTH_KEYS_UNAVAILABLE',
          retryAfterSeconds: 5,
          cause: e,
        });
      }
      throw e;
    }
  }
}
