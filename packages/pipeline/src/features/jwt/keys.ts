/**
 * Turning keys into {@link VerificationKey}s: the static keys of the options (JWKs, PEM text,
 * `KeyObject`s, a shared secret) and the members of a JWK Set (RFC 7517 §5).
 */
import { createPublicKey, createSecretKey, KeyObject, type JsonWebKey } from 'node:crypto';
import { verificationKey, type JwtAlgorithm, type VerificationKey } from './algorithms.js';

/**
 * A static verification key: a JWK (RFC 7517; `kty` `RSA`, `EC`, `OKP` or `oct`), PEM text (a
 * public key, a certificate, or a private key whose public half is used), or a `KeyObject`
 * (`createPublicKey(...)`, `createSecretKey(...)`).
 */
export type JwtKeyInput = JsonWebKey | string | KeyObject;

/** A JWK member that is not for verifying signatures (RFC 7517 §4.2 `use`, §4.3 `key_ops`). */
function notForVerifying(jwk: JsonWebKey): boolean {
  if (jwk.use !== undefined && jwk.use !== 'sig') return true;
  const ops: unknown = jwk.key_ops;
  return ops !== undefined && !(Array.isArray(ops) && ops.includes('verify'));
}

/**
 * The key object of a JWK, its public half for a private JWK. `oct` keys (secrets) only when
 * `secrets` allows: a key set fetched over the network never supplies an HMAC secret.
 * @throws Error when Node cannot import it.
 */
function jwkKeyObject(jwk: JsonWebKey, secrets: boolean): KeyObject {
  if (jwk.kty === 'oct') {
    if (!secrets) throw new Error('an oct (secret) key is not accepted from a key set');
    if (typeof jwk.k !== 'string' || !/^[A-Za-z0-9_-]+$/.test(jwk.k)) throw new Error('an oct key needs its k member in base64url');
    return createSecretKey(Buffer.from(jwk.k, 'base64url'));
  }
  if (jwk.kty !== 'RSA' && jwk.kty !== 'EC' && jwk.kty !== 'OKP') throw new Error(`kty ${String(jwk.kty)} is not supported`);
  // Only the public members: a private JWK gives its public half, and no private value is kept.
  const pub: JsonWebKey =
    jwk.kty === 'RSA'
      ? { kty: 'RSA', n: jwk.n, e: jwk.e }
      : { kty: jwk.kty, crv: jwk.crv, x: jwk.x, ...(jwk.kty === 'EC' ? { y: jwk.y } : {}) };
  return createPublicKey({ key: pub, format: 'jwk' });
}

function publicOrSecret(key: KeyObject): KeyObject {
  return key.type === 'private' ? createPublicKey(key) : key;
}

/**
 * Imports one static key for `allowed`. `where` names it in errors (`keys[2]`).
 * @throws Error naming `where` when the key cannot be imported, is not for signatures, or fits
 *   none of the allowed algorithms (with each algorithm's reason).
 */
export function importStaticKey(
  input: JwtKeyInput,
  allowed: readonly JwtAlgorithm[],
  where: string,
  mismatch: (key: KeyObject) => string,
): VerificationKey {
  let key: KeyObject;
  let kid: string | undefined;
  let alg: string | undefined;
  try {
    if (input instanceof KeyObject) key = publicOrSecret(input);
    else if (typeof input === 'string') key = createPublicKey(input);
    else if (typeof input === 'object' && input !== null) {
      if (notForVerifying(input)) throw new Error('its use or key_ops says it is not for verifying signatures');
      key = jwkKeyObject(input, true);
      kid = typeof input.kid === 'string' ? input.kid : undefined;
      alg = typeof input.alg === 'string' ? input.alg : undefined;
    } else throw new Error('expected a JWK object, PEM text or a KeyObject');
  } catch (e) {
    throw new Error(`${where} cannot be imported: ${(e as Error).message}`);
  }
  const vk = verificationKey(key, allowed, kid, alg);
  if (vk.algorithms.size === 0) throw new Error(`${where} fits none of the allowed algorithms: ${mismatch(key)}`);
  return vk;
}

/**
 * The usable members of a JWK Set document (RFC 7517 §5): members that do not import, are not for
 * signatures, are secrets, or fit no allowed algorithm are skipped (a key set may hold encryption
 * keys, or key types a later version adds), as RFC 7517 §5 asks of unknown members.
 * @throws Error when the document is not a JWK Set at all.
 */
export function importKeySet(document: unknown, allowed: readonly JwtAlgorithm[]): VerificationKey[] {
  if (typeof document !== 'object' || document === null || !Array.isArray((document as { keys?: unknown }).keys)) {
    throw new Error('the document is not a JWK Set (an object with a keys array)');
  }
  const out: VerificationKey[] = [];
  for (const member of (document as { keys: unknown[] }).keys) {
    if (typeof member !== 'object' || member === null || Array.isArray(member)) continue;
    const jwk = member as JsonWebKey;
    if (notForVerifying(jwk)) continue;
    try {
      const vk = verificationKey(
        jwkKeyObject(jwk, false),
        allowed,
        typeof jwk.kid === 'string' ? jwk.kid : undefined,
        typeof jwk.alg === 'string' ? jwk.alg : undefined,
      );
      if (vk.algorithms.size > 0) out.push(vk);
    } catch {
      // Skipped: see above.
    }
  }
  return out;
}
