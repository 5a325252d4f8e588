/**
 * What a client call can fail with. A failure to get or read a response is a
 * {@link ClientProcessingError} (JAX-RS `ProcessingException`), with a stable `code`; a response
 * with an error status is a {@link ClientResponseError} (JAX-RS `WebApplicationException` on the
 * client side) carrying the status, headers and parsed body. Neither extends the server's
 * `WebApplicationError`: an upstream's 404 thrown through a resource method must not become this
 * server's 404 by accident, so unmapped client errors reach the server as 500s.
 */
import { STATUS_CODES, type IncomingHttpHeaders } from 'node:http';

/**
 * Stable codes of {@link ClientProcessingError}.
 * @example if (e instanceof ClientProcessingError && e.code === ClientErrorCode.ResponseTooLarge) ...
 */
export const ClientErrorCode = {
  /** The TCP (or TLS) connection was not established within `connectTimeout`. */
  ConnectTimeout: 'CLIENT_CONNECT_TIMEOUT',
  /** No response headers within `headersTimeout` of sending the request. */
  HeadersTimeout: 'CLIENT_HEADERS_TIMEOUT',
  /** The response body paused longer than `bodyTimeout`. */
  BodyTimeout: 'CLIENT_BODY_TIMEOUT',
  /** The call's `deadline` passed (retries and reading the entity included). */
  Deadline: 'CLIENT_DEADLINE',
  /** The server could not be reached: refused, unknown host, no route. Nothing was sent. */
  Unreachable: 'CLIENT_UNREACHABLE',
  /** The connection failed during the exchange (reset, closed early, malformed response). */
  ConnectionFailed: 'CLIENT_CONNECTION_FAILED',
  /** The client (or the dispatcher it was given) is closed. */
  Closed: 'CLIENT_CLOSED',
  /** The response body is larger than `maxResponseBytes`. */
  ResponseTooLarge: 'CLIENT_RESPONSE_TOO_LARGE',
  /** No reader for the response's type and media type, or the reader refused the bytes. */
  ResponseUnreadable: 'CLIENT_RESPONSE_UNREADABLE',
  /** No writer for the request entity, or the writer failed. */
  RequestUnwritable: 'CLIENT_REQUEST_UNWRITABLE',
  /** `readEntity` was called on a body that was already read (call `bufferEntity()` first). */
  EntityConsumed: 'CLIENT_ENTITY_CONSUMED',
  /** Any other failure of the transport. */
  RequestFailed: 'CLIENT_REQUEST_FAILED',
} as const;
export type ClientErrorCode = (typeof ClientErrorCode)[keyof typeof ClientErrorCode];

/**
 * A call that produced no usable response: the transport failed, a timeout passed, or the
 * response could not be read (JAX-RS `ProcessingException`).
 * @example
 * try { await users.get(7); } catch (e) {
 *   if (e instanceof ClientProcessingError && e.code === ClientErrorCode.Unreachable) return cached(7);
 *   throw e;
 * }
 */
export class ClientProcessingError extends Error {
  readonly code: ClientErrorCode;

  constructor(code: ClientErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}

/** Which limit a {@link ClientTimeoutError} hit. @example if (e.phase === 'connect') markDown(host); */
export type TimeoutPhase = 'connect' | 'headers' | 'body' | 'deadline';

const TIMEOUT_CODES: Record<TimeoutPhase, ClientErrorCode> = {
  connect: ClientErrorCode.ConnectTimeout,
  headers: ClientErrorCode.HeadersTimeout,
  body: ClientErrorCode.BodyTimeout,
  deadline: ClientErrorCode.Deadline,
};

/**
 * A timeout of the call: `phase` says which one (`connect`, `headers`, `body` or the whole call's
 * `deadline`), `timeoutMs` its setting (undefined when the transport reported it without one).
 * @example
 * if (e instanceof ClientTimeoutError) throw new GatewayTimeoutError(`catalog: ${e.phase} timeout`);
 */
export class ClientTimeoutError extends ClientProcessingError {
  readonly phase: TimeoutPhase;
  readonly timeoutMs: number | undefined;

  constructor(phase: TimeoutPhase, timeoutMs: number | undefined, options: { cause?: unknown } = {}) {
    const limit = timeoutMs === undefined ? '' : ` (${timeoutMs} ms)`;
    super(TIMEOUT_CODES[phase], `The ${phase === 'deadline' ? 'call deadline' : `${phase} timeout`} passed${limit}`, options);
    this.phase = phase;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A response whose status is an error (by default every status >= 400; see
 * `ResponseExceptionMapper`): the status, headers and body (parsed by the client's readers: JSON
 * as a value, text as a string, other bytes as a string when they are UTF-8, else a Buffer;
 * undefined when empty or unreadable).
 * @example
 * try { await users.get(7); } catch (e) {
 *   if (e instanceof ClientResponseError && e.status === 404) return undefined;
 *   throw e;
 * }
 */
export class ClientResponseError extends Error {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
  /** `CLIENT_HTTP_<status>`, or the `code` field of a JSON error body when it has one. */
  readonly code: string;

  constructor(status: number, headers: IncomingHttpHeaders, body: unknown, message?: string) {
    super(message ?? `The server answered ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd());
    this.name = new.target.name;
    this.status = status;
    this.headers = headers;
    this.body = body;
    const code = typeof body === 'object' && body !== null ? (body as { code?: unknown }).code : undefined;
    this.code = typeof code === 'string' ? code : `CLIENT_HTTP_${status}`;
  }

  /** The reason phrase of the status (RFC 9110), e.g. `Not Found`. */
  get reason(): string {
    return STATUS_CODES[this.status] ?? 'Error';
  }
}
