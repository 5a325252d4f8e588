/**
 * Signed bearer tokens for `POST /api/auth/login` and `/api/protected/*` (`docs/api.md` rules 31 and 33).
 *
 * Compact-JWT shape `base64url(header).base64url(payload).base64url(signature)` with HMAC-SHA256.
 * The algorithm is fixed by the server and never read from the token before the signature is
 * checked (RFC 8725 §2.1, §3.1); the signature is checked before any claim is looked at.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { NotAuthorizedError } from '@jaxrs-node/pipeline';
import { AuthErrorCodes, Challenges, type Principal } from './principal.js';

/** Why a token was refused; for logs and tests, never sent to the client. */
export type InvalidTokenReason = 'malformed' | 'signature' | 'algorithm' | 'claims' | 'expired';

/**
 * 401 + `WWW-Authenticate: Bearer realm=..., error="invalid_token"` (RFC 6750 §3.1). `code` is
 * `invalid_token`, the value `docs/api.md` rule 33 wants in the body's `error` field.
 */
export class InvalidTokenError extends NotAuthorizedError {
  /** The failed check. (`reason` is taken: it is the status reason phrase of the base class.) */
  readonly failure: InvalidTokenReason;

  constructor(failure: InvalidTokenReason) {
    // One message for every reason: the client learns only that the token is unusable.
    super(Challenges.invalidToken, 'The access token is invalid or expired', { code: AuthErrorCodes.invalidToken });
    this.failure = failure;
  }
}

/** Claims carried by a token. Times are whole seconds since the epoch (RFC 7519 NumericDate). */
export interface TokenClaims {
  readonly sub: string;
  readonly roles: readonly string[];
  readonly iat: number;
  readonly exp: number;
}

/** Options of {@link TokenService}. */
export interface TokenServiceOptions {
  /** HMAC key, at least 32 bytes (RFC 7518 §3.2: key >= hash output size). */
  readonly secret: Buffer;
  /** Lifetime of issued tokens in seconds. */
  readonly ttlSeconds: number;
  /** Milliseconds since the epoch; injected so expiry is testable without sleeping. */
  readonly clock?: () => number;
}

const ALGORITHM = 'HS256';
/** Header is a constant: the server decides the algorithm, so it is encoded once. */
const ENCODED_HEADER = Buffer.from(JSON.stringify({ alg: ALGORITHM, typ: 'JWT' })).toString('base64url');
/**
 * Checked before any decoding: `Buffer.from(x, 'base64url')` silently drops characters outside the
 * alphabet, so without this `a!b` would decode like `ab` (Node's Buffer documentation, "base64url").
 */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
/** Tokens we issue are ~200 bytes; anything near header limits is not ours. */
const MAX_TOKEN_LENGTH = 4096;
/** Tolerated clock difference for `iat` in the future. */
const IAT_LEEWAY_SECONDS = 60;

function decodeJsonObject(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string' && item.length > 0);
}

/** Issues and verifies access tokens. Stateless: a token is valid until `exp` or a secret change. */
export class TokenService {
  /** Lifetime of issued tokens in seconds. */
  readonly ttlSeconds: number;
  readonly #secret: Buffer;
  readonly #clock: () => number;

  constructor(options: TokenServiceOptions) {
    if (options.secret.length < 32) throw new RangeError('token secret must be at least 32 bytes');
    if (!Number.isSafeInteger(options.ttlSeconds) || options.ttlSeconds < 1) throw new RangeError('ttlSeconds must be a positive integer');
    this.#secret = Buffer.from(options.secret);
    this.ttlSeconds = options.ttlSeconds;
    this.#clock = options.clock ?? Date.now;
  }

  /**
   * Signs a token for `principal`.
   * @example const token = tokens.issue({ name: 'admin', roles: ['ADMIN'] });
   */
  issue(principal: Principal): string {
    const iat = this.#nowSeconds();
    const claims: TokenClaims = { sub: principal.name, roles: [...principal.roles], iat, exp: iat + this.ttlSeconds };
    const signingInput = `${ENCODED_HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return `${signingInput}.${this.#sign(signingInput)}`;
  }

  /**
   * Returns the principal of a valid token. Checks, in order: shape, signature, algorithm,
   * claims, expiry.
   * @throws {InvalidTokenError} with the failing check as `failure`.
   */
  verify(token: string): Principal {
    const claims = this.verifyClaims(token);
    return { name: claims.sub, roles: claims.roles };
  }

  /** Like {@link verify} but returns all claims. @throws {InvalidTokenError} */
  verifyClaims(token: string): TokenClaims {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH || !TOKEN_SHAPE.test(token)) {
      throw new InvalidTokenError('malformed');
    }
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const expected = this.#sign(`${header}.${payload}`);
    // Comparing the canonical encodings (not decoded bytes) also rejects re-encoded signatures.
    // The length check first: timingSafeEqual throws on unequal lengths; the length is public.
    if (signature.length !== expected.length || !timingSafeEqual(Buffer.from(signature), Buffer.from(expected))) {
      throw new InvalidTokenError('signature');
    }
    const headerFields = decodeJsonObject(header);
    if (headerFields === undefined) throw new InvalidTokenError('malformed');
    if (headerFields['alg'] !== ALGORITHM) throw new InvalidTokenError('algorithm');

    const body = decodeJsonObject(payload);
    if (body === undefined) throw new InvalidTokenError('malformed');
    const { sub, roles, iat, exp } = body;
    if (
      typeof sub !== 'string' ||
      sub.length === 0 ||
      !isStringArray(roles) ||
      !Number.isSafeInteger(iat) ||
      !Number.isSafeInteger(exp) ||
      (exp as number) <= (iat as number)
    ) {
      throw new InvalidTokenError('claims');
    }
    const now = this.#nowSeconds();
    if ((iat as number) > now + IAT_LEEWAY_SECONDS) throw new InvalidTokenError('claims');
    // RFC 7519 §4.1.4: not accepted "on or after" exp.
    if (now >= (exp as number)) throw new InvalidTokenError('expired');
    return { sub, roles: Object.freeze([...roles]), iat: iat as number, exp: exp as number };
  }

  #sign(signingInput: string): string {
    return createHmac('sha256', this.#secret).update(signingInput).digest('base64url');
  }

  #nowSeconds(): number {
    return Math.floor(this.#clock() / 1000);
  }
}
