/**
 * Password and API-key checks (`docs/api.md` rules 30-34: Basic, login, X-API-Key).
 *
 * Every comparison is between fixed-length keyed digests: `crypto.timingSafeEqual` throws on
 * unequal lengths, so comparing raw secrets would turn a wrong-length guess into a 500 and leak
 * the length (Node docs: `crypto.timingSafeEqual` throws on unequal lengths).
 */
import { createHmac, randomBytes, scrypt, timingSafeEqual, type BinaryLike } from 'node:crypto';
import { Roles, type Principal } from './principal.js';
import { HashGate } from './hash-gate.js';
import type { RememberedLogins } from './remembered-logins.js';

/** scrypt cost. N=2^14, r=8 costs ~45 ms and 16 MiB here: bearable per Basic request, slow to guess. */
export interface ScryptParams {
  readonly N: number;
  readonly r: number;
  readonly p: number;
  readonly keyLength: number;
}

/** Default scrypt parameters (Node's own defaults, 32-byte output). */
export const DEFAULT_SCRYPT: ScryptParams = { N: 16_384, r: 8, p: 1, keyLength: 32 };

/** Credentials longer than this are refused before hashing, so a huge password cannot buy CPU. */
const MAX_CREDENTIAL_BYTES = 1024;
/** Basic header cap: `Basic ` + base64 of user:password at the byte cap above, twice over. */
const MAX_BASIC_HEADER = 4096;
/** RFC 7617 §2: `Basic` (case-insensitive), one or more spaces, token68 in base64 alphabet. */
const BASIC_SHAPE = /^basic +([A-Za-z0-9+/]+={0,2})$/i;
/** C0 controls and DEL are not allowed in user-id or password (RFC 7617 §2). */
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

function scryptAsync(secret: BinaryLike, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const { N, r, p, keyLength } = params;
  // scrypt needs about 128*r*(N+p) bytes; Node's default maxmem (32 MiB) rejects N >= 2^15.
  const maxmem = 2 * 128 * r * (N + p) + 1024 * 1024;
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, keyLength, { N, r, p, maxmem }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

function keyedDigest(key: Buffer, value: string): Buffer {
  return createHmac('sha256', key).update(value, 'utf8').digest();
}

/** Decoded Basic credentials. */
export interface BasicCredentials {
  readonly username: string;
  readonly password: string;
}

/**
 * Parses `Authorization: Basic <base64(user:password)>` strictly: base64 shape and padding,
 * fatal UTF-8 decoding, split at the FIRST colon (a password may contain colons, a user-id may
 * not; RFC 7617 §2). Returns null for anything else, including other schemes.
 * @example parseBasicCredentials('Basic YWRtaW46cGFzc3dvcmQ=') // { username: 'admin', password: 'password' }
 */
export function parseBasicCredentials(header: string | undefined): BasicCredentials | null {
  if (header === undefined || header.length > MAX_BASIC_HEADER) return null;
  const token = BASIC_SHAPE.exec(header)?.[1];
  if (token === undefined || token.length % 4 !== 0) return null;
  let decoded: string;
  try {
    decoded = UTF8.decode(Buffer.from(token, 'base64'));
  } catch {
    return null;
  }
  const colon = decoded.indexOf(':');
  if (colon < 0 || CONTROL_CHARS.test(decoded)) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Clients whose passed credentials one instance remembers. */
const MAX_REMEMBERED_CLIENTS = 4096;

/** Options of {@link BasicAuthenticator}. */
export interface BasicAuthenticatorOptions {
  /** Roles of the authenticated principal; default `['ADMIN']`. */
  readonly roles?: readonly string[];
  readonly scrypt?: ScryptParams;
  /** Bounds concurrent password hashing (see {@link HashGate}); default: one at a time, 32 waiting. */
  readonly gate?: HashGate;
  /** Logins remembered by every instance of a shared store (see remembered-logins.ts). */
  readonly remembered?: RememberedLogins;
}

/**
 * The single configured admin account, checked for Basic auth and for `POST /api/auth/login`.
 * The password is hashed with scrypt once, at construction; the plain text is not kept.
 */
export class BasicAuthenticator {
  readonly #digestKey = randomBytes(32);
  readonly #salt = randomBytes(16);
  readonly #params: ScryptParams;
  readonly #usernameDigest: Buffer;
  readonly #principal: Principal;
  readonly #ready: Promise<Buffer>;
  /** Keyed digest of the last credentials that passed scrypt; see {@link verifyLogin}. */
  #verified: Buffer | undefined;
  /** Every per-attempt hash goes through it. */
  readonly gate: HashGate;
  readonly #remembered: RememberedLogins | undefined;
  /** Keyed digests of client + credentials that passed, oldest first. */
  readonly #passed = new Set<string>();

  constructor(username: string, password: string, options: BasicAuthenticatorOptions = {}) {
    if (username.length === 0 || password.length === 0) throw new TypeError('username and password must not be empty');
    this.#params = options.scrypt ?? DEFAULT_SCRYPT;
    this.gate = options.gate ?? new HashGate();
    this.#remembered = options.remembered;
    this.#usernameDigest = keyedDigest(this.#digestKey, username);
    this.#principal = Object.freeze({ name: username, roles: Object.freeze([...(options.roles ?? [Roles.ADMIN])]) });
    this.#ready = scryptAsync(password, this.#salt, this.#params);
    // Surface a hashing failure on first use, not as an unhandled rejection at start-up.
    this.#ready.catch(() => undefined);
  }

  /** Builds the authenticator and waits for the password hash, so start-up fails fast. */
  static async create(username: string, password: string, options?: BasicAuthenticatorOptions): Promise<BasicAuthenticator> {
    const authenticator = new BasicAuthenticator(username, password, options);
    await authenticator.#ready;
    return authenticator;
  }

  /**
   * Whether `username`/`password` passed from `client` (its address) recently, on this instance
   * or (shared store) another one: a keyed digest, no hashing. The failure limit lets these
   * through even while the client or account is over its limit, so guessing elsewhere cannot lock
   * the real user out. Bound to the client: from any other address the same pair is limited like
   * a guess, so the exemption tells a guesser nothing (a 200 instead of a 429 would otherwise
   * confirm a guessed password at full speed).
   */
  remembers(username: string, password: string, client: string): boolean {
    if (this.#remembered?.has(client, username, password) === true) return true;
    return this.#passed.has(keyedDigest(this.#digestKey, JSON.stringify([client, username, password])).toString('base64'));
  }

  /** Records that `username`/`password` passed from `client` (see {@link remembers}). */
  passed(username: string, password: string, client: string): void {
    const digest = keyedDigest(this.#digestKey, JSON.stringify([client, username, password])).toString('base64');
    this.#passed.delete(digest);
    this.#passed.add(digest);
    // Bounded: the oldest clients are forgotten first (they then pay one limited check).
    if (this.#passed.size > MAX_REMEMBERED_CLIENTS) this.#passed.delete(this.#passed.values().next().value as string);
    this.#remembered?.remember(client, username, password);
  }

  /** Checks an `Authorization` header value; null for missing, malformed or wrong credentials. */
  async authenticate(authorization: string | undefined): Promise<Principal | null> {
    const credentials = parseBasicCredentials(authorization);
    return credentials === null ? null : this.verifyLogin(credentials.username, credentials.password);
  }

  /**
   * Checks a username/password pair. scrypt runs on every uncached attempt whether or not the
   * username matched, so "unknown user" and "wrong password" cost the same and look the same.
   * Once a pair has passed, its keyed digest is remembered so the next Basic request from the
   * same admin skips the 45 ms hash; failures are never cached, so guessing stays slow.
   */
  async verifyLogin(username: unknown, password: unknown): Promise<Principal | null> {
    if (typeof username !== 'string' || typeof password !== 'string') return null;
    if (Buffer.byteLength(username) > MAX_CREDENTIAL_BYTES || Buffer.byteLength(password) > MAX_CREDENTIAL_BYTES) return null;
    const presented = keyedDigest(this.#digestKey, JSON.stringify([username, password]));
    if (this.#verified !== undefined && timingSafeEqual(presented, this.#verified)) return this.#principal;

    const expectedHash = await this.#ready;
    const userOk = timingSafeEqual(keyedDigest(this.#digestKey, username), this.#usernameDigest);
    const passwordOk = timingSafeEqual(await this.gate.run(() => scryptAsync(password, this.#salt, this.#params)), expectedHash);
    if (!(userOk && passwordOk)) return null;
    this.#verified = presented;
    return this.#principal;
  }
}

/** Options of {@link ApiKeyVerifier}. */
export interface ApiKeyVerifierOptions {
  /** Roles of a caller with a valid key; default `['API_CLIENT']`. */
  readonly roles?: readonly string[];
}

/**
 * Constant-time membership check of an `X-API-Key` value. Every configured key is compared on
 * every call (no early exit), so timing reveals neither which key matched nor a prefix.
 */
export class ApiKeyVerifier {
  readonly #digestKey = randomBytes(32);
  readonly #digests: readonly Buffer[];
  readonly #principals: readonly Principal[];

  constructor(keys: readonly string[], options: ApiKeyVerifierOptions = {}) {
    const unique = [...new Set(keys)];
    if (unique.some((key) => key.length === 0)) throw new TypeError('API keys must not be empty');
    const roles = Object.freeze([...(options.roles ?? [Roles.API_CLIENT])]);
    this.#digests = unique.map((key) => keyedDigest(this.#digestKey, key));
    // The principal name identifies the key by position, never by value, so it is safe to log.
    this.#principals = unique.map((_, i) => Object.freeze({ name: `api-key-${i + 1}`, roles }));
  }

  /** The principal of the matching key, or null (also for missing, empty or oversized values). */
  authenticate(presented: string | undefined): Principal | null {
    if (presented === undefined || presented.length === 0 || presented.length > MAX_CREDENTIAL_BYTES) return null;
    const digest = keyedDigest(this.#digestKey, presented);
    let match = -1;
    for (let i = 0; i < this.#digests.length; i++) {
      // Non-short-circuit on purpose: every key is compared on every call.
      if (timingSafeEqual(digest, this.#digests[i]!)) match = i;
    }
    return match < 0 ? null : this.#principals[match]!;
  }

  /** True when `presented` is one of the configured keys. */
  verify(presented: string | undefined): boolean {
    return this.authenticate(presented) !== null;
  }
}
