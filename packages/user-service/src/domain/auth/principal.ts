/**
 * Shared vocabulary of the three authentication schemes (`docs/api.md` rules 30-35): the principal
 * every scheme yields, the role names, the `WWW-Authenticate` challenges and the errors the HTTP
 * layer sends. Kept free of crypto so every other auth module can import it without cycles.
 */
import { ForbiddenError, NotAuthorizedError } from '@jaxrs-node/pipeline';

/** An authenticated caller. `name` is safe to log; it never contains a secret. */
export interface Principal {
  readonly name: string;
  readonly roles: readonly string[];
}

/** Role names. A regular user carries `USER` (`docs/api.md` rule 9); the Basic admin carries `ADMIN`. */
export const Roles = {
  ADMIN: 'ADMIN',
  USER: 'USER',
  API_CLIENT: 'API_CLIENT',
} as const;

/** Protection space named in every challenge (RFC 9110 §11.5). */
export const AUTH_REALM = 'user-service';

/**
 * `WWW-Authenticate` values. Basic clients (REST Assured, browsers, the JDK client) only send
 * credentials after a 401 carrying the Basic challenge, so it must be present on every Basic 401.
 * `charset="UTF-8"` announces how we decode user-id and password (RFC 7617 §2.1).
 */
export const Challenges = {
  basic: `Basic realm="${AUTH_REALM}", charset="UTF-8"`,
  /** Missing bearer token: no error code (RFC 6750 §3.1). */
  bearer: `Bearer realm="${AUTH_REALM}"`,
  /** Wrong, tampered or expired bearer token (RFC 6750 §3.1). */
  invalidToken: `Bearer realm="${AUTH_REALM}", error="invalid_token"`,
  /** The API-key filter's refusal (`docs/api.md` rule 34). */
  apiKey: 'API-Key',
} as const;

/** Stable error codes; `invalid_token` doubles as the body's `error` value (`docs/api.md` rule 33). */
export const AuthErrorCodes = {
  basicRequired: 'AUTH_BASIC_REQUIRED',
  bearerRequired: 'AUTH_BEARER_REQUIRED',
  invalidToken: 'invalid_token',
  loginFailed: 'AUTH_LOGIN_FAILED',
  apiKeyRequired: 'AUTH_API_KEY_REQUIRED',
  apiKeyInvalid: 'AUTH_API_KEY_INVALID',
} as const;

/**
 * 401 for missing or wrong Basic credentials. One message for both so the body does not say
 * which part was wrong.
 */
export function basicAuthRequired(): NotAuthorizedError {
  return new NotAuthorizedError(Challenges.basic, 'Authentication required', {
    code: AuthErrorCodes.basicRequired,
  });
}

/** 401 for a request without a bearer token (RFC 6750 §3.1: no `error` attribute). */
export function bearerRequired(): NotAuthorizedError {
  return new NotAuthorizedError(Challenges.bearer, 'Bearer token required', {
    code: AuthErrorCodes.bearerRequired,
  });
}

/**
 * 401 for a failed `POST /api/auth/login`. Same message for unknown user and wrong password
 * (OWASP Authentication Cheat Sheet: both failures answer the same body).
 */
export function loginFailed(): NotAuthorizedError {
  return new NotAuthorizedError(Challenges.bearer, 'Invalid username or password', {
    code: AuthErrorCodes.loginFailed,
  });
}

/** 401 + `WWW-Authenticate: API-Key` for a request without `X-API-Key` (`docs/api.md` rule 34). */
export function apiKeyRequired(): NotAuthorizedError {
  return new NotAuthorizedError(Challenges.apiKey, 'API key required', {
    code: AuthErrorCodes.apiKeyRequired,
  });
}

/** 403 with message `Forbidden` for a present but unknown API key (`docs/api.md` rule 34). */
export function apiKeyForbidden(): ForbiddenError {
  return new ForbiddenError('Forbidden', { code: AuthErrorCodes.apiKeyInvalid });
}
