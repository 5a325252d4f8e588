import { BadRequestError, NotSupportedError, PayloadTooLargeError, type WebApplicationError } from '../core/http/errors.js';
import type { MediaType } from '../core/http/media-type.js';
import { truncate } from '../core/util/type-name.js';

/**
 * Stable `code`s of the errors raised by the built-in body readers, so callers (the lifecycle,
 * exception mappers, tests) can tell them apart without parsing messages.
 */
export const BodyErrorCode = {
  /** 413: declared or streamed body above the limit. */
  TooLarge: 'PIPE_BODY_TOO_LARGE',
  /** 400: the byte count differs from `Content-Length`, or `Content-Length` is not a number. */
  LengthMismatch: 'PIPE_BODY_LENGTH_MISMATCH',
  /** 400: the client went away (or reset) while the body was being read. */
  ClientAborted: 'PIPE_CLIENT_ABORTED',
  /** 400: the body stream failed for another reason (e.g. a corrupt gzip stream). */
  ReadFailed: 'PIPE_BODY_READ_FAILED',
  /** 400: the body is not valid JSON (or not valid UTF-8). */
  InvalidJson: 'PIPE_INVALID_JSON',
  /** 400: `__proto__` or `constructor.prototype` key (prototype poisoning). */
  ForbiddenKey: 'PIPE_JSON_FORBIDDEN_KEY',
  /** 400: JSON nested deeper than the reader's bound. */
  TooDeep: 'PIPE_JSON_TOO_DEEP',
  /** 400: a JSON number outside the double range (`1e400` parses to Infinity). */
  NonFiniteNumber: 'PIPE_JSON_NON_FINITE',
  /** 400: text body bytes invalid in the declared charset. */
  InvalidText: 'PIPE_INVALID_TEXT',
  /** 415: a charset the reader cannot decode. */
  UnsupportedCharset: 'PIPE_UNSUPPORTED_CHARSET',
  /** 413: a form with more fields than allowed. */
  TooManyFields: 'PIPE_FORM_TOO_MANY_FIELDS',
} as const;
export type BodyErrorCode = (typeof BodyErrorCode)[keyof typeof BodyErrorCode];

/** 413 for a body above `limit` bytes. */
export function tooLarge(limit: number): WebApplicationError {
  return new PayloadTooLargeError(`Request body exceeds the limit of ${limit} bytes`, { code: BodyErrorCode.TooLarge });
}

/** 400 for a body whose size contradicts its `Content-Length`. */
export function lengthMismatch(received: number, declared: number): WebApplicationError {
  return new BadRequestError(`Request body has ${received} bytes, Content-Length declares ${declared}`, {
    code: BodyErrorCode.LengthMismatch,
  });
}

/** 400 with code `PIPE_CLIENT_ABORTED`: nobody will see the response, but the code lets the caller skip logging. */
export function clientAborted(cause?: unknown): WebApplicationError {
  return new BadRequestError('The client aborted the request body', { code: BodyErrorCode.ClientAborted, cause });
}

/** Error codes (Node and libuv) that mean "the peer went away", not "the bytes were bad". */
const ABORT_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);

/**
 * Turns an error emitted by a body stream into the error a reader rejects with: HTTP errors
 * (e.g. a 413 from an upstream limit guard) pass through; resets become `PIPE_CLIENT_ABORTED`;
 * anything else (a decoder's `Z_DATA_ERROR`) is the client's bad bytes: 400.
 */
export function streamError(err: unknown): Error {
  if (err instanceof Error && typeof (err as { status?: unknown }).status === 'number') return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && ABORT_CODES.has(code)) return clientAborted(err);
  if (err instanceof Error && err.message === 'aborted') return clientAborted(err);
  return new BadRequestError('The request body could not be read', { code: BodyErrorCode.ReadFailed, cause: err });
}

/** 415 for a charset a reader does not decode. */
export function unsupportedCharset(charset: string, mediaType: MediaType): WebApplicationError {
  // Bound the echoed value: the header is client-controlled.
  const shown = truncate(charset);
  return new NotSupportedError(`Charset ${shown} is not supported for ${mediaType.essence}`, {
    code: BodyErrorCode.UnsupportedCharset,
  });
}
