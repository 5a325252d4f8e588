/**
 * JWT verification (RFC 7519 §7.2) over JWS Compact Serialization (RFC 7515 §7.1), following the
 * JWT Best Current Practices (RFC 8725): an allow-list of algorithms, each tied to its key type;
 * strict base64url; `crit` refused; the signature checked before any claim is trusted; then
 * `exp`, `nbf`, `iat`, `iss`, `aud` and the required claims.
 */
import type { KeyObject } from 'node:crypto';
import { isJwtAlgorithm, JWT_ALGORITHMS, keyMismatch, verifySignature, type JwtAlgorithm, type VerificationKey } from './algorithms.js';
import { JwtConfigurationError, JwtVerificationError } from './errors.js';
import { importStaticKey, type JwtKeyInput } from './keys.js';
import { checkJwksUrl, jwksSettings, RemoteKeySet, type JwksOptions } from './remote-key-set.js';

/** The claims of a verified token (RFC 7519 §4): registered ones typed, any other as JSON. */
export interface JwtClaims {
  readonly iss?: string;
  readonly sub?: string;
  readonly aud?: string | readonly string[];
  readonly exp?: number;
  readonly nbf?: number;
  readonly iat?: number;
  readonly jti?: string;
  readonly [claim: string]: unknown;
}

/** The protected header of a verified token (RFC 7515 §4.1). */
export interface JwtHeader {
  readonly alg: JwtAlgorithm;
  readonly kid?: string;
  readonly typ?: string;
  readonly [parameter: string]: unknown;
}

/** Options of {@link JwtVerifier}. `algorithms` and a key source are required. */
export interface JwtVerifierOptions {
  /**
   * The algorithms this deployment accepts (RFC 8725 §3.1): no default, so that nothing is accepted
   * by accident. `none` is never an algorithm.
   */
  algorithms: readonly JwtAlgorithm[];
  /** Static keys (JWKs, PEM text, `KeyObject`s); each must fit at least one of `algorithms`. */
  keys?: readonly JwtKeyInput[];
  /** The issuer's JWK Set: https, or http to a loopback host. */
  jwksUrl?: string | URL;
  /** Bounds of the JWK Set fetch (deadline, size, cool-down, cache lifetime). */
  jwks?: JwksOptions;
  /** Accepted `iss` values; when set, `iss` is required and must be one of them. */
  issuer?: string | readonly string[];
  /** Accepted audiences; when set, `aud` is required and must contain one of them (RFC 7519 §4.1.3). */
  audience?: string | readonly string[];
  /** Tolerated clock difference for `exp`, `nbf` and `iat`, in seconds (RFC 7519 §4.1.4). Default 60. */
  clockToleranceSeconds?: number;
  /** Longest accepted token in bytes, checked before anything else. Default 8192. */
  maxTokenBytes?: number;
  /** Claims that must be present. Default `['exp']`: a token without an end is a password. */
  requiredClaims?: readonly string[];
  /** Expected `typ` header (e.g. `at+jwt` of RFC 9068); compared case-insensitively, `application/` optional. Unset: not checked. */
  typ?: string;
  /** The time in milliseconds since the epoch; for tests. Default `Date.now`. */
  clock?: () => number;
}

const B64URL = /^[A-Za-z0-9_-]*$/;

/**
 * Decodes one base64url segment strictly (RFC 7515 §2: no padding, no line breaks, no other
 * characters): `Buffer.from(s, 'base64url')` would skip what it does not know, so `a!b` would
 * decode like `ab`. A length of 4n+1 cannot be base64 at all.
 */
function segment(text: string): Buffer {
  if (!B64URL.test(text) || text.length % 4 === 1) throw new JwtVerificationError('malformed');
  return Buffer.from(text, 'base64url');
}

function jsonObject(bytes: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new JwtVerificationError('malformed');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new JwtVerificationError('malformed');
  return value as Record<string, unknown>;
}

function list(value: string | readonly string[] | undefined, option: string): ReadonlySet<string> | undefined {
  if (value === undefined) return undefined;
  const items = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(items) || items.length === 0 || items.some((v) => typeof v !== 'string' || v === '')) {
    throw new JwtConfigurationError(`JwtVerifier: ${option} must be a non-empty string or a non-empty list of them`);
  }
  return new Set(items);
}

function normalType(typ: string): string {
  const t = typ.toLowerCase();
  // RFC 7515 §4.1.9: "application/" may be left out of typ.
  return t.startsWith('application/') ? t.slice('application/'.length) : t;
}

const NUMERIC_CLAIMS = ['exp', 'nbf', 'iat'] as const;

/** Keys tried for one token; more only when the keys have `kid`s and the token names one. */
const MAX_KEYS_TRIED = 5;

/**
 * Verifies JWTs. Holds only configuration and the key cache: one instance serves every request
 * concurrently. Construction checks every option (throws {@link JwtConfigurationError}).
 * @example
 * const verifier = new JwtVerifier({ algorithms: ['RS256'], jwksUrl: 'https://issuer.example/jwks', issuer: 'https://issuer.example', audience: 'api' });
 * const claims = await verifier.verify(token); // throws JwtVerificationError
 */
export class JwtVerifier {
  private readonly algorithms: ReadonlySet<JwtAlgorithm>;
  private readonly staticKeys: readonly VerificationKey[];
  private readonly remote: RemoteKeySet | undefined;
  private readonly issuers: ReadonlySet<string> | undefined;
  private readonly audiences: ReadonlySet<string> | undefined;
  private readonly toleranceSeconds: number;
  private readonly maxTokenBytes: number;
  private readonly required: readonly string[];
  private readonly typ: string | undefined;
  private readonly clock: () => number;

  constructor(options: JwtVerifierOptions) {
    if (typeof options !== 'object' || options === null)
      throw new JwtConfigurationError('JwtVerifier: options are required (algorithms and keys or jwksUrl)');
    const algorithms = options.algorithms as readonly unknown[] | undefined;
    if (!Array.isArray(algorithms) || algorithms.length === 0) {
      throw new JwtConfigurationError(
        `JwtVerifier: algorithms is required, a non-empty list of ${JWT_ALGORITHMS.join(', ')}; there is no default that accepts everything`,
      );
    }
    for (const a of algorithms) {
      if (!isJwtAlgorithm(a)) {
        throw new JwtConfigurationError(
          `JwtVerifier: algorithms lists ${JSON.stringify(a)}, which is not one of ${JWT_ALGORITHMS.join(', ')}${a === 'none' ? ' (unsigned tokens are never accepted)' : ''}`,
        );
      }
    }
    const allowed = [...new Set(algorithms as JwtAlgorithm[])];
    this.algorithms = new Set(allowed);
    const mismatch = (key: KeyObject): string => allowed.map((a) => keyMismatch(a, key) ?? `${a} fits`).join('; ');
    this.staticKeys = (options.keys ?? []).map((k, i) => {
      try {
        return importStaticKey(k, allowed, `keys[${i}]`, mismatch);
      } catch (e) {
        throw new JwtConfigurationError(`JwtVerifier: ${(e as Error).message}`);
      }
    });
    const clock = options.clock ?? Date.now;
    if (typeof clock !== 'function') throw new JwtConfigurationError('JwtVerifier: clock must be a function returning milliseconds');
    this.clock = clock;
    this.remote = options.jwksUrl === undefined ? undefined : remoteKeySet(options.jwksUrl, options.jwks, allowed, clock);
    if (this.staticKeys.length === 0 && this.remote === undefined) {
      throw new JwtConfigurationError('JwtVerifier: no keys; give keys (JWKs, PEM text or KeyObjects) or jwksUrl');
    }
    this.issuers = list(options.issuer, 'issuer');
    this.audiences = list(options.audience, 'audience');
    this.toleranceSeconds = nonNegative(options.clockToleranceSeconds ?? 60, 'clockToleranceSeconds');
    this.maxTokenBytes = nonNegative(options.maxTokenBytes ?? 8192, 'maxTokenBytes');
    const required = options.requiredClaims ?? ['exp'];
    if (!Array.isArray(required) || required.some((c) => typeof c !== 'string' || c === '')) {
      throw new JwtConfigurationError('JwtVerifier: requiredClaims must be a list of claim names');
    }
    this.required = [...required];
    if (options.typ !== undefined && (typeof options.typ !== 'string' || options.typ === ''))
      throw new JwtConfigurationError('JwtVerifier: typ must be a non-empty string');
    this.typ = options.typ === undefined ? undefined : normalType(options.typ);
  }

  /**
   * The claims of `token` when it verifies.
   * @throws JwtVerificationError (its `failure` says which check refused the token)
   * @throws JwtKeySetUnavailableError when the key set is needed and could not be fetched
   */
  async verify(token: string): Promise<JwtClaims> {
    return (await this.verifyToken(token)).claims;
  }

  /** Like {@link verify}, with the protected header. */
  async verifyToken(token: string): Promise<{ header: JwtHeader; claims: JwtClaims }> {
    const { header, payload } = await this.verifySignature(token);
    const claims = jsonObject(payload) as JwtClaims;
    this.checkClaims(claims);
    return { header, claims };
  }

  /**
   * Checks the JWS layer only (RFC 7515 §5.2): shape, header, algorithm, key and signature, and
   * returns the payload bytes unread. For payloads that are not JWT claims sets.
   */
  async verifySignature(token: string): Promise<{ header: JwtHeader; payload: Buffer }> {
    // Size first: everything after costs in proportion to it (a header is at most 8 KiB in most servers anyway).
    if (typeof token !== 'string' || token.length > this.maxTokenBytes)
      throw new JwtVerificationError(typeof token === 'string' ? 'too-large' : 'malformed');
    const dot1 = token.indexOf('.');
    const dot2 = dot1 < 0 ? -1 : token.indexOf('.', dot1 + 1);
    // Exactly three parts: five would be JWE (RFC 7516 §7.1), which is not accepted here.
    if (dot1 <= 0 || dot2 < 0 || token.indexOf('.', dot2 + 1) >= 0 || dot2 === token.length - 1)
      throw new JwtVerificationError('malformed');
    const header = jsonObject(segment(token.slice(0, dot1)));
    const payload = segment(token.slice(dot1 + 1, dot2));
    const signatureText = token.slice(dot2 + 1);
    const signature = segment(signatureText);
    // A signature has one encoding: refuse the other spellings of its last bits (RFC 4648 §3.5).
    if (signature.toString('base64url') !== signatureText) throw new JwtVerificationError('malformed');

    const alg = header.alg;
    if (!isJwtAlgorithm(alg) || !this.algorithms.has(alg)) throw new JwtVerificationError('algorithm');
    // RFC 7515 §4.1.11: a critical extension the recipient does not understand makes the JWS invalid; none is understood here.
    if (header.crit !== undefined) throw new JwtVerificationError('critical');
    const kid = header.kid;
    if (kid !== undefined && typeof kid !== 'string') throw new JwtVerificationError('malformed');
    if (this.typ !== undefined && (typeof header.typ !== 'string' || normalType(header.typ) !== this.typ))
      throw new JwtVerificationError('type');

    const input = Buffer.from(token.slice(0, dot2), 'latin1');
    // The kid only selects among keys we hold: it is compared, never used in a path or a URL.
    const candidates = await this.candidates(kid);
    let tried = 0;
    for (const key of candidates) {
      if (!key.algorithms.has(alg)) continue;
      // Without a kid every fitting key is a candidate: bounded, so that a key set of hundreds of
      // keys cannot make one request cost hundreds of signature checks.
      if (++tried > MAX_KEYS_TRIED) break;
      if (verifies(alg, key, input, signature)) return { header: header as JwtHeader, payload };
    }
    const matched = tried > 0;
    throw new JwtVerificationError(matched ? 'signature' : 'no-key');
  }

  private async candidates(kid: string | undefined): Promise<readonly VerificationKey[]> {
    const local = kid === undefined ? this.staticKeys : this.staticKeys.filter((k) => k.kid === kid || k.kid === undefined);
    if (this.remote === undefined) return local;
    if (local.length > 0 && kid !== undefined && local.some((k) => k.kid === kid)) return local;
    const remote = await this.remote.candidates(kid);
    return local.length === 0 ? remote : [...local, ...remote];
  }

  /** RFC 7519 §7.2 step 10 and §4.1: the registered claims and the required ones. */
  private checkClaims(claims: JwtClaims): void {
    for (const name of this.required) if (claims[name] === undefined) throw new JwtVerificationError('missing-claim');
    for (const name of NUMERIC_CLAIMS) {
      const v = claims[name];
      if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v))) throw new JwtVerificationError('claim-type');
    }
    const now = this.clock() / 1000;
    const skew = this.toleranceSeconds;
    // §4.1.4: the current time MUST be before exp; §4.1.5: not before nbf.
    if (claims.exp !== undefined && now - skew >= claims.exp) throw new JwtVerificationError('expired');
    if (claims.nbf !== undefined && now + skew < claims.nbf) throw new JwtVerificationError('not-yet-valid');
    if (claims.iat !== undefined && claims.iat > now + skew) throw new JwtVerificationError('issued-in-future');
    if (this.issuers !== undefined && (typeof claims.iss !== 'string' || !this.issuers.has(claims.iss)))
      throw new JwtVerificationError('issuer');
    if (this.audiences !== undefined) {
      const aud: unknown = claims.aud;
      const auds = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
      if (!auds.some((a) => typeof a === 'string' && this.audiences!.has(a))) throw new JwtVerificationError('audience');
    }
    for (const name of ['iss', 'sub', 'jti'] as const) {
      if (claims[name] !== undefined && typeof claims[name] !== 'string') throw new JwtVerificationError('claim-type');
    }
  }
}

/** OpenSSL may throw rather than answer false on a signature it cannot parse: either way it does not verify. */
function verifies(alg: JwtAlgorithm, key: VerificationKey, input: Buffer, signature: Buffer): boolean {
  try {
    return verifySignature(alg, key, input, signature);
  } catch {
    return false;
  }
}

function nonNegative(value: number, option: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new JwtConfigurationError(`JwtVerifier: ${option} must be a non-negative number, got ${String(value)}`);
  return value;
}

/** The key set of `jwksUrl`, its URL and settings checked together (a `ca` needs an https URL). */
function remoteKeySet(
  jwksUrl: string | URL,
  jwks: JwksOptions | undefined,
  allowed: readonly JwtAlgorithm[],
  clock: () => number,
): RemoteKeySet {
  const url = checkJwksUrl(jwksUrl, 'JwtVerifier: jwksUrl');
  return new RemoteKeySet(url, jwksSettings(jwks, 'JwtVerifier: jwks', url), allowed, clock);
}
