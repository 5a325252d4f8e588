import { STATUS_CODES } from 'node:http';
import type { Response } from './response.js';

/** Options accepted by every HTTP error class. */
export interface WebApplicationErrorOptions {
  /** Extra response headers (e.g. `Allow`, `WWW-Authenticate`, `Retry-After`). */
  headers?: Record<string, string>;
  /** A complete response to send as is (JAX-RS: an exception that carries an entity is not mapped). */
  response?: Response;
  /** Stable machine-readable code, e.g. `PIPE_BODY_TOO_LARGE`. */
  code?: string;
  /** Structured details (e.g. validation violations) for error-body writers. */
  details?: unknown;
  cause?: unknown;
}

/**
 * Base of every HTTP error (JAX-RS `WebApplicationException`).
 * `expose` follows Koa: 4xx messages are shown to clients, 5xx messages never are.
 */
export class WebApplicationError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly response: Response | undefined;
  readonly code: string;
  readonly details: unknown;
  readonly expose: boolean;

  constructor(status = 500, message?: string, options: WebApplicationErrorOptions = {}) {
    super(message ?? STATUS_CODES[status] ?? 'Error', options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.headers = options.headers ?? {};
    this.response = options.response;
    this.code = options.code ?? `HTTP_${status}`;
    this.details = options.details;
    this.expose = status < 500;
  }

  /** The reason phrase of the status (RFC 9110), e.g. `Bad Request`. */
  get reason(): string {
    return STATUS_CODES[this.status] ?? 'Error';
  }
}

type Opts = WebApplicationErrorOptions;

/** 400 */
export class BadRequestError extends WebApplicationError {
  constructor(message?: string, options?: Opts) {
    super(400, message, options);
  }
}
/** 401; `challenge` becomes `WWW-Authenticate` (RFC 9110 §11.6.1). */
export class NotAuthorizedError extends WebApplicationError {
  constructor(challenge: string, message?: string, options: Opts = {}) {
    super(401, message, { ...options, headers: { ...options.headers, 'www-authenticate': challenge } });
  }
}
/** 403 */
export class ForbiddenError extends WebApplicationError {
  constructor(message?: string, options?: Opts) {
    super(403, message, options);
  }
}
/** 404 */
export class NotFoundError extends WebApplicationError {
  constructor(message?: string, options?: Opts) {
    super(404, message, options);
  }
}
/** 405 with `Allow` (RFC 9110 §15.5.6). */
export class NotAllowedError extends WebApplicationError {
  readonly allowed: readonly string[];
  constructor(allowed: readonly string[], message?: string, options: Opts = {}) {
    super(405, message, { ...options, headers: { ...options.headers, allow: allowed.join(', ') } });
    this.allowed = allowed;
  }
}
/** 406 */
export class NotAcceptableError extends WebApplicationError {
  constructor(message?: string, options?: Opts) {
    super(406, message, options);
  }
}
/** 409 */
export class ConflictError extends WebApplicationError {
  constructor(message?: string, options?: Opts) {
    super(409, message, options);
  }
}
/** 413 */
export class PayloadTooLargeError extends WebApplicationError {
  constructor(message?: string, options?: Opts) {
    super(413, message, options);
  }
}
/** 415 */
export class NotSupportedError extends WebApplicationError {
  constructor(message?: string, options?: Opts) {
    super(415, message, options);
  }
}
/** 422 */
export class UnprocessableEntityError extends WebApplicationError {
  constructor(message?: string, options?: Opts) {
    super(422, message, options);
  }
}
/** `Retry-After` value: whole seconds, rounded up, at least 1 (RFC 9110 §10.2.3). */
function retryAfter(seconds: number): string {
  return String(Math.max(1, Math.ceil(seconds)));
}

/** 429 with `Retry-After` in whole seconds, at least 1 (RFC 6585 §4). */
export class TooManyRequestsError extends WebApplicationError {
  constructor(retryAfterSeconds: number, message?: string, options: Opts = {}) {
    super(429, message, { ...options, headers: { ...options.headers, 'retry-after': retryAfter(retryAfterSeconds) } });
  }
}
/** 500 */
export class InternalServerError extends WebApplicationError {
  constructor(message?: string, options?: Opts) {
    super(500, message, options);
  }
}
/** 502 */
export class BadGatewayError extends WebApplicationError {
  constructor(message?: string, options?: Opts) {
    super(502, message, options);
  }
}
/** 503, optionally with `Retry-After`. */
export class ServiceUnavailableError extends WebApplicationError {
  constructor(message?: string, options: Opts & { retryAfterSeconds?: number } = {}) {
    const headers =
      options.retryAfterSeconds === undefined
        ? options.headers
        : { ...options.headers, 'retry-after': retryAfter(options.retryAfterSeconds) };
    super(503, message, { ...options, headers });
  }
}
/** 504 */
export class GatewayTimeoutError extends WebApplicationError {
  constructor(message?: string, options?: Opts) {
    super(504, message, options);
  }
}
