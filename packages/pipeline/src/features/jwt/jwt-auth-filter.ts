/**
 * `Authorization: Bearer` JWTs (RFC 6750 §2.1) as a request filter that fills the security
 * context, so that `@RolesAllowed` and `@Context() SecurityContext` work unchanged.
 */
import { NotAuthorizedError, ServiceUnavailableError } from '../../core/http/errors.js';
import { SecurityContext, type Principal } from '../../core/context/security-context.js';
import { Priorities } from '../../core/util/priorities.js';
import type { ContainerRequestFilter, ContainerResponseContext, ContainerResponseFilter } from '../../core/context/contracts.js';
import type { ContainerRequestContext } from '../../core/context/request-context.js';
import { Priority } from '../../decorators/provider.js';
import { JwtConfigurationError, JwtKeySetUnavailableError, JwtVerificationError } from './errors.js';
import { JwtVerifier, type JwtClaims, type JwtVerifierOptions } from './jwt-verifier.js';

/** The caller a verified token names, with every claim of the token. */
export interface JwtPrincipal extends Principal {
  readonly name: string;
  readonly claims: JwtClaims;
}

/** Where the roles are in the claims, and how they are written. */
export interface JwtRolesClaim {
  /** A claim name, or a path into nested objects (`['realm_access', 'roles']`). Default `roles`. */
  claim?: string | readonly string[];
  /** `array` (a JSON array of strings, the default) or `space-separated` (OAuth `scope`, RFC 8693 §4.2). */
  format?: 'array' | 'space-separated';
}

/** Options of {@link JwtAuthFilter}: the verifier's and how a token becomes a security context. */
export interface JwtAuthOptions extends JwtVerifierOptions {
  /** The claim naming the caller (`SecurityContext.principal.name`). Default `sub`. */
  principalClaim?: string;
  /** The roles `@RolesAllowed` checks. Default `{ claim: 'roles', format: 'array' }`. */
  roles?: JwtRolesClaim;
  /** `realm` of the `WWW-Authenticate` challenges (RFC 6750 §3). Default none. */
  realm?: string;
  /**
   * A request without a bearer token: `false` (default) leaves it anonymous, for `@RolesAllowed`
   * (or the method) to decide; `true` answers 401 `WWW-Authenticate: Bearer` at once.
   */
  required?: boolean;
  /**
   * Failed-authentication limits shared with the application's other schemes (a
   * `FailedAuthLimiter`): an address that used up its failed attempts gets 429 before its token is
   * verified, and every token that does not verify counts against it. Default none.
   * @example const failures = new FailedAuthLimiter({ limit: 10 }); new JwtAuthFilter({ algorithms: ['ES256'], keys, failedAuth: failures });
   */
  failedAuth?: FailedAuthCounter;
}

/** The part of `FailedAuthLimiter` (rate-limit feature) the JWT filter uses; any scheme's limiter of that shape works. */
export interface FailedAuthCounter {
  keys(address: string | undefined, account?: string): string[];
  check(keys: readonly string[]): Promise<void>;
  failed(keys: readonly string[]): Promise<void>;
}

/** A 401 with `WWW-Authenticate: Bearer ... error="invalid_token"`: one message, whatever failed. */
export class JwtInvalidTokenError extends NotAuthorizedError {
  /** The failed check, for logs and tests; never sent. */
  readonly failure: JwtVerificationError['failure'];
  constructor(challenge: string, cause: JwtVerificationError) {
    super(challenge, 'The access token is invalid or expired', { code: 'PIPE_JWT_INVALID', cause });
    this.failure = cause.failure;
  }
}

/** RFC 6750 §2.1: `Bearer`, case-insensitive, one or more spaces, the token. */
const BEARER = /^bearer(?:[ \t]+(.*))?$/is;

/** Header values cannot carry CR/LF or other control characters (RFC 9110 §5.5). */
function quoted(value: string, option: string): string {
  if (/[\x00-\x1f\x7f"\\]/.test(value))
    throw new JwtConfigurationError(`JwtAuthFilter: ${option} must not contain quotes, backslashes or control characters`);
  return `"${value}"`;
}

/**
 * Verifies `Authorization: Bearer <JWT>` and sets `ctx.securityContext` (scheme `Bearer`):
 * the principal's name from `principalClaim` (default `sub`), the roles from `roles`, every claim
 * in `principal.claims`. Refusals follow RFC 6750 §3.1: a token that does not verify is 401
 * `WWW-Authenticate: Bearer error="invalid_token"` (`PIPE_JWT_INVALID`, one message whatever
 * failed); a missing token, when `required`, 401 `WWW-Authenticate: Bearer` without an error code
 * (`PIPE_JWT_MISSING`); a key set that cannot be fetched, 503 (`PIPE_JWT_KEYS_UNAVAILABLE`): the
 * server's problem, so the client keeps its token and retries. As a response filter it adds
 * `WWW-Authenticate: Bearer error="insufficient_scope"` to a 403 answered to a caller it
 * authenticated (`@RolesAllowed` without the role). Runs at AUTHENTICATION priority.
 * @example
 * new Application({
 *   resources: [Reports],
 *   providers: [new JwtAuthFilter({ algorithms: ['RS256'], jwksUrl: 'https://id.example/jwks', issuer: 'https://id.example', audience: 'reports' }), new RolesAllowedFeature()],
 * });
 */
@Priority(Priorities.AUTHENTICATION)
export class JwtAuthFilter implements ContainerRequestFilter, ContainerResponseFilter {
  /** The verifier, for use outside requests. */
  readonly verifier: JwtVerifier;
  private readonly principalClaim: string;
  private readonly rolesPath: readonly string[];
  private readonly spaceSeparated: boolean;
  private readonly required: boolean;
  private readonly failedAuth: FailedAuthCounter | undefined;
  private readonly missingChallenge: string;
  private readonly invalidChallenge: string;
  private readonly scopeChallenge: string;
  /** The contexts this filter made: a 403 to one of them gets the insufficient_scope challenge. */
  private readonly mine = new WeakSet<SecurityContext>();

  constructor(options: JwtAuthOptions) {
    this.verifier = new JwtVerifier(options);
    const principalClaim = options.principalClaim ?? 'sub';
    if (typeof principalClaim !== 'string' || principalClaim === '')
      throw new JwtConfigurationError('JwtAuthFilter: principalClaim must be a claim name');
    this.principalClaim = principalClaim;
    const claim = options.roles?.claim ?? 'roles';
    const path = typeof claim === 'string' ? [claim] : [...claim];
    if (path.length === 0 || path.some((p) => typeof p !== 'string' || p === '')) {
      throw new JwtConfigurationError('JwtAuthFilter: roles.claim must be a claim name or a non-empty list of names');
    }
    this.rolesPath = path;
    const format = options.roles?.format ?? 'array';
    if (format !== 'array' && format !== 'space-separated')
      throw new JwtConfigurationError(`JwtAuthFilter: roles.format must be 'array' or 'space-separated'`);
    this.spaceSeparated = format === 'space-separated';
    this.required = options.required ?? false;
    this.failedAuth = options.failedAuth;
    const realm = options.realm === undefined ? '' : `realm=${quoted(options.realm, 'realm')}`;
    this.missingChallenge = realm === '' ? 'Bearer' : `Bearer ${realm}`;
    const prefix = realm === '' ? 'Bearer ' : `Bearer ${realm}, `;
    this.invalidChallenge = `${prefix}error="invalid_token"`;
    this.scopeChallenge = `${prefix}error="insufficient_scope"`;
  }

  filterRequest(ctx: ContainerRequestContext): void | Promise<void> {
    const header = ctx.getHeader('authorization');
    const token = header === undefined ? undefined : bearerToken(header);
    if (token === undefined) {
      if (this.required) throw new NotAuthorizedError(this.missingChallenge, 'Bearer token required', { code: 'PIPE_JWT_MISSING' });
      return;
    }
    if (this.failedAuth !== undefined) return this.limited(ctx, token, this.failedAuth);
    return this.authenticate(token).then((sc) => {
      ctx.securityContext = sc;
    });
  }

  /** {@link filterRequest} under failed-authentication limits: refused before verifying when over, a bad token counted. */
  private async limited(ctx: ContainerRequestContext, token: string, failures: FailedAuthCounter): Promise<void> {
    const keys = failures.keys(ctx.remoteAddress);
    await failures.check(keys);
    try {
      ctx.securityContext = await this.authenticate(token);
    } catch (e) {
      // Only a token that does not verify is a failed attempt (an unreachable key set is not the client's).
      if (e instanceof JwtInvalidTokenError) await failures.failed(keys);
      throw e;
    }
  }

  filterResponse(request: ContainerRequestContext, response: ContainerResponseContext): void {
    // RFC 6750 §3.1: insufficient_scope, "SHOULD respond with the HTTP 403 (Forbidden) status code".
    if (response.status === 403 && response.headers['www-authenticate'] === undefined && this.mine.has(request.securityContext)) {
      response.headers['www-authenticate'] = this.scopeChallenge;
    }
  }

  /**
   * The security context of a bearer token, for a filter of your own that accepts JWTs beside
   * other credentials.
   * @throws JwtInvalidTokenError (401) when the token does not verify or its principal or roles
   *   claim is missing or of the wrong type; ServiceUnavailableError (503) when the key set cannot be fetched.
   */
  async authenticate(token: string): Promise<SecurityContext> {
    let claims: JwtClaims;
    try {
      claims = await this.verifier.verify(token);
    } catch (e) {
      throw this.httpError(e);
    }
    const name = claims[this.principalClaim];
    if (typeof name !== 'string' || name === '')
      throw new JwtInvalidTokenError(this.invalidChallenge, new JwtVerificationError('missing-claim'));
    const roles = this.rolesOf(claims);
    const principal: JwtPrincipal = Object.freeze({ name, claims: Object.freeze(claims) });
    const sc = SecurityContext.of(principal, roles, 'Bearer');
    this.mine.add(sc);
    return sc;
  }

  private httpError(e: unknown): Error {
    if (e instanceof JwtVerificationError) return new JwtInvalidTokenError(this.invalidChallenge, e);
    if (e instanceof JwtKeySetUnavailableError) {
      return new ServiceUnavailableError('The keys to verify the token are unavailable', {
        code: 'PIPE_JWT_KEYS_UNAVAILABLE',
        cause: e,
        retryAfterSeconds: 5,
      });
    }
    return e instanceof Error ? e : new Error(String(e));
  }

  private rolesOf(claims: JwtClaims): readonly string[] {
    let value: unknown = claims;
    for (const step of this.rolesPath) {
      value = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[step] : undefined;
    }
    if (value === undefined) return [];
    if (this.spaceSeparated && typeof value === 'string') return value.split(' ').filter((r) => r !== '');
    if (!this.spaceSeparated && Array.isArray(value) && value.every((r) => typeof r === 'string')) return value as string[];
    // Present but not what the issuer was configured to send: refuse rather than guess.
    throw new JwtInvalidTokenError(this.invalidChallenge, new JwtVerificationError('claim-type'));
  }
}

/** The token of a Bearer credential, undefined for another scheme (then the request carries no bearer token). */
function bearerToken(header: string): string | undefined {
  const m = BEARER.exec(header);
  if (m === null) return undefined;
  // An empty or garbled value is still a bearer credential: invalid (401 invalid_token), not missing.
  return (m[1] ?? '').trim();
}
