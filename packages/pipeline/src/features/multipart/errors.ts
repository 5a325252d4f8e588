import { BadRequestError, PayloadTooLargeError, type WebApplicationError } from '../../core/http/errors.js';

/**
 * Stable `code`s of the errors the multipart reader raises. Besides these, a body above
 * `totalSize` is 413 `PIPE_BODY_TOO_LARGE`, a client that goes away is 400 `PIPE_CLIENT_ABORTED`
 * and a byte count that contradicts `Content-Length` is 400 `PIPE_BODY_LENGTH_MISMATCH`, as for
 * every body (`BodyErrorCode`).
 *
 * @example
 * if (error instanceof WebApplicationError && error.code === MultipartErrorCode.PartTooLarge) { ... }
 */
export const MultipartErrorCode = {
  /** 400: `Content-Type` has no boundary, or one RFC 2046 §5.1.1 does not allow. */
  Boundary: 'PIPE_MULTIPART_BOUNDARY',
  /** 400: the body is not multipart as declared: a malformed part header, or it ends before the closing delimiter. */
  Malformed: 'PIPE_MULTIPART_MALFORMED',
  /** 413: a file part above `partSize`. */
  PartTooLarge: 'PIPE_MULTIPART_PART_TOO_LARGE',
  /** 413: a text field above `fieldSize`. */
  FieldTooLarge: 'PIPE_MULTIPART_FIELD_TOO_LARGE',
  /** 413: more parts than `parts`. */
  TooManyParts: 'PIPE_MULTIPART_TOO_MANY_PARTS',
  /** 413: a part's header block above `headerSize`. */
  HeaderTooLarge: 'PIPE_MULTIPART_HEADER_TOO_LARGE',
} as const;
export type MultipartErrorCode = (typeof MultipartErrorCode)[keyof typeof MultipartErrorCode];

/** 400 for a missing or invalid boundary parameter. */
export function badBoundary(detail: string): WebApplicationError {
  return new BadRequestError(`multipart/form-data needs a valid boundary parameter: ${detail}`, { code: MultipartErrorCode.Boundary });
}

/** 400 for what busboy could not parse. */
export function malformed(cause: unknown): WebApplicationError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new BadRequestError(`Malformed multipart body: ${detail}`, { code: MultipartErrorCode.Malformed, cause });
}

/** 413 for one of the per-part limits. */
export function limitExceeded(code: MultipartErrorCode, message: string): WebApplicationError {
  return new PayloadTooLargeError(message, { code });
}
