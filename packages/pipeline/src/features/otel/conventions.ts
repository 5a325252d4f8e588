/**
 * What OpenTelemetry's HTTP semantic conventions (stable since v1.23, "HTTP spans") ask of server
 * and client spans, written once: attribute names, the known methods, span names, query
 * redaction. https://opentelemetry.io/docs/specs/semconv/http/http-spans/
 */

/** Attribute names (semantic conventions, stable). */
export const ATTR = Object.freeze({
  method: 'http.request.method',
  methodOriginal: 'http.request.method_original',
  route: 'http.route',
  status: 'http.response.status_code',
  errorType: 'error.type',
  urlPath: 'url.path',
  urlQuery: 'url.query',
  urlScheme: 'url.scheme',
  urlFull: 'url.full',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  clientAddress: 'client.address',
  userAgent: 'user_agent.original',
  protocolVersion: 'network.protocol.version',
});

/** The methods of RFC 9110 §9 and PATCH (RFC 5789): the conventions' default "known" methods. */
export const KNOWN_METHODS: readonly string[] = Object.freeze([
  'CONNECT',
  'DELETE',
  'GET',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'POST',
  'PUT',
  'TRACE',
]);

/** Checks a `knownMethods` option (case-sensitive method names); the conventions' list when absent. */
export function knownMethods(option: readonly string[] | undefined, owner: string): ReadonlySet<string> {
  if (option === undefined) return new Set(KNOWN_METHODS);
  for (const m of option) {
    if (typeof m !== 'string' || !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(m)) {
      throw new TypeError(`${owner}: knownMethods must be HTTP method names (RFC 9110 §9 tokens), got ${JSON.stringify(m)}`);
    }
  }
  return new Set(option);
}

/**
 * The method attributes: a method the instrumentation does not know is `_OTHER`, with the original
 * in `http.request.method_original`, and names its span `HTTP` (conventions, "Name").
 */
export function methodAttributes(method: string, known: ReadonlySet<string>, attrs: Record<string, string | number>): string {
  if (known.has(method)) {
    attrs[ATTR.method] = method;
    return method;
  }
  attrs[ATTR.method] = '_OTHER';
  attrs[ATTR.methodOriginal] = method;
  return 'HTTP';
}

/**
 * Query parameters whose values the conventions ask to redact by default (`url.query`, `url.full`):
 * signed-URL credentials of S3, Azure and Google Cloud Storage.
 */
const REDACTED_KEYS = ['AWSAccessKeyId', 'Signature', 'sig', 'X-Goog-Signature'];
const MAY_HOLD_SECRET = /(?:^|&)(?:AWSAccessKeyId|Signature|sig|X-Goog-Signature)=/;

/** The query with the values of signed-URL parameters replaced by `REDACTED`, keys kept. */
export function redactQuery(query: string): string {
  if (!MAY_HOLD_SECRET.test(query)) return query;
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq > 0 && REDACTED_KEYS.includes(pair.slice(0, eq)) ? `${pair.slice(0, eq)}=REDACTED` : pair;
    })
    .join('&');
}

/**
 * `server.address` and `server.port` from a `Host` header (conventions, "Setting server.address
 * and server.port"): `example.com:8080`, `[::1]:3000`; the port is left out when the header has none.
 */
export function hostAttributes(host: string | undefined, attrs: Record<string, string | number>): void {
  if (host === undefined || host === '') return;
  let name = host;
  let port: string | undefined;
  if (host.charCodeAt(0) === 91 /* '[' */) {
    const close = host.indexOf(']');
    if (close < 0) return;
    name = host.slice(1, close);
    if (host.charCodeAt(close + 1) === 58 /* ':' */) port = host.slice(close + 2);
  } else {
    const colon = host.lastIndexOf(':');
    if (colon >= 0) {
      name = host.slice(0, colon);
      port = host.slice(colon + 1);
    }
  }
  attrs[ATTR.serverAddress] = name;
  const n = port === undefined ? NaN : Number(port);
  if (Number.isSafeInteger(n) && n > 0 && n < 65536) attrs[ATTR.serverPort] = n;
}

/** `network.protocol.version` as the conventions spell it: `1.0`, `1.1`, `2`. */
export function protocolVersion(httpVersion: string | undefined): string | undefined {
  if (httpVersion === undefined || httpVersion === '') return undefined;
  return httpVersion === '2.0' ? '2' : httpVersion;
}

/**
 * A low-cardinality `error.type` for an error (conventions, `error.type`): a client or pipeline
 * error's stable `code` when it has one, else the error's class name, else `_OTHER`.
 */
export function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    const name = (error as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === 'string' && name !== '' && name !== 'Object') return name;
  }
  return '_OTHER';
}
