/**
 * One function per scheme that turns request header values into a principal or throws the HTTP
 * error `docs/api.md` prescribes (rules 32-35). The HTTP layer's request filters call these; they know nothing of
 * requests themselves, so they stay framework-free and unit-testable.
 */
import { apiKeyForbidden, apiKeyRequired, basicAuthRequired, bearerRequired, type Principal } from './principal.js';
import type { ApiKeyVerifier, BasicAuthenticator } from './credentials.js';
import { InvalidTokenError, type TokenService } from './bearer-tokens.js';
import type { ExternalTokens } from './external-tokens.js';

/** RFC 6750 §2.1: `Bearer` (case-insensitive), one or more spaces, the token. */
const BEARER = /^bearer(?: +(.*))?$/is;

/**
 * Extracts the token of a Bearer `Authorization` value.
 * Returns undefined when the header is absent or uses another scheme (the request carries no
 * bearer credentials: 401 without `error`), and the raw token otherwise, even if it is empty or
 * garbage, so that verification answers `invalid_token` for it.
 * @example readBearerToken('Bearer abc.def.ghi') // 'abc.def.ghi'
 */
export function readBearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = BEARER.exec(authorization.trim());
  return match === null ? undefined : (match[1] ?? '');
}

/**
 * `/api/admin/*`: Basic credentials of the admin account.
 * @throws {NotAuthorizedError} 401 + `WWW-Authenticate: Basic realm=...` when missing or wrong.
 */
export async function requireBasic(authenticator: BasicAuthenticator, authorization: string | undefined): Promise<Principal> {
  const principal = await authenticator.authenticate(authorization);
  if (principal === null) throw basicAuthRequired();
  return principal;
}

/**
 * `/api/protected/*`: a bearer token issued by {@link TokenService.issue}, or, when an external
 * issuer is configured, one of its JWTs (tried when the token is not one of ours).
 * @throws {NotAuthorizedError} 401 `Bearer realm=...` when absent; {@link InvalidTokenError}
 *   (401, `error="invalid_token"`) when wrong, tampered or expired; 503 when the external
 *   issuer's keys cannot be fetched.
 */
export function requireBearer(
  tokens: TokenService,
  authorization: string | undefined,
  external?: ExternalTokens | null,
): Principal | Promise<Principal> {
  const token = readBearerToken(authorization);
  if (token === undefined) throw bearerRequired();
  if (external === undefined || external === null) return tokens.verify(token);
  try {
    return tokens.verify(token);
  } catch (e) {
    if (!(e instanceof InvalidTokenError)) throw e;
    return external.verify(token);
  }
}

/**
 * `/api/external/*`: the `X-API-Key` header. Node joins repeated headers with `, `, which then
 * fails as an unknown key: a request must carry exactly one key.
 * @throws {NotAuthorizedError} 401 + `WWW-Authenticate: API-Key` when the header is missing or empty.
 * @throws {ForbiddenError} 403 `Forbidden` when the key is not configured (`docs/api.md` rule 34).
 */
export function requireApiKey(verifier: ApiKeyVerifier, apiKey: string | string[] | undefined): Principal {
  const value = Array.isArray(apiKey) ? apiKey.join(', ') : apiKey;
  if (value === undefined || value.trim().length === 0) throw apiKeyRequired();
  const principal = verifier.authenticate(value);
  if (principal === null) throw apiKeyForbidden();
  return principal;
}
