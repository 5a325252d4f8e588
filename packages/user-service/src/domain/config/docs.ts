/**
 * Every environment variable the service reads, with its default and meaning. `loadConfig` takes
 * its defaults from {@link DEFAULTS}, and test/unit/config-docs.test.ts holds the README table to
 * {@link CONFIG_DOCS} (names, order, defaults), so the two cannot drift; a test checks that
 * loadConfig reads exactly the documented names.
 */

/** Development defaults. The credential ones are refused when NODE_ENV=production. */
export const DEFAULTS = {
  NODE_ENV: 'development',
  PORT: 8080,
  HOST: '127.0.0.1',
  HTTP2: false,
  DATA_DIR: './data',
  ADMIN_USERNAME: 'admin',
  ADMIN_PASSWORD: 'password',
  API_KEYS: 'test-api-key-123',
  TOKEN_TTL_SECONDS: 3600,
  RATE_LIMIT_PER_MINUTE: 600,
  AUTH_FAILURES_PER_MINUTE: 10,
  LARGE_DATA_PER_CLIENT: 2,
  SEED: 'demo',
  STORAGE: 'journal',
  ETCD_PREFIX: '/user-service',
  ETCD_LEASE_TTL_SECONDS: 10,
  WORKERS: '1',
  UPLOAD_MAX_BYTES: 10 * 1024 * 1024,
  UPLOAD_MAX_FILES: 1,
  BODY_LIMIT_BYTES: 1024 * 1024,
  CORS_ORIGIN: '*',
  CORS_METHODS: 'GET, POST, PUT, DELETE',
  CORS_HEADERS: 'X-API-Key, Content-Type',
  SHUTDOWN_DEADLINE_MS: 10_000,
  SHUTDOWN_DELAY_MS: 0,
  LOG_REQUESTS: true,
  TRACING: false,
} as const;

/** Name of the file under DATA_DIR holding the generated development token secret. */
export const TOKEN_SECRET_FILE = 'token-secret';

/** One documented environment variable. */
export interface ConfigDoc {
  readonly name: string;
  /** Default as shown in the README; `(none)` when unset means "feature off". */
  readonly default: string;
  readonly description: string;
}

const D = DEFAULTS;

/**
 * The configuration reference, in README order.
 * @example CONFIG_DOCS.map((d) => `| ${d.name} | ${d.default} | ${d.description} |`).join('\n')
 */
export const CONFIG_DOCS: readonly ConfigDoc[] = Object.freeze([
  {
    name: 'NODE_ENV',
    default: D.NODE_ENV,
    description: '`production` refuses to start while a development credential or secret is in use.',
  },
  { name: 'PORT', default: String(D.PORT), description: 'TCP port to listen on (0-65535; 0 picks a free port).' },
  { name: 'HOST', default: D.HOST, description: 'Interface to bind. Loopback by default; set `0.0.0.0` to expose the service.' },
  {
    name: 'TLS_CERT_FILE',
    default: '(none)',
    description:
      'PEM certificate (chain) file: with `TLS_KEY_FILE`, serve HTTPS. Refused at start-up when unreadable, set without `TLS_KEY_FILE`, or not matching the key.',
  },
  {
    name: 'TLS_KEY_FILE',
    default: '(none)',
    description: "PEM private key file of `TLS_CERT_FILE`'s certificate; refused when unreadable or set alone.",
  },
  {
    name: 'HTTP2',
    default: String(D.HTTP2),
    description:
      '`true`: HTTP/2. With TLS, negotiated by ALPN, HTTP/1.1 clients served on the same port; without TLS, h2c with prior knowledge only (no HTTP/1.1).',
  },
  {
    name: 'METRICS_PORT',
    default: '(none)',
    description:
      'Port of a separate metrics listener on `HOST` (0-65535; 0 picks a free one): `GET /metrics` answers the Prometheus text format (HTTP metrics by route, store commit and etcd latencies). Off when unset; refused when equal to `PORT`, or with `WORKERS` other than 1.',
  },
  { name: 'DATA_DIR', default: D.DATA_DIR, description: 'Directory for the journal, snapshots, uploads and the generated token secret.' },
  {
    name: 'ADMIN_USERNAME',
    default: D.ADMIN_USERNAME,
    description: 'Admin account for HTTP Basic and `POST /api/auth/login`. No `:` or control characters.',
  },
  {
    name: 'ADMIN_PASSWORD',
    default: D.ADMIN_PASSWORD,
    description: 'Admin password; hashed with scrypt at start-up. Development default refused in production.',
  },
  {
    name: 'API_KEYS',
    default: D.API_KEYS,
    description: 'Comma-separated accepted `X-API-Key` values (visible ASCII). Development default refused in production.',
  },
  {
    name: 'TOKEN_SECRET',
    default: `generated, kept in DATA_DIR/${TOKEN_SECRET_FILE}`,
    description:
      'HMAC-SHA256 key for access tokens, at least 32 bytes. Unset: 32 random bytes are generated once and stored with mode 0600; refused in production.',
  },
  { name: 'TOKEN_TTL_SECONDS', default: String(D.TOKEN_TTL_SECONDS), description: 'Access token lifetime in seconds (1-2592000).' },
  {
    name: 'JWT_ISSUER',
    default: '(none)',
    description: 'With `JWT_AUDIENCE` and `JWKS_URL` (all three or none): `/api/protected/*` also accepts JWTs whose `iss` is this.',
  },
  { name: 'JWT_AUDIENCE', default: '(none)', description: 'The `aud` external JWTs must carry (a string, or an array containing it).' },
  {
    name: 'JWKS_URL',
    default: '(none)',
    description: "The external issuer's JWK Set: https (plain http only to a loopback host); cached, refetched on an unknown `kid`.",
  },
  {
    name: 'LARGE_DATA_PER_CLIENT',
    default: String(D.LARGE_DATA_PER_CLIENT),
    description: '`/api/large-data` responses in flight per client address (429 beyond; 64 in total, 503 beyond).',
  },
  {
    name: 'AUTH_FAILURES_PER_MINUTE',
    default: String(D.AUTH_FAILURES_PER_MINUTE),
    description:
      'Failed authentications (Basic, login, Bearer, API key) allowed per client address and per account in a sliding minute; then 429 + Retry-After before any check. 0 disables.',
  },
  {
    name: 'RATE_LIMIT_PER_MINUTE',
    default: String(D.RATE_LIMIT_PER_MINUTE),
    description:
      'Requests per client per sliding minute (keyed by principal, API key or socket address); 429 with Retry-After beyond it. 0 disables.',
  },
  { name: 'SEED', default: D.SEED, description: '`demo` loads sample users into an empty store; `none` starts empty.' },
  {
    name: 'STORAGE',
    default: D.STORAGE,
    description:
      '`journal` (fsync-ed append log in DATA_DIR, one instance), `etcd` (an etcd v3 cluster shared by several instances) or `memory` (lost on exit).',
  },
  {
    name: 'ETCD_ENDPOINTS',
    default: '(none)',
    description:
      'With `STORAGE=etcd` (required then): comma-separated http(s) client URLs of the etcd members; calls fail over between them.',
  },
  {
    name: 'ETCD_PREFIX',
    default: D.ETCD_PREFIX,
    description: "With `STORAGE=etcd`: key prefix of this service's data; instances of one service share it.",
  },
  {
    name: 'ETCD_LEASE_TTL_SECONDS',
    default: String(D.ETCD_LEASE_TTL_SECONDS),
    description:
      "With `STORAGE=etcd`: TTL of an instance's lease (2-300), renewed every third of it; when an instance dies, the others take its async jobs over within about this long.",
  },
  {
    name: 'WORKERS',
    default: D.WORKERS,
    description:
      'Worker processes serving the port (a number, or `auto` for one per core). More than 1 needs `STORAGE=etcd`: each worker is one instance of the shared store.',
  },
  {
    name: 'FILES_DIR',
    default: 'DATA_DIR/files',
    description:
      'Directory of uploaded file contents; with several instances, one directory they all share (their records are in the store).',
  },
  {
    name: 'PRODUCT_CATALOG_URL',
    default: '(none)',
    description: 'Base http(s) URL of the product catalogue; `GET /api/products/{id}` calls `{url}/products/{id}`.',
  },
  {
    name: 'PUBLIC_BASE_URL',
    default: '(none)',
    description:
      "Base http(s) URL clients reach the service at (behind a proxy); `Location` values use it instead of the request's `Host`.",
  },
  { name: 'UPLOAD_MAX_BYTES', default: String(D.UPLOAD_MAX_BYTES), description: 'Largest accepted upload file in bytes (413 beyond).' },
  { name: 'UPLOAD_MAX_FILES', default: String(D.UPLOAD_MAX_FILES), description: 'File parts accepted per upload request (1-100).' },
  { name: 'BODY_LIMIT_BYTES', default: String(D.BODY_LIMIT_BYTES), description: 'Largest JSON request body in bytes (413 beyond).' },
  { name: 'CORS_ORIGIN', default: D.CORS_ORIGIN, description: 'Value of `Access-Control-Allow-Origin`.' },
  { name: 'CORS_METHODS', default: D.CORS_METHODS, description: 'Value of `Access-Control-Allow-Methods`.' },
  { name: 'CORS_HEADERS', default: D.CORS_HEADERS, description: 'Value of `Access-Control-Allow-Headers`.' },
  {
    name: 'SHUTDOWN_DEADLINE_MS',
    default: String(D.SHUTDOWN_DEADLINE_MS),
    description: 'On SIGTERM/SIGINT, time in-flight requests get before connections are closed (0-600000).',
  },
  {
    name: 'SHUTDOWN_DELAY_MS',
    default: String(D.SHUTDOWN_DELAY_MS),
    description:
      'On SIGTERM/SIGINT, time the service keeps serving as usual with `/api/health/ready` answering 503 before the close begins, so a load balancer stops sending to it (0-600000).',
  },
  {
    name: 'LOG_REQUESTS',
    default: String(D.LOG_REQUESTS),
    description: 'One log line per request (`true`/`false`, also `1`/`0`, `yes`/`no`).',
  },
  {
    name: 'TRACING',
    default: String(D.TRACING),
    description:
      'OpenTelemetry traces (`true`/`false`): a server span per request, a client span per upstream catalogue call. Needs `@opentelemetry/api` and an SDK installed (README "Traces").',
  },
]);
