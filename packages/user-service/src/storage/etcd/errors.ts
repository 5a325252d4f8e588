/**
 * The one error type of the etcd client. etcd's JSON gateway (grpc-gateway) answers a failed call
 * with a non-2xx status and a body `{"error", "message", "code"}` whose `code` is the gRPC status
 * code (https://grpc.github.io/grpc/core/md_doc_statuscodes.html); the client maps it, and its own
 * transport failures, to {@link EtcdErrorCode}.
 */

/** gRPC status names by number, as etcd's gateway reports them in `code`. */
const GRPC_CODES = [
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
] as const;

/**
 * Why a call failed: a gRPC status name reported by etcd, or one of the client's own codes:
 * `CONNECTION` (refused, reset, closed early), `TIMEOUT` (the attempt or the call's deadline ran
 * out), `ABORTED_BY_CALLER` (the caller's AbortSignal fired), `RESPONSE_TOO_LARGE`,
 * `BAD_RESPONSE` (not the JSON expected), `HTTP` (a status without a gateway error body),
 * `COMPACTED` (a watch's start revision was compacted away), `WATCH_CANCELED`.
 */
export type EtcdErrorCode =
  | (typeof GRPC_CODES)[number]
  | 'CONNECTION'
  | 'TIMEOUT'
  | 'ABORTED_BY_CALLER'
  | 'RESPONSE_TOO_LARGE'
  | 'BAD_RESPONSE'
  | 'HTTP'
  | 'COMPACTED'
  | 'WATCH_CANCELED';

/** Details of an {@link EtcdError}. */
export interface EtcdErrorDetails {
  /** The endpoint of the (last) attempt. */
  readonly endpoint: string;
  /** Whether another attempt (on this or another endpoint) may succeed. */
  readonly retriable: boolean;
  /** HTTP status of the answer, when there was one. */
  readonly status?: number;
  /** For `COMPACTED`: the oldest revision still available. */
  readonly compactRevision?: number;
  readonly cause?: unknown;
}

/**
 * A failed etcd call.
 * @example
 * try {
 *   await etcd.range('users/1', { revision: 1 });
 * } catch (err) {
 *   if (err instanceof EtcdError && err.code === 'OUT_OF_RANGE') console.log('revision compacted');
 * }
 */
export class EtcdError extends Error {
  override readonly name = 'EtcdError';
  readonly code: EtcdErrorCode;
  readonly endpoint: string;
  readonly retriable: boolean;
  readonly status: number | undefined;
  readonly compactRevision: number | undefined;

  constructor(code: EtcdErrorCode, message: string, details: EtcdErrorDetails) {
    super(`${message} (${code} at ${details.endpoint})`, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.endpoint = details.endpoint;
    this.retriable = details.retriable;
    this.status = details.status;
    this.compactRevision = details.compactRevision;
  }
}

/**
 * The error for a non-2xx answer: the gateway's `{"error","message","code"}` body when present.
 * 5xx and 429 are retriable (etcd answers 503 for "no leader", "leader changed" and
 * "request timed out" while an election runs); other statuses are the caller's problem.
 * @example
 * const err = gatewayError('http://127.0.0.1:2379', 503, '{"error":"etcdserver: no leader","code":14}');
 */
export function gatewayError(endpoint: string, status: number, text: string): EtcdError {
  const retriable = status >= 500 || status === 429;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (typeof body === 'object' && body !== null) {
    const { code, message, error } = body as Record<string, unknown>;
    const name = typeof code === 'number' ? GRPC_CODES[code - 1] : undefined;
    const said = typeof message === 'string' ? message : typeof error === 'string' ? error : `HTTP ${status}`;
    if (name !== undefined) return new EtcdError(name, said, { endpoint, retriable, status });
  }
  return new EtcdError('HTTP', `HTTP ${status}`, { endpoint, retriable, status });
}
