/** Signing JWTs in tests with `node:crypto` only, for every algorithm the verifier accepts. */
import { constants, createHmac, createSecretKey, generateKeyPairSync, randomBytes, sign as cryptoSign, type KeyObject } from 'node:crypto';
import type { JwtAlgorithm } from '../../src/index.js';

const HASH: Record<JwtAlgorithm, 'sha256' | 'sha384' | 'sha512' | null> = {
  RS256: 'sha256',
  RS384: 'sha384',
  RS512: 'sha512',
  PS256: 'sha256',
  PS384: 'sha384',
  PS512: 'sha512',
  ES256: 'sha256',
  ES384: 'sha384',
  EdDSA: null,
  HS256: 'sha256',
  HS384: 'sha384',
  HS512: 'sha512',
};

export const b64 = (value: string | Buffer | object): string =>
  Buffer.from(typeof value === 'string' || Buffer.isBuffer(value) ? value : JSON.stringify(value)).toString('base64url');

/** A signature of `input` with `key` as JOSE writes it (R || S for ECDSA, RFC 7518 §3.4). */
export function signature(alg: string, input: string, key: KeyObject): Buffer {
  const hash = alg in HASH ? HASH[alg as JwtAlgorithm] : 'sha256';
  if (alg.startsWith('HS')) return createHmac(hash!, key).update(input).digest();
  if (alg.startsWith('PS'))
    return cryptoSign(hash, Buffer.from(input), {
      key,
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
    });
  if (alg.startsWith('ES')) return cryptoSign(hash, Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  return cryptoSign(hash, Buffer.from(input), key);
}

/** A compact JWS of `claims` with header `{ alg, ...header }`. */
export function signJwt(alg: string, key: KeyObject, claims: object, header: object = {}): string {
  const input = `${b64({ alg, ...header })}.${b64(claims)}`;
  return `${input}.${signature(alg, input, key).toString('base64url')}`;
}

export interface TestKey {
  readonly alg: JwtAlgorithm;
  /** The signing key (private, or the secret). */
  readonly signing: KeyObject;
  /** What the verifier is given (public key, or the secret). */
  readonly verifying: KeyObject;
}

const made = new Map<string, { privateKey: KeyObject; publicKey: KeyObject }>();

/**
 * Key number `n` for `alg` (RS* and PS* share RSA keys): generated once per test file, since an
 * RSA key takes hundreds of milliseconds to make.
 */
export function keyFor(alg: JwtAlgorithm, n = 0): TestKey {
  if (alg.startsWith('HS')) {
    const secret = createSecretKey(randomBytes(64));
    return { alg, signing: secret, verifying: secret };
  }
  const family = alg.startsWith('RS') || alg.startsWith('PS') ? 'rsa' : alg;
  const id = `${family}:${n}`;
  let pair = made.get(id);
  if (pair === undefined) {
    pair =
      family === 'rsa'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : alg === 'ES256'
          ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
          : alg === 'ES384'
            ? generateKeyPairSync('ec', { namedCurve: 'P-384' })
            : generateKeyPairSync('ed25519');
    made.set(id, pair);
  }
  return { alg, signing: pair.privateKey, verifying: pair.publicKey };
}
