/**
 * Transport errors (undici's, Node's socket errors) as {@link ClientProcessingError}s with stable
 * codes, so callers and `ClientFailureMapper`s never parse messages or undici internals.
 */
import { ClientErrorCode, ClientProcessingError, ClientTimeoutError } from './errors.js';

/** The configured timeouts, so a transport's own timeout error names its setting. */
export interface TimeoutSettings {
  readonly connectTimeout?: number;
  readonly headersTimeout?: number;
  readonly bodyTimeout?: number;
}

/** Nothing was sent: the server could not be reached at all. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN']);
/** The connection broke during the exchange. */
const BROKEN = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'ERR_STREAM_PREMATURE_CLOSE']);
const CLOSED = new Set(['UND_ERR_DESTROYED', 'UND_ERR_CLOSED']);

/** The first string `code` on the error, its `cause` chain, or the first error of an AggregateError. */
export function errorCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current instanceof AggregateError ? current.errors[0] : (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The first {@link ClientProcessingError} in the error's `cause` chain (readers wrap stream errors). */
export function clientErrorIn(err: unknown): ClientProcessingError | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    if (current instanceof ClientProcessingError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Is it an abort (`AbortError` / `TimeoutError`, a signal's reason) rather than a transport failure? */
export function isAbortError(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === 'AbortError' || (name === 'TimeoutError' && !(err instanceof ClientProcessingError));
}

/**
 * A failure of the transport as a client error: client errors pass through (a timeout this client
 * raised), aborts too (a caller's reason is its own), the rest get a code by what they mean.
 * @example transportFailure(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), {}).code // 'CLIENT_UNREACHABLE'
 */
export function transportFailure(err: unknown, timeouts: TimeoutSettings | undefined): Error {
  const known = clientErrorIn(err);
  if (known !== undefined) return known;
  if (isAbortError(err)) return err as Error;
  const code = errorCode(err);
  const cause = { cause: err };
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return new ClientTimeoutError('connect', timeouts?.connectTimeout, cause);
    case 'UND_ERR_HEADERS_TIMEOUT':
      return new ClientTimeoutError('headers', timeouts?.headersTimeout, cause);
    case 'UND_ERR_BODY_TIMEOUT':
      return new ClientTimeoutError('body', timeouts?.bodyTimeout, cause);
    case 'UND_ERR_RES_EXCEEDED_MAX_SIZE':
      return new ClientProcessingError(ClientErrorCode.ResponseTooLarge, 'The response body exceeds the dispatcher maxResponseSize', cause);
    default:
  }
  if (code !== undefined && UNREACHABLE.has(code)) {
    return new ClientProcessingError(ClientErrorCode.Unreachable, `The server could not be reached (${code})`, cause);
  }
  if (code !== undefined && CLOSED.has(code)) {
    return new ClientProcessingError(ClientErrorCode.Closed, 'The client is closed', cause);
  }
  if (code !== undefined && (BROKEN.has(code) || code.startsWith('HPE_'))) {
    return new ClientProcessingError(ClientErrorCode.ConnectionFailed, `The connection failed (${code})`, cause);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ClientProcessingError(ClientErrorCode.RequestFailed, `The request failed: ${message}`, cause);
}
