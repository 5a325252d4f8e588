/**
 * The JWS algorithms of RFC 7518 §3 (and EdDSA of RFC 8037 §3.1) on `node:crypto` alone, each
 * bound to the one key type it may be used with (RFC 8725 §2.1 and §3.1: the key decides the
 * algorithm family, never the token's header, so an RSA public key can never serve as an HMAC
 * secret). `none` is not an algorithm here at all.
 */
import { constants, createHmac, timingSafeEqual, verify as cryptoVerify, type KeyObject } from 'node:crypto';

/** The algorithms the verifier knows; a deployment allows some of them (`algorithms` option). */
export type JwtAlgorithm =
  'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512' | 'ES256' | 'ES384' | 'EdDSA' | 'HS256' | 'HS384' | 'HS512';

type Family = 'rsa' | 'pss' | 'ec' | 'eddsa' | 'hmac';

interface AlgorithmSpec {
  readonly family: Family;
  /** The digest, or null for EdDSA (Ed25519 hashes internally, RFC 8032 §5.1). */
  readonly hash: 'sha256' | 'sha384' | 'sha512' | null;
  /** ES*: the curve (RFC 7518 §3.4), by its OpenSSL name as `asymmetricKeyDetails` reports it. */
  readonly curve?: string;
  /** Bytes of the signature when fixed by the algorithm (ES*, EdDSA, HS*). */
  readonly signatureBytes?: number;
}

const SPECS: Readonly<Record<JwtAlgorithm, AlgorithmSpec>> = {
  RS256: { family: 'rsa', hash: 'sha256' },
  RS384: { family: 'rsa', hash: 'sha384' },
  RS512: { family: 'rsa', hash: 'sha512' },
  PS256: { family: 'pss', hash: 'sha256' },
  PS384: { family: 'pss', hash: 'sha384' },
  PS512: { family: 'pss', hash: 'sha512' },
  // JOSE ECDSA signatures are R || S, each the curve's size (RFC 7518 §3.4), not DER.
  ES256: { family: 'ec', hash: 'sha256', curve: 'prime256v1', signatureBytes: 64 },
  ES384: { family: 'ec', hash: 'sha384', curve: 'secp384r1', signatureBytes: 96 },
  EdDSA: { family: 'eddsa', hash: null, signatureBytes: 64 },
  // HMAC output is the hash size; RFC 7518 §3.2: the key at least as long as the output.
  HS256: { family: 'hmac', hash: 'sha256', signatureBytes: 32 },
  HS384: { family: 'hmac', hash: 'sha384', signatureBytes: 48 },
  HS512: { family: 'hmac', hash: 'sha512', signatureBytes: 64 },
};

/** Every algorithm the verifier implements. */
export const JWT_ALGORITHMS: readonly JwtAlgorithm[] = Object.freeze(Object.keys(SPECS) as JwtAlgorithm[]);

/** RFC 7518 §3.3 and §3.5: "A key of size 2048 bits or larger MUST be used". */
export const MIN_RSA_BITS = 2048;

export function isJwtAlgorithm(value: unknown): value is JwtAlgorithm {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(SPECS, value);
}

/**
 * A verification key, imported once: the `KeyObject` and the option objects `crypto.verify` takes,
 * built here so that a request allocates none of them.
 */
export interface VerificationKey {
  readonly kid: string | undefined;
  /** The JWK's `alg`, when it names one: the key is then usable with that algorithm only (RFC 7517 §4.4). */
  readonly alg: string | undefined;
  readonly key: KeyObject;
  /** The algorithms of the deployment's allow-list this key may verify. */
  readonly algorithms: ReadonlySet<JwtAlgorithm>;
  readonly pss: { key: KeyObject; padding: number; saltLength: number };
  readonly ieee: { key: KeyObject; dsaEncoding: 'ieee-p1363' };
}

/**
 * Why `key` cannot be used with `alg`, or undefined when it can: the key type of the algorithm's
 * family, RSA of at least 2048 bits, the curve of ES256/ES384, an HMAC secret at least the hash size.
 */
export function keyMismatch(alg: JwtAlgorithm, key: KeyObject): string | undefined {
  const spec = SPECS[alg];
  if (spec.family === 'hmac') {
    if (key.type !== 'secret') return `${alg} needs a secret, not a ${key.type} key`;
    const bytes = key.symmetricKeySize ?? 0;
    return bytes < spec.signatureBytes!
      ? `${alg} needs a secret of at least ${spec.signatureBytes} bytes (RFC 7518 §3.2), got ${bytes}`
      : undefined;
  }
  if (key.type !== 'public') return `${alg} needs a public key, not a ${key.type} key`;
  const type = key.asymmetricKeyType;
  const details = key.asymmetricKeyDetails ?? {};
  switch (spec.family) {
    case 'rsa':
    case 'pss': {
      // An 'rsa-pss' key is restricted to PSS (RFC 4055 §1.2), so RS* refuses it.
      const ok = type === 'rsa' || (spec.family === 'pss' && type === 'rsa-pss');
      if (!ok) return `${alg} needs an RSA key, not ${type ?? 'this key'}`;
      const bits = details.modulusLength ?? 0;
      return bits < MIN_RSA_BITS ? `${alg} needs an RSA key of at least ${MIN_RSA_BITS} bits (RFC 7518 §3.3), got ${bits}` : undefined;
    }
    case 'ec':
      if (type !== 'ec') return `${alg} needs an EC key, not ${type ?? 'this key'}`;
      return details.namedCurve === spec.curve
        ? undefined
        : `${alg} needs an EC key on ${curveName(spec.curve!)}, got ${details.namedCurve ?? 'another curve'}`;
    case 'eddsa':
      return type === 'ed25519' ? undefined : `${alg} needs an Ed25519 key, not ${type ?? 'this key'}`;
  }
}

function curveName(openssl: string): string {
  return openssl === 'prime256v1' ? 'P-256' : openssl === 'secp384r1' ? 'P-384' : openssl;
}

/** Imports `key` for the allowed algorithms it fits; the set is empty when it fits none. */
export function verificationKey(
  key: KeyObject,
  allowed: readonly JwtAlgorithm[],
  kid: string | undefined,
  alg: string | undefined,
): VerificationKey {
  const algorithms = new Set<JwtAlgorithm>();
  for (const a of allowed) if ((alg === undefined || alg === a) && keyMismatch(a, key) === undefined) algorithms.add(a);
  return {
    kid,
    alg,
    key,
    algorithms,
    pss: { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
    ieee: { key, dsaEncoding: 'ieee-p1363' },
  };
}

/** Does `signature` sign `input` under `key` with `alg`? The caller checked `key.algorithms.has(alg)`. */
export function verifySignature(alg: JwtAlgorithm, key: VerificationKey, input: Buffer, signature: Buffer): boolean {
  const spec = SPECS[alg];
  if (spec.signatureBytes !== undefined && signature.length !== spec.signatureBytes) return false;
  switch (spec.family) {
    case 'rsa':
      return cryptoVerify(spec.hash, input, key.key, signature);
    case 'pss':
      // RFC 7518 §3.5: MGF1 with the same hash, salt as long as the hash (SALTLEN_DIGEST enforces it).
      return cryptoVerify(spec.hash, input, key.pss, signature);
    case 'ec':
      return cryptoVerify(spec.hash, input, key.ieee, signature);
    case 'eddsa':
      return cryptoVerify(null, input, key.key, signature);
    case 'hmac': {
      const mac = createHmac(spec.hash!, key.key).update(input).digest();
      // Constant time (RFC 7518 §3.2's advice against timing attacks); the lengths were checked above.
      return timingSafeEqual(mac, signature);
    }
  }
}
