/**
 * A JWK Set fetched from a URL (RFC 7517 §5; the `jwks_uri` of OpenID Connect Discovery §3 and
 * RFC 8414 §2): cached by its `Cache-Control: max-age` within bounds, refetched when a token
 * names a `kid` it lacks (key rotation) at most once per cool-down, one fetch shared by every
 * request that waits for it, the body bounded in bytes and the exchange in time.
 *
 * Fetched with `node:http`/`node:https` rather than undici: the JWT feature then needs no optional
 * peer and lives in the main entry, redirects are not followed (a key set that moves is a
 * configuration change, not something to chase), and the byte bound cuts the socket itself.
 */
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage, ClientRequest } from 'node:http';
import type { RequestOptions } from 'node:https';
import { importKeySet } from './keys.js';
import { JwtConfigurationError, JwtKeySetUnavailableError } from './errors.js';
import type { JwtAlgorithm, VerificationKey } from './algorithms.js';

/** Bounds of the key-set fetch; every field has a default. */
export interface JwksOptions {
  /** Deadline of one fetch, connection to last byte, in milliseconds. Default 5000. */
  timeoutMs?: number;
  /** Largest key-set document in bytes; a larger one is cut off and refused. Default 262144 (256 KiB). */
  maxBytes?: number;
  /** Least time between two fetches in seconds (an unknown `kid` or a failure cannot cause more). Default 30. */
  cooldownSeconds?: number;
  /** Bounds on how long a fetched set is kept, whatever its `Cache-Control` says, in seconds. Defaults 60 and 86400. */
  minCacheSeconds?: number;
  maxCacheSeconds?: number;
  /** How long a set whose response has no `max-age` is kept, in seconds. Default 600. */
  defaultCacheSeconds?: number;
  /**
   * The certificate authorities (PEM text, one or several certificates per entry) trusted for an
   * https `jwksUrl`, instead of Node's CA store: a private CA, or the issuer's own certificate. As
   * `node:https`'s `ca` option; checked when the verifier is built (each entry must hold at least
   * one certificate that parses). Default: Node's store (with `NODE_EXTRA_CA_CERTS`).
   */
  ca?: string | Buffer | ReadonlyArray<string | Buffer>;
}

/** The bounds of {@link JwksOptions}, checked, and the CAs to trust (undefined: Node's store). */
export type JwksSettings = Required<Omit<JwksOptions, 'ca'>> & { readonly ca: readonly string[] | undefined };

/** A loopback host: where plain http cannot be read or changed by anyone else on the network. */
function isLoopback(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(h);
}

/**
 * The URL of a key set, checked: https, or http to a loopback host only (keys fetched in clear
 * text over a network could be replaced by anyone on the path, RFC 8725 §3.10's advice on `jku`).
 * @throws JwtConfigurationError naming `option`.
 */
export function checkJwksUrl(value: string | URL, option: string): URL {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new JwtConfigurationError(`${option}: ${JSON.stringify(String(value))} is not a URL; give the https URL of the issuer's JWK Set`);
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return url;
  throw new JwtConfigurationError(
    `${option}: ${url.protocol}//${url.host} is refused; key sets are fetched over https (plain http only to a loopback host such as 127.0.0.1)`,
  );
}

const DEFAULTS = {
  timeoutMs: 5000,
  maxBytes: 256 * 1024,
  cooldownSeconds: 30,
  minCacheSeconds: 60,
  maxCacheSeconds: 86_400,
  defaultCacheSeconds: 600,
} as const satisfies Required<Omit<JwksOptions, 'ca'>>;

/** Checks the bounds and the CAs, naming `option.field` in the error; `url` is the checked `jwksUrl`. */
export function jwksSettings(options: JwksOptions | undefined, option: string, url?: URL): JwksSettings {
  const { ca, ...bounds } = options ?? {};
  const s = { ...DEFAULTS, ...bounds, ca: checkCa(ca, `${option}.ca`, url) };
  for (const [name, value] of Object.entries(bounds)) {
    const positive = name === 'timeoutMs' || name === 'maxBytes';
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (positive && value === 0)) {
      throw new JwtConfigurationError(`${option}.${name}: ${String(value)} is not a ${positive ? 'positive' : 'non-negative'} number`);
    }
  }
  if (s.minCacheSeconds > s.maxCacheSeconds) {
    throw new JwtConfigurationError(`${option}: minCacheSeconds (${s.minCacheSeconds}) is above maxCacheSeconds (${s.maxCacheSeconds})`);
  }
  return s;
}

type Transport = (url: URL, options: RequestOptions, onResponse: (res: IncomingMessage) => void) => ClientRequest;
let https: Promise<Transport> | undefined;
let http: Promise<Transport> | undefined;
/** Loaded on first use: an application that never fetches a key set never loads TLS for it. */
function transport(url: URL): Promise<Transport> {
  if (url.protocol === 'https:') return (https ??= import('node:https').then((m) => m.request));
  return (http ??= import('node:http').then((m) => m.request));
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

/**
 * The CAs as PEM strings, each certificate parsed now: a typo in a bundle would otherwise surface
 * as a 503 on the first token (the key set "cannot be fetched"), not at start-up.
 */
function checkCa(ca: JwksOptions['ca'], option: string, url: URL | undefined): readonly string[] | undefined {
  if (ca === undefined) return undefined;
  if (url !== undefined && url.protocol !== 'https:') {
    throw new JwtConfigurationError(
      `${option}: the key set is fetched over ${url.protocol}, where no CA applies; use an https jwksUrl or remove ca`,
    );
  }
  const entries: ReadonlyArray<unknown> = Array.isArray(ca) ? ca : [ca];
  if (entries.length === 0) throw new JwtConfigurationError(`${option}: no certificate; give the PEM text of the CA (or leave ca out)`);
  return entries.map((entry, i) => {
    const where = Array.isArray(ca) ? `${option}[${i}]` : option;
    if (typeof entry !== 'string' && !Buffer.isBuffer(entry))
      throw new JwtConfigurationError(`${where}: give PEM text (a string or a Buffer)`);
    const pem = entry.toString();
    const blocks = pem.match(PEM_CERTIFICATE) ?? [];
    if (blocks.length === 0) throw new JwtConfigurationError(`${where}: no PEM certificate (-----BEGIN CERTIFICATE-----) in it`);
    for (const [n, block] of blocks.entries()) {
      try {
        new X509Certificate(block);
      } catch (e) {
        throw new JwtConfigurationError(`${where}: certificate ${n + 1} does not parse (${e instanceof Error ? e.message : String(e)})`);
      }
    }
    return pem;
  });
}

/** `max-age` of a Cache-Control value in seconds (RFC 9111 §5.2.2.1); 0 for no-store/no-cache. */
function maxAge(cacheControl: string | undefined): number | undefined {
  if (cacheControl === undefined) return undefined;
  if (/(?:^|,)\s*(?:no-store|no-cache)\s*(?:,|$)/i.test(cacheControl)) return 0;
  const m = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?\s*(?:,|$)/i.exec(cacheControl);
  return m === null ? undefined : Number(m[1]);
}

/** The keys of one JWKS URL, cached; one instance per verifier. */
export class RemoteKeySet {
  private keys: readonly VerificationKey[] | undefined;
  private expiresAt = 0;
  /**
   * When the last refetch for an unknown `kid` started, and when the last fetch failed: the
   * cool-down counts from each. A scheduled fetch (first use, expiry) does not start it, so the
   * first token signed with a key rotated in right after a fetch is not refused for 30 s.
   */
  private lastKidRefetch = Number.NEGATIVE_INFINITY;
  private lastFailure = Number.NEGATIVE_INFINITY;
  private inflight: Promise<void> | undefined;

  constructor(
    readonly url: URL,
    private readonly settings: JwksSettings,
    private readonly allowed: readonly JwtAlgorithm[],
    private readonly now: () => number,
  ) {}

  /**
   * The keys that may verify a token naming `kid` (every key when it names none). Fetches when
   * the cached set expired, and refetches when `kid` is unknown, at most once per cool-down; a
   * request that comes while a fetch is under way waits for that one.
   * @throws JwtKeySetUnavailableError when no key set could be fetched yet.
   */
  async candidates(kid: string | undefined): Promise<readonly VerificationKey[]> {
    if (this.keys === undefined || this.now() >= this.expiresAt) await this.refresh(false);
    let found = select(this.usable(), kid);
    if (found.length === 0 && kid !== undefined && (this.inflight !== undefined || this.cooledDown(this.lastKidRefetch))) {
      // Rotation: the issuer may have published a key we have not seen yet (OpenID Connect Core §10.1.1).
      await this.refresh(true);
      found = select(this.usable(), kid);
    }
    return found;
  }

  private cooledDown(since: number): boolean {
    return this.now() - since >= this.settings.cooldownSeconds * 1000;
  }

  /** Joins the fetch under way, or starts one unless a cool-down forbids; keeps the previous set when a fetch fails. */
  private async refresh(forUnknownKid: boolean): Promise<void> {
    if (this.inflight === undefined && this.cooledDown(this.lastFailure) && (!forUnknownKid || this.cooledDown(this.lastKidRefetch))) {
      if (forUnknownKid) this.lastKidRefetch = this.now();
      this.inflight = this.fetchOnce()
        .then(({ keys, ttlSeconds }) => {
          this.keys = keys;
          this.expiresAt = this.now() + ttlSeconds * 1000;
          this.lastError = undefined;
        })
        .catch((e: unknown) => {
          // The previous set, if any, stays in use (RFC 5861's stale-if-error): an outage of the
          // issuer should not log everybody out. Retried after the cool-down.
          this.lastError = e;
          this.lastFailure = this.now();
        })
        .finally(() => {
          this.inflight = undefined;
        });
    }
    if (this.inflight !== undefined) await this.inflight;
  }

  /** The cached keys. @throws JwtKeySetUnavailableError when there are none yet. */
  private usable(): readonly VerificationKey[] {
    if (this.keys === undefined) {
      throw new JwtKeySetUnavailableError(`The key set at ${this.url.origin}${this.url.pathname} could not be fetched`, {
        cause: this.lastError,
      });
    }
    return this.keys;
  }

  private lastError: unknown;

  private async fetchOnce(): Promise<{ keys: VerificationKey[]; ttlSeconds: number }> {
    const request = await transport(this.url);
    const { body, cacheControl } = await new Promise<{ body: Buffer; cacheControl: string | undefined }>((resolve, reject) => {
      const { timeoutMs, maxBytes } = this.settings;
      let req: ClientRequest | undefined = undefined;
      const fail = (message: string): void => {
        clearTimeout(timer);
        reject(new Error(message));
        req?.destroy();
      };
      // One deadline over the whole exchange: a server that trickles bytes cannot hold the fetch open.
      const timer = setTimeout(() => fail(`no complete answer within ${timeoutMs} ms`), timeoutMs);
      const { ca } = this.settings;
      const headers = { accept: 'application/jwk-set+json, application/json' };
      // `ca` replaces Node's store for this request only (node:https passes it to tls.connect).
      req = request(this.url, ca === undefined ? { method: 'GET', headers } : { method: 'GET', headers, ca: [...ca] }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          fail(`status ${String(res.statusCode)}`);
          return;
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) {
          fail(`Content-Length ${declared} is above ${maxBytes} bytes`);
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) fail(`the document is above ${maxBytes} bytes`);
          else chunks.push(chunk);
        });
        res.on('end', () => {
          clearTimeout(timer);
          const cc = res.headers['cache-control'];
          resolve({ body: Buffer.concat(chunks), cacheControl: Array.isArray(cc) ? cc.join(', ') : cc });
        });
        res.on('error', (e) => fail(e.message));
      });
      req.on('error', (e) => fail(e.message));
      req.end();
    });
    const keys = importKeySet(JSON.parse(body.toString('utf8')) as unknown, this.allowed);
    const { minCacheSeconds, maxCacheSeconds, defaultCacheSeconds } = this.settings;
    const ttl = Math.min(maxCacheSeconds, Math.max(minCacheSeconds, maxAge(cacheControl) ?? defaultCacheSeconds));
    return { keys, ttlSeconds: ttl };
  }
}

function select(keys: readonly VerificationKey[], kid: string | undefined): VerificationKey[] {
  return kid === undefined ? [...keys] : keys.filter((k) => k.kid === kid);
}
