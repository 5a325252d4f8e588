/**
 * Receiving one multipart/form-data upload (`docs/api.md` rule 21, POST /api/files/upload) from
 * the parts the pipeline's multipart reader hands out in order: the `file` part is streamed to a
 * temporary file, fsynced, and described; every failure deletes that file before the promise
 * rejects. The reader enforces the byte limits (a part is never silently cut short: a limit fails
 * the part being read); this module counts files and fields, refuses duplicates, and turns the
 * reader's errors into the service's `UPLOAD_*` codes.
 *
 * Part media type: a missing part Content-Type is `text/plain` (the RFC 7578 §4.4 default), and so
 * is an unparsable one; any type that is not a valid `type/subtype` becomes `application/octet-stream`.
 */
import { open, rm } from 'node:fs/promises';
import { BadRequestError, BodyErrorCode, NotSupportedError, PayloadTooLargeError, WebApplicationError } from '@jaxrs-node/pipeline';
import { MultipartErrorCode, type EntityPart, type MultipartBody, type MultipartLimits } from '@jaxrs-node/pipeline/multipart';
import { normalizeMediaType, sanitizeFilename, sanitizeText } from './metadata.js';

/** Limits of one upload request. */
export interface UploadLimits {
  /** Largest accepted file, in bytes; one byte more is 413. */
  maxFileBytes: number;
  /** File parts accepted (any name); one more is 413. */
  maxFiles: number;
  /** Non-file fields accepted; one more is 413. */
  maxFields: number;
  /** Largest accepted field value, in bytes; one byte more is 413. */
  maxFieldBytes: number;
}

/** Defaults of {@link UploadLimits}: one file of at most 10 MiB, ten fields of at most 64 KiB. */
export const DEFAULT_UPLOAD_LIMITS: Readonly<UploadLimits> = Object.freeze({
  maxFileBytes: 10 * 1024 * 1024,
  maxFiles: 1,
  maxFields: 10,
  maxFieldBytes: 64 * 1024,
});

/** What {@link receiveUpload} learnt; the bytes are in the temporary file it was given. */
export interface ReceivedUpload {
  size: number;
  /** Sanitised client filename (metadata only, never a path). */
  filename: string;
  contentType: string;
  description?: string;
}

// A part's header block is at most 16 KiB (the reader's default); add room for the boundary lines.
const PART_OVERHEAD_BYTES = 16 * 1024 + 512;

/** Largest body a valid upload under `limits` can have; a larger Content-Length is 413 unread. */
export function maxUploadBodyBytes(limits: UploadLimits): number {
  const parts = limits.maxFiles + limits.maxFields;
  return limits.maxFiles * limits.maxFileBytes + limits.maxFields * limits.maxFieldBytes + (parts + 1) * PART_OVERHEAD_BYTES;
}

/**
 * The 413 of an upload over its limits, naming the file limit the operator configured
 * (`UPLOAD_MAX_BYTES`): the reader's own messages name its internal bounds (the whole body's,
 * {@link maxUploadBodyBytes}: the file plus room for fields and part headers), which no client set.
 */
export function uploadTooLarge(limits: UploadLimits, file = false, cause?: unknown): PayloadTooLargeError {
  return new PayloadTooLargeError(`${file ? 'File' : 'Upload'} too large: files of at most ${limits.maxFileBytes} bytes are accepted`, {
    code: file ? 'UPLOAD_FILE_TOO_LARGE' : 'UPLOAD_BODY_TOO_LARGE',
    cause,
  });
}

/** The multipart reader's limits for uploads under `limits` (the `MultipartFeature` of the service). */
export function multipartLimits(limits: UploadLimits): Partial<MultipartLimits> {
  return {
    partSize: limits.maxFileBytes,
    fieldSize: limits.maxFieldBytes,
    parts: limits.maxFiles + limits.maxFields,
    totalSize: maxUploadBodyBytes(limits),
  };
}

/**
 * Reads `parts` to their end, writing the part named `file` to `partPath` (created exclusively,
 * mode 0600, fsynced before resolving) and keeping the `description` field; other parts are
 * drained and counted. On any failure (limits, malformed body, client abort, disk error) `partPath`
 * is deleted and then the promise rejects with an HTTP error: 413 limits, 400 malformed/aborted/
 * missing or empty `file`/duplicate part, 507 disk full; other I/O errors are passed through (500).
 */
export async function receiveUpload(parts: MultipartBody, partPath: string, limits: UploadLimits): Promise<ReceivedUpload> {
  let file: { filename: string; contentType: string; size: number } | undefined;
  let description: string | undefined;
  let files = 0;
  let fields = 0;
  try {
    for await (const part of parts) {
      if (part.isFile) {
        if (++files > limits.maxFiles) {
          throw new PayloadTooLargeError(`At most ${limits.maxFiles} file part(s) allowed`, { code: 'UPLOAD_TOO_MANY_FILES' });
        }
        if (part.name !== 'file') continue; // drained when the next part is asked for
        if (file !== undefined) throw duplicate('file');
        const described = { filename: sanitizeFilename(part.safeFilename), contentType: normalizeMediaType(part.mediaType.essence) };
        file = { ...described, size: await writeFilePart(part, partPath) };
      } else {
        if (++fields > limits.maxFields) {
          throw new PayloadTooLargeError(`At most ${limits.maxFields} field(s) allowed`, { code: 'UPLOAD_TOO_MANY_FIELDS' });
        }
        if (part.name !== 'description') continue; // other fields are counted, otherwise ignored
        if (description !== undefined) throw duplicate('description');
        description = sanitizeText(await part.text());
      }
    }
    if (file === undefined) throw new BadRequestError('Missing "file" part', { code: 'UPLOAD_MISSING_FILE' });
    if (file.size === 0) throw new BadRequestError('The uploaded file is empty', { code: 'UPLOAD_EMPTY_FILE' });
    return { ...file, ...(description === undefined ? {} : { description }) };
  } catch (error) {
    await rm(partPath, { force: true }).catch(() => undefined);
    throw toUploadError(error, limits);
  }
}

function duplicate(part: string): BadRequestError {
  return new BadRequestError(`More than one "${part}" part`, { code: 'UPLOAD_DUPLICATE_PART' });
}

/** Writes one file part to a new file and fsyncs it; on failure the file is removed and the error rethrown. */
async function writeFilePart(part: EntityPart, path: string): Promise<number> {
  let size = 0;
  const handle = await open(path, 'wx', 0o600);
  try {
    for await (const chunk of part.content as AsyncIterable<Buffer>) {
      for (let offset = 0; offset < chunk.length;) {
        const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset, size + offset);
        offset += bytesWritten;
      }
      size += chunk.length;
    }
    await handle.sync();
    await handle.close();
    return size;
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(path, { force: true });
    throw error;
  }
}

/**
 * The reader's codes as the service's, with the same statuses, except that a part header block
 * over 16 KiB is malformed (400), as it always was here. No message: the reader's own.
 */
const FROM_READER: Readonly<Record<string, readonly [status: number, code: string, message?: string]>> = {
  PIPE_UNSUPPORTED_MEDIA_TYPE: [415, 'UPLOAD_UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be multipart/form-data'],
  [MultipartErrorCode.Boundary]: [400, 'UPLOAD_BAD_BOUNDARY', 'multipart/form-data needs a valid boundary parameter'],
  [BodyErrorCode.TooLarge]: [413, 'UPLOAD_BODY_TOO_LARGE', 'Upload body too large'], // with limits: uploadTooLarge
  [MultipartErrorCode.PartTooLarge]: [413, 'UPLOAD_FILE_TOO_LARGE', 'File too large'], // with limits: uploadTooLarge
  [MultipartErrorCode.FieldTooLarge]: [413, 'UPLOAD_FIELD_TOO_LARGE', 'Field too large'],
  [MultipartErrorCode.TooManyParts]: [413, 'UPLOAD_TOO_MANY_PARTS', 'Too many parts'],
  [MultipartErrorCode.HeaderTooLarge]: [400, 'UPLOAD_MALFORMED', 'Malformed multipart body: a part header is too large'],
  [MultipartErrorCode.Malformed]: [400, 'UPLOAD_MALFORMED'],
  [BodyErrorCode.LengthMismatch]: [400, 'UPLOAD_MALFORMED', 'Malformed multipart body: its length contradicts Content-Length'],
  [BodyErrorCode.ReadFailed]: [400, 'UPLOAD_MALFORMED'],
  [BodyErrorCode.ClientAborted]: [400, 'UPLOAD_ABORTED', 'Upload aborted before the body was complete'],
};

const ABORT_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE', 'ABORT_ERR']);

/**
 * Maps what can go wrong while receiving to the HTTP error the client is owed: the multipart
 * reader's errors to `UPLOAD_*` codes, a full disk to 507; other errors pass through (500).
 * With `limits`, a size 413 names the configured file limit ({@link uploadTooLarge}).
 */
export function toUploadError(error: unknown, limits?: UploadLimits): unknown {
  if (error instanceof WebApplicationError) {
    if (limits !== undefined && (error.code === BodyErrorCode.TooLarge || error.code === MultipartErrorCode.PartTooLarge)) {
      return uploadTooLarge(limits, error.code === MultipartErrorCode.PartTooLarge, error);
    }
    const mapped = FROM_READER[error.code];
    if (mapped === undefined) return error;
    const [status, code, message = error.message] = mapped;
    if (status === 415) return new NotSupportedError(message, { code, cause: error });
    if (status === 413) return new PayloadTooLargeError(message, { code, cause: error });
    return new BadRequestError(message, { code, cause: error });
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && ABORT_CODES.has(code)) {
    return new BadRequestError('Upload aborted before the body was complete', { code: 'UPLOAD_ABORTED', cause: error });
  }
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new WebApplicationError(507, 'Insufficient storage', { code: 'UPLOAD_NO_SPACE', cause: error });
  }
  return error;
}
