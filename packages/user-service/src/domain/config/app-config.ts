/**
 * Typed, validated configuration from the environment. Every variable is documented in
 * `docs.ts`; every problem is collected and reported at once, naming the variable, so a
 * bad deployment fails at start-up instead of on the first request that needs the value.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { join, resolve } from 'node:path';
import { createSecureContext } from 'node:tls';
import { LARGE_DATA_TOTAL } from '../limits/client-concurrency.js';
import { DEFAULTS } from './docs.js';
import type { ExternalIssuerConfig } from '../auth/external-tokens.js';
import { loadOrCreateTokenSecret, nodeConfigFs, type ConfigFs, type TokenSecretSource } from './secret.js';

export { CONFIG_DOCS, DEFAULTS, type ConfigDoc } from './docs.js';
export { nodeConfigFs, type ConfigFs, type TokenSecretSource } from './secret.js';

/** Invalid configuration. `variables` names every offending environment variable. */
export class ConfigError extends Error {
  readonly variables: readonly string[];

  constructor(problems: readonly { variable: string; message: string }[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n')}`);
    this.name = 'ConfigError';
    this.variables = [...new Set(problems.map((p) => p.variable))];
  }
}

/** CORS response header values (`docs/api.md` rule 29, the optional CORS filter). */
export interface CorsConfig {
  readonly origin: string;
  readonly methods: string;
  readonly headers: string;
}

/** The server's certificate and key (PEM); `key` is a secret: log via {@link redactConfig}. */
export interface TlsConfig {
  readonly certFile: string;
  readonly keyFile: string;
  readonly cert: string;
  readonly key: string;
}

/** The service configuration. Secrets are in `adminPassword`, `apiKeys`, `tokenSecret`: log via {@link redactConfig}. */
export interface AppConfig {
  readonly nodeEnv: string;
  readonly production: boolean;
  readonly port: number;
  readonly host: string;
  /** TLS_CERT_FILE / TLS_KEY_FILE, read and checked (the key matches the certificate); undefined: plain HTTP. */
  readonly tls: TlsConfig | undefined;
  /** HTTP2: h2 (with TLS, HTTP/1.1 too by ALPN) or h2c without TLS. */
  readonly http2: boolean;
  /** `METRICS_PORT`: the metrics listener's port (0: a free one); undefined when metrics are off. */
  readonly metricsPort: number | undefined;
  /** Absolute path. */
  readonly dataDir: string;
  readonly adminUsername: string;
  readonly adminPassword: string;
  readonly apiKeys: readonly string[];
  readonly tokenSecret: Buffer;
  readonly tokenSecretSource: TokenSecretSource;
  readonly tokenTtlSeconds: number;
  /** An external issuer whose JWTs `/api/protected/*` accepts (`JWT_ISSUER`, `JWT_AUDIENCE`, `JWKS_URL`: all three or none). */
  readonly externalJwt: ExternalIssuerConfig | undefined;
  /** 0 means rate limiting is off. */
  readonly rateLimitPerMinute: number;
  /** Failed authentications per client and per account per minute; 0 means no limit. */
  readonly authFailuresPerMinute: number;
  /** `/api/large-data` responses in flight per client address. */
  readonly largeDataPerClient: number;
  readonly seed: 'demo' | 'none';
  readonly storage: 'journal' | 'memory' | 'etcd';
  /** With `storage: 'etcd'`: client URLs of the members (at least one). */
  readonly etcdEndpoints: readonly string[];
  /** With `storage: 'etcd'`: key prefix shared by the instances of one service. */
  readonly etcdPrefix: string;
  /** With `storage: 'etcd'`: TTL of the instance lease, seconds. */
  readonly etcdLeaseTtlSeconds: number;
  /** Directory of uploaded file contents (shared by every instance). */
  readonly filesDir: string;
  /** Worker processes (`auto`: one per core); more than 1 only with `storage: 'etcd'`. */
  readonly workers: number | 'auto';
  readonly productCatalogUrl: string | undefined;
  /** Origin (and optional path prefix) clients use, without a trailing slash; `Location` values start with it. */
  readonly publicBaseUrl: string | undefined;
  readonly uploadMaxBytes: number;
  readonly uploadMaxFiles: number;
  readonly bodyLimitBytes: number;
  readonly cors: CorsConfig;
  readonly shutdownDeadlineMs: number;
  /** `SHUTDOWN_DELAY_MS`: served as usual, readiness DOWN, before the close begins (`limits.shutdownDelay`). */
  readonly shutdownDelayMs: number;
  readonly logRequests: boolean;
  /** OpenTelemetry traces through `@jaxrs-node/pipeline/otel` (needs `@opentelemetry/api` installed). */
  readonly tracing: boolean;
  /** Development defaults in use (variable names); non-empty only outside production. Log a warning. */
  readonly devDefaults: readonly string[];
}

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
/** Header values go straight into responses: no CR/LF or other controls (header injection). */
const HEADER_VALUE = /^[\x20-\x7e]+$/;
const CONTROL = /[\u0000-\u001f\u007f]/;
const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

/** Reads variables, records problems instead of throwing so all are reported together. */
class EnvReader {
  readonly problems: { variable: string; message: string }[] = [];

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** Raw value; unset and empty both mean "use the default". */
  raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value;
  }

  problem(variable: string, message: string): void {
    this.problems.push({ variable, message });
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name)?.trim();
    if (value === undefined) return fallback;
    const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (Number.isSafeInteger(n) && n >= min && n <= max) return n;
    this.problem(name, `expected an integer from ${min} to ${max}, got ${JSON.stringify(value.slice(0, 40))}`);
    return fallback;
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.trim().toLowerCase();
    if (value === undefined) return fallback;
    if (TRUE.has(value)) return true;
    if (FALSE.has(value)) return false;
    this.problem(name, `expected true or false, got ${JSON.stringify(value.slice(0, 40))}`);
    return fallback;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name)?.trim();
    if (value === undefined) return fallback;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    this.problem(name, `expected one of ${allowed.join(', ')}, got ${JSON.stringify(value.slice(0, 40))}`);
    return fallback;
  }

  /** A string checked by `check`, which returns a problem or undefined. Secrets are never echoed. */
  text(name: string, fallback: string, check: (value: string) => string | undefined, trim = true): string {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    const value = trim ? raw.trim() : raw;
    const problem = check(value);
    if (problem === undefined) return value;
    this.problem(name, problem);
    return fallback;
  }
}

function endpointList(value: string): string | undefined {
  const endpoints = value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (endpoints.length === 0) return 'must list at least one http(s) URL';
  for (const e of endpoints) if (httpUrl(e) !== undefined) return `${e}: must be an http(s) URL`;
  return undefined;
}

function httpUrl(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
    return url.search === '' && url.hash === '' ? undefined : 'must not contain a query or fragment';
  } catch {
    return 'is not a valid URL';
  }
}

/** A key set fetched in clear text could be swapped by anyone on the path: https, or http to this machine only. */
function jwksUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a valid URL';
  }
  const loopback = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i.test(url.hostname);
  if (url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) return undefined;
  return 'must be an https URL (plain http only to a loopback host such as 127.0.0.1)';
}

/** `JWT_ISSUER`, `JWT_AUDIENCE`, `JWKS_URL`: all three or none (two of three would silently accept nothing, or too much). */
function externalJwt(r: EnvReader): ExternalIssuerConfig | undefined {
  const names = ['JWT_ISSUER', 'JWT_AUDIENCE', 'JWKS_URL'] as const;
  const set = names.filter((n) => r.raw(n) !== undefined);
  if (set.length === 0) return undefined;
  if (set.length < names.length) {
    for (const n of names.filter((x) => !set.includes(x)))
      r.problem(n, `required with ${set.join(' and ')}: set JWT_ISSUER, JWT_AUDIENCE and JWKS_URL together, or none`);
    return undefined;
  }
  const text = (v: string) =>
    CONTROL.test(v) || v.length > 2048 ? 'must be at most 2048 characters without control characters' : undefined;
  return {
    issuer: r.text('JWT_ISSUER', '', text),
    audience: r.text('JWT_AUDIENCE', '', text),
    jwksUrl: r.text('JWKS_URL', '', jwksUrl),
  };
}

/**
 * Loads the configuration. Async because, without TOKEN_SECRET, the development secret is read
 * from (or created in) DATA_DIR.
 * @throws {ConfigError} listing every invalid variable; in production also every development
 *   default credential or secret still in use.
 * @example const config = await loadConfig(process.env);
 */
export async function loadConfig(env: NodeJS.ProcessEnv = process.env, fs: ConfigFs = nodeConfigFs): Promise<AppConfig> {
  const r = new EnvReader(env);
  const D = DEFAULTS;
  const nodeEnv = r.raw('NODE_ENV')?.trim() ?? D.NODE_ENV;
  const production = nodeEnv === 'production';
  const header = (v: string) => (HEADER_VALUE.test(v) ? undefined : 'must be printable ASCII without line breaks');

  const adminUsername = r.text('ADMIN_USERNAME', D.ADMIN_USERNAME, (v) =>
    v.length <= 256 && !v.includes(':') && !CONTROL.test(v)
      ? undefined
      : 'must be at most 256 characters, without ":" or control characters (RFC 7617)',
  );
  const adminPassword = r.text(
    'ADMIN_PASSWORD',
    D.ADMIN_PASSWORD,
    (v) => (Buffer.byteLength(v) <= 1024 && !CONTROL.test(v) ? undefined : 'must be at most 1024 bytes, without control characters'),
    false,
  );
  const apiKeys = r
    .text('API_KEYS', D.API_KEYS, (v) => {
      const keys = v
        .split(',')
        .map((k) => k.trim())
        .filter((k) => k !== '');
      return keys.length > 0 && keys.every((k) => k.length <= 1024 && VISIBLE_ASCII.test(k))
        ? undefined
        : 'must be comma-separated keys of visible ASCII, each at most 1024 characters';
    })
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');
  const envSecret = r.text('TOKEN_SECRET', '', (v) => (Buffer.byteLength(v) >= 32 ? undefined : 'must be at least 32 bytes'), false);
  const dataDir = resolve(r.text('DATA_DIR', D.DATA_DIR, (v) => (CONTROL.test(v) ? 'must not contain control characters' : undefined)));

  const partial = {
    nodeEnv,
    production,
    port: r.int('PORT', D.PORT, 0, 65_535),
    host: r.text('HOST', D.HOST, (v) => (/^[^\s/]+$/.test(v) ? undefined : 'must be a host name or IP address')),
    http2: r.bool('HTTP2', D.HTTP2),
    metricsPort: r.raw('METRICS_PORT') === undefined ? undefined : r.int('METRICS_PORT', 0, 0, 65_535),
    dataDir,
    adminUsername,
    adminPassword,
    apiKeys,
    tokenTtlSeconds: r.int('TOKEN_TTL_SECONDS', D.TOKEN_TTL_SECONDS, 1, 30 * 24 * 3600),
    externalJwt: externalJwt(r),
    rateLimitPerMinute: r.int('RATE_LIMIT_PER_MINUTE', D.RATE_LIMIT_PER_MINUTE, 0, 1_000_000),
    authFailuresPerMinute: r.int('AUTH_FAILURES_PER_MINUTE', D.AUTH_FAILURES_PER_MINUTE, 0, 1_000_000),
    largeDataPerClient: r.int('LARGE_DATA_PER_CLIENT', D.LARGE_DATA_PER_CLIENT, 1, LARGE_DATA_TOTAL),
    seed: r.oneOf('SEED', ['demo', 'none'] as const, D.SEED),
    storage: r.oneOf('STORAGE', ['journal', 'memory', 'etcd'] as const, D.STORAGE),
    etcdEndpoints: (r.raw('ETCD_ENDPOINTS') === undefined ? '' : r.text('ETCD_ENDPOINTS', '', endpointList))
      .split(',')
      .map((e) => e.trim().replace(/\/+$/, ''))
      .filter((e) => e !== ''),
    etcdPrefix: r.text('ETCD_PREFIX', D.ETCD_PREFIX, (v) =>
      /^\/[\x21-\x7e]*$/.test(v) ? undefined : 'must start with "/" and hold visible ASCII only',
    ),
    etcdLeaseTtlSeconds: r.int('ETCD_LEASE_TTL_SECONDS', D.ETCD_LEASE_TTL_SECONDS, 2, 300),
    filesDir: resolve(
      r.text('FILES_DIR', join(dataDir, 'files'), (v) => (CONTROL.test(v) ? 'must not contain control characters' : undefined)),
    ),
    productCatalogUrl: r.raw('PRODUCT_CATALOG_URL') === undefined ? undefined : r.text('PRODUCT_CATALOG_URL', '', httpUrl),
    publicBaseUrl: r.raw('PUBLIC_BASE_URL') === undefined ? undefined : r.text('PUBLIC_BASE_URL', '', httpUrl).replace(/\/+$/, ''),
    uploadMaxBytes: r.int('UPLOAD_MAX_BYTES', D.UPLOAD_MAX_BYTES, 1, 2 ** 40),
    uploadMaxFiles: r.int('UPLOAD_MAX_FILES', D.UPLOAD_MAX_FILES, 1, 100),
    bodyLimitBytes: r.int('BODY_LIMIT_BYTES', D.BODY_LIMIT_BYTES, 1, 1024 * 1024 * 1024),
    cors: {
      origin: r.text('CORS_ORIGIN', D.CORS_ORIGIN, header),
      methods: r.text('CORS_METHODS', D.CORS_METHODS, header),
      headers: r.text('CORS_HEADERS', D.CORS_HEADERS, header),
    },
    shutdownDeadlineMs: r.int('SHUTDOWN_DEADLINE_MS', D.SHUTDOWN_DEADLINE_MS, 0, 600_000),
    shutdownDelayMs: r.int('SHUTDOWN_DELAY_MS', D.SHUTDOWN_DELAY_MS, 0, 600_000),
    logRequests: r.bool('LOG_REQUESTS', D.LOG_REQUESTS),
    tracing: r.bool('TRACING', D.TRACING),
  };

  const storage = partial.storage;
  const workersRaw = r.text('WORKERS', D.WORKERS, (v) =>
    v === 'auto' || /^[1-9]\d{0,2}$/.test(v) ? undefined : 'must be a number from 1 to 999, or auto',
  );
  const workers: number | 'auto' = workersRaw === 'auto' ? 'auto' : Number(workersRaw);
  if (workers !== 1 && storage !== 'etcd' && r.raw('WORKERS') !== undefined) {
    r.problem('WORKERS', `several workers need STORAGE=etcd (the ${storage} store has a single writer); use WORKERS=1 or STORAGE=etcd`);
  }
  const noControl = (v: string): string | undefined => (CONTROL.test(v) ? 'must not contain control characters' : undefined);
  const certFile = r.raw('TLS_CERT_FILE') === undefined ? undefined : r.text('TLS_CERT_FILE', '', noControl);
  const keyFile = r.raw('TLS_KEY_FILE') === undefined ? undefined : r.text('TLS_KEY_FILE', '', noControl);
  if (certFile !== undefined && keyFile === undefined) {
    r.problem('TLS_KEY_FILE', "required with TLS_CERT_FILE: the path of the certificate's private key (PEM)");
  }
  if (keyFile !== undefined && certFile === undefined) {
    r.problem('TLS_CERT_FILE', 'required with TLS_KEY_FILE: the path of the certificate (PEM) the key belongs to');
  }
  const { metricsPort } = partial;
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === partial.port) {
    r.problem('METRICS_PORT', `must differ from PORT (${partial.port}): the metrics are never served on the public port`);
  }
  if (metricsPort !== undefined && r.raw('WORKERS') !== undefined && workers !== 1) {
    r.problem('METRICS_PORT', 'is served by a single process: unset it or use WORKERS=1 (each worker would need a port of its own)');
  }
  if (storage === 'etcd' && r.raw('ETCD_ENDPOINTS') === undefined) {
    r.problem('ETCD_ENDPOINTS', 'required with STORAGE=etcd: comma-separated client URLs, e.g. http://10.0.0.1:2379,http://10.0.0.2:2379');
  }

  const devDefaults: string[] = [];
  if (adminPassword === D.ADMIN_PASSWORD) devDefaults.push('ADMIN_PASSWORD');
  if (apiKeys.includes(D.API_KEYS)) devDefaults.push('API_KEYS');
  if (envSecret === '') devDefaults.push('TOKEN_SECRET');
  if (storage === 'etcd' && envSecret === '') {
    // A generated secret lives in one instance's DATA_DIR: a token it signs fails on the others.
    r.problem(
      'TOKEN_SECRET',
      'required with STORAGE=etcd: every instance must verify the tokens of the others; set the same secret (32+ bytes) on all',
    );
  }
  if (production) {
    // Checked before the secret file is touched: production never generates a secret.
    for (const name of devDefaults) r.problem(name, 'development default in use; set a real value for NODE_ENV=production');
  }
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  const tls = certFile !== undefined && keyFile !== undefined ? await loadTls(certFile, keyFile, fs) : undefined;

  let tokenSecret: Buffer = Buffer.from(envSecret, 'utf8');
  let tokenSecretSource: TokenSecretSource = 'env';
  if (envSecret === '') {
    const result = await loadOrCreateTokenSecret(dataDir, fs);
    if ('problem' in result) throw new ConfigError([{ variable: 'TOKEN_SECRET', message: result.problem }]);
    tokenSecret = result.secret;
    tokenSecretSource = result.source;
  }
  return Object.freeze({ ...partial, tls, workers, tokenSecret, tokenSecretSource, devDefaults: Object.freeze(devDefaults) });
}

/**
 * Reads the certificate and key and checks them here, at start-up, rather than at the first
 * handshake: both readable, both PEM that OpenSSL takes, and the key the certificate's own.
 */
async function loadTls(certFile: string, keyFile: string, fs: ConfigFs): Promise<TlsConfig> {
  const read = async (variable: string, path: string): Promise<string> => {
    let text: string | undefined;
    try {
      text = await fs.readFile(path);
    } catch (e) {
      throw new ConfigError([{ variable, message: `cannot read ${path}: ${(e as Error).message}` }]);
    }
    if (text === undefined) throw new ConfigError([{ variable, message: `${path} does not exist` }]);
    return text;
  };
  const [cert, key] = [await read('TLS_CERT_FILE', certFile), await read('TLS_KEY_FILE', keyFile)];
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch (e) {
    throw new ConfigError([{ variable: 'TLS_CERT_FILE', message: `${certFile} holds no PEM certificate (${(e as Error).message})` }]);
  }
  let matches: boolean;
  try {
    matches = certificate.checkPrivateKey(createPrivateKey(key));
  } catch (e) {
    // The message of a key parse error never quotes the key.
    throw new ConfigError([{ variable: 'TLS_KEY_FILE', message: `${keyFile} holds no usable PEM private key (${(e as Error).message})` }]);
  }
  if (!matches) {
    throw new ConfigError([
      { variable: 'TLS_KEY_FILE', message: `${keyFile} is not the private key of the certificate in TLS_CERT_FILE (${certFile})` },
    ]);
  }
  try {
    createSecureContext({ cert, key });
  } catch (e) {
    throw new ConfigError([{ variable: 'TLS_CERT_FILE', message: `OpenSSL refuses the certificate and key: ${(e as Error).message}` }]);
  }
  return { certFile, keyFile, cert, key };
}

/** The configuration with secrets masked, for the start-up log line. */
export function redactConfig(config: AppConfig): Record<string, unknown> {
  return {
    ...config,
    adminPassword: '[redacted]',
    apiKeys: config.apiKeys.map(() => '[redacted]'),
    tokenSecret: `[redacted ${config.tokenSecret.length} bytes, ${config.tokenSecretSource}]`,
    tls: config.tls === undefined ? undefined : { certFile: config.tls.certFile, keyFile: config.tls.keyFile },
  };
}
