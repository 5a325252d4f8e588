import type { ConnectionOptions } from 'node:tls';
import type { Dispatcher } from 'undici';
import type { Constructor } from '../core/context/contracts.js';
import type { ContainerRequestContext } from '../core/context/request-context.js';
import type { Application } from '../core/server/application.js';
import { inProcess } from './in-process.js';
import type { ByteRangeRequest } from './range.js';
import { retryPolicy, type RetryOptions, type RetryPolicy } from './retry.js';
import { UndiciTransport, type Transport } from './transport.js';
import { undici } from './undici.js';

/**
 * What to copy from the server request a call is made for (see {@link ClientOptions.propagate}):
 * a header name (copied when the server request has it), or a function giving headers.
 * @example const rules: PropagationRule[] = ['traceparent', (req) => ({ 'x-user': req.securityContext.principal?.name })];
 */
export type PropagationRule = string | ((request: ContainerRequestContext) => Readonly<Record<string, string | undefined>> | undefined);

/**
 * How a client is configured; every field is optional.
 * @example new Client({ baseUrl: 'http://users.internal', deadline: 2_000, retry: { maxRetries: 2 }, providers: [new BearerAuth(t)] })
 */
export interface ClientOptions {
  /** Where relative targets and contracts' paths are resolved: `https://api.example.com/v1`. */
  baseUrl?: string;
  /** Client providers (classes or instances): filters, interceptors, readers, writers, converters, mappers, Features. */
  providers?: ReadonlyArray<Constructor | object>;
  /** TCP/TLS connect timeout in ms (undici transport); default 10 000. */
  connectTimeout?: number;
  /** From sending the request to the response headers, in ms; default 30 000. */
  headersTimeout?: number;
  /** Longest pause between two chunks of the response body, in ms (undici transport); default 30 000. */
  bodyTimeout?: number;
  /** The whole call (retries and reading the returned entity included), in ms; default none. */
  deadline?: number;
  /** Largest response body read, after decoding, in bytes; default 10 MiB. */
  maxResponseBytes?: number;
  /** Retries of idempotent requests (see {@link RetryOptions}); default none. */
  retry?: RetryOptions;
  /** Most sockets per origin in the client's pool; default unlimited (undici's default). */
  connections?: number;
  /**
   * Offer HTTP/2 to `https` origins (ALPN `h2`, undici's `allowH2`): calls to a server that
   * accepts it share one connection as streams; servers without it are spoken to in HTTP/1.1.
   * `http` origins stay HTTP/1.1. Default false.
   * @example new Client({ baseUrl: 'https://users.internal:8443', http2: true })
   */
  http2?: boolean;
  /**
   * TLS settings of `https` connections (undici transport): `ca` to trust a private CA, `cert` +
   * `key` for client certificates, `servername`.
   * @example new Client({ baseUrl: 'https://localhost:8443', tls: { ca: readFileSync('ca.pem') } })
   */
  tls?: Pick<ConnectionOptions, 'ca' | 'cert' | 'key' | 'passphrase' | 'servername' | 'rejectUnauthorized'>;
  /** Headers sent with every request (a request's own value wins). */
  headers?: Readonly<Record<string, string>>;
  /**
   * Headers carried over from the server request a call is made for: `withCallOptions(proxy, {
   * request })` on a typed client (a contract's `@Context()` request parameter is the server's, not
   * an argument of the client), or `propagateFrom(request)` on the fluent API. A request's own value
   * wins.
   * @example propagate: ['x-request-id', 'traceparent', (req) => ({ 'x-tenant': req.securityContext.principal?.name })]
   */
  propagate?: readonly PropagationRule[];
  /** An undici dispatcher to send through (a shared `Agent`, a `MockAgent`); the client does not close it. */
  dispatcher?: Dispatcher;
  /** Any {@link Transport}; the client closes it. */
  transport?: Transport;
  /** Run calls in-process through this application's `inject()` (same as `transport: inProcess(app)`). */
  application?: Application;
}

/**
 * Per-call settings (fluent calls and `withCallOptions`).
 * @example withCallOptions(users, { signal: request.signal, request, deadline: 500 }).get(7)
 */
export interface CallOptions {
  /** Aborts the call (and the body, while it is read) with the signal's reason. */
  signal?: AbortSignal;
  /** Deadline of this call in ms, replacing the client's. */
  deadline?: number;
  /** The server request the call is made for (see {@link ClientOptions.propagate}). */
  request?: ContainerRequestContext;
  /** Extra request headers. */
  headers?: Readonly<Record<string, string>>;
  /** Largest response body read for this call, in bytes. */
  maxResponseBytes?: number;
  /**
   * Ask for these bytes only (`Range`, and `If-Range` with `ifRange`); read the answer's
   * `contentRange` from `responseProxy`: a 206 carries the range, a 200 the whole representation.
   */
  range?: ByteRangeRequest;
}

/** The checked settings of a client. */
export interface ClientPolicy {
  readonly connectTimeout: number;
  readonly headersTimeout: number;
  readonly bodyTimeout: number;
  readonly deadline: number | undefined;
  readonly maxResponseBytes: number;
  readonly retry: RetryPolicy | undefined;
}

/** A positive integer option, or its default; a bad value fails naming the option. */
export function positive(name: string, value: number | undefined, dflt: number | undefined): number | undefined {
  if (value === undefined) return dflt;
  if (!Number.isSafeInteger(value) || value < 1)
    throw new TypeError(`${name} must be a positive integer (ms or bytes), got ${String(value)}`);
  return value;
}

/** The client's policy from its options (construction-time checks). */
export function resolvePolicy(o: ClientOptions): ClientPolicy {
  return {
    connectTimeout: positive('connectTimeout', o.connectTimeout, 10_000)!,
    headersTimeout: positive('headersTimeout', o.headersTimeout, 30_000)!,
    bodyTimeout: positive('bodyTimeout', o.bodyTimeout, 30_000)!,
    deadline: positive('deadline', o.deadline, undefined),
    maxResponseBytes: positive('maxResponseBytes', o.maxResponseBytes, 10 * 1024 * 1024)!,
    retry: retryPolicy(o.retry),
  };
}

/** The base URL, checked: absolute http(s), no query or fragment; without a trailing slash. */
export function resolveBaseUrl(baseUrl: string | undefined): string | undefined {
  if (baseUrl === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`baseUrl must be an absolute http(s) URL, got ${JSON.stringify(baseUrl)}`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') {
    throw new TypeError(`baseUrl must be an http(s) URL without query or fragment, got ${JSON.stringify(baseUrl)}`);
  }
  return url.href.replace(/\/+$/, '');
}

/** The transport the options ask for: one of `transport`, `application`, `dispatcher`, else a new undici Agent. */
export function resolveTransport(o: ClientOptions, policy: ClientPolicy): Transport {
  const given = (['transport', 'application', 'dispatcher'] as const).filter((k) => o[k] !== undefined);
  if (given.length > 1) throw new TypeError(`Client options ${given.join(' and ')} exclude each other: give one`);
  const timeouts = { headersTimeout: policy.headersTimeout, bodyTimeout: policy.bodyTimeout };
  if (o.transport !== undefined) return o.transport;
  if (o.application !== undefined) return inProcess(o.application);
  if (o.dispatcher !== undefined) return new UndiciTransport(o.dispatcher, false, timeouts);
  if (o.http2 !== undefined && typeof o.http2 !== 'boolean') throw new TypeError(`http2 must be true or false, got ${String(o.http2)}`);
  const agent = new undici.Agent({
    connect: { timeout: policy.connectTimeout, ...o.tls },
    ...(o.http2 === true ? { allowH2: true } : {}),
    headersTimeout: policy.headersTimeout,
    bodyTimeout: policy.bodyTimeout,
    ...(o.connections === undefined ? {} : { connections: positive('connections', o.connections, undefined) }),
  });
  return new UndiciTransport(agent, true, timeouts);
}
