/**
 * Receiving one multipart/form-data upload (SPEC "Other endpoints", POST /api/files/upload) with
 * busboy: the `file` part is streamed to a temporary file, fsynced, and described; every failure
 * deletes that file before the promise rejects. busboy's documented behaviour has traps, handled here:
 * busboy never fails on a limit (it truncates), its constructor throws synchronously, and a file
 * stream that is not consumed stalls the whole form.
 *
 * After a failure the parser and the request stream are destroyed rather than drained, so an
 * oversized body is cut at the limit. On Node 20.20 the server still delivers the error response
 * on that socket (see test/domain/files-http.test.ts); answer with `Connection: close`.
 *
 * Part media type: busboy reports a missing part Content-Type as `text/plain` (the RFC 7578 §4.4
 * default) and so also an unparsable one; we cannot tell those apart. Any reported type that is
 * not a valid `type/subtype` becomes `application/octet-stream`.
 */
import { open, rm } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import busboy from 'busboy';
import { BadRequestError, NotSupportedError, PayloadTooLargeError, WebApplicationError } from '@jaxrs-node/pipeline';
import { normalizeMediaType, sanitizeFilename, sanitizeText } from './files-metadata.js';

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

// busboy caps one part's header block at 16 KiB; add room for the boundary lines.
const PART_OVERHEAD_BYTES = 16 * 1024 + 512;

/** Largest body a valid upload under `limits` can have; a larger Content-Length is 413 unread. */
export function maxUploadBodyBytes(limits: UploadLimits): number {
  const parts = limits.maxFiles + limits.maxFields;
  return limits.maxFiles * limits.maxFileBytes + limits.maxFields * limits.maxFieldBytes + (parts + 1) * PART_OVERHEAD_BYTES;
}

/**
 * Checks the request headers and builds the busboy parser. Runs before anything is allocated so
 * a wrong request costs nothing. The caller still owns the unread request stream.
 *
 * @throws NotSupportedError (415) unless the media type is `multipart/form-data`;
 *   BadRequestError (400) for a missing or malformed boundary;
 *   PayloadTooLargeError (413) when Content-Length exceeds {@link maxUploadBodyBytes}.
 */
export function createMultipartParser(headers: IncomingHttpHeaders, limits: UploadLimits): busboy.Busboy {
  const mediaType = headers['content-type']?.split(';', 1)[0]?.trim().toLowerCase();
  // busboy would also accept application/x-www-form-urlencoded, which carries no file.
  if (mediaType !== 'multipart/form-data') {
    throw new NotSupportedError('Content-Type must be multipart/form-data', { code: 'UPLOAD_UNSUPPORTED_MEDIA_TYPE' });
  }
  if (Number(headers['content-length']) > maxUploadBodyBytes(limits)) {
    throw new PayloadTooLargeError('Upload body too large', { code: 'UPLOAD_BODY_TOO_LARGE' });
  }
  try {
    return busboy({
      headers,
      // Browsers send raw UTF-8 in filename="…"; busboy's default (latin1) would garble it.
      defParamCharset: 'utf8',
      limits: {
        // busboy flags `truncated` when a value REACHES its limit, so allow exactly the maximum.
        fileSize: limits.maxFileBytes + 1,
        fieldSize: limits.maxFieldBytes + 1,
        files: limits.maxFiles,
        fields: limits.maxFields,
        // 'partsLimit' fires once that many parts are complete, so +1 means "more than allowed".
        parts: limits.maxFiles + limits.maxFields + 1,
        headerPairs: 32,
      },
    });
  } catch (cause) {
    // The media type is right, so what busboy rejected is the parameter list: the boundary.
    throw new BadRequestError('multipart/form-data needs a valid boundary parameter', {
      code: 'UPLOAD_BAD_BOUNDARY',
      cause,
    });
  }
}

/**
 * Streams `source` through `parser`, writing the part named `file` to `partPath` (created
 * exclusively, mode 0600, fsynced before resolving) and keeping the `description` field.
 * Resolves only after the whole form was read. On any failure (limits, malformed body, client
 * abort, disk error) the parser and source are destroyed, `partPath` is deleted and then the
 * promise rejects with an HTTP error: 413 limits, 400 malformed/aborted/missing or empty `file`,
 * 507 disk full; other I/O errors are passed through (500).
 */
export function receiveUpload(source: Readable, parser: busboy.Busboy, partPath: string, limits: UploadLimits): Promise<ReceivedUpload> {
  return new Promise((resolve, reject) => {
    const stop = new AbortController();
    let settled = false;
    let writer: Promise<number> | undefined;
    let file: { filename: string; contentType: string } | undefined;
    let description: string | undefined;

    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      stop.abort();
      // Never destroy busboy inside one of its own event handlers: it keeps using its state after
      // emitting (e.g. it sets `truncated` after 'limit') and would throw a TypeError.
      process.nextTick(() => parser.destroy());
      void (async () => {
        await writer?.catch(() => undefined);
        await rm(partPath, { force: true }).catch(() => undefined);
        reject(toHttpError(error));
      })();
    };

    const tooLarge = (what: string, code: string) => () => fail(new PayloadTooLargeError(what, { code }));
    const duplicate = (part: string) => {
      fail(new BadRequestError(`More than one "${part}" part`, { code: 'UPLOAD_DUPLICATE_PART' }));
    };
    parser.on('filesLimit', tooLarge(`At most ${limits.maxFiles} file part(s) allowed`, 'UPLOAD_TOO_MANY_FILES'));
    parser.on('fieldsLimit', tooLarge(`At most ${limits.maxFields} field(s) allowed`, 'UPLOAD_TOO_MANY_FIELDS'));
    parser.on('partsLimit', tooLarge('Too many parts', 'UPLOAD_TOO_MANY_PARTS'));
    const fieldTooLarge = tooLarge(`Field larger than ${limits.maxFieldBytes} bytes`, 'UPLOAD_FIELD_TOO_LARGE');

    parser.on('file', (name, stream, info) => {
      // A file stream destroyed by busboy emits 'error'; without a listener that crashes the process.
      stream.on('error', () => undefined);
      stream.once('limit', tooLarge(`File larger than ${limits.maxFileBytes} bytes`, 'UPLOAD_FILE_TOO_LARGE'));
      if (settled || name !== 'file' || writer !== undefined) {
        stream.resume(); // every file stream must be consumed or busboy never finishes
        if (name === 'file' && writer !== undefined) duplicate('file');
        return;
      }
      file = { filename: sanitizeFilename(info.filename), contentType: normalizeMediaType(info.mimeType) };
      writer = writeFilePart(stream, partPath, stop.signal);
      writer.catch(fail);
    });

    parser.on('field', (name, value, info) => {
      if (settled) return;
      if (info.valueTruncated) return fieldTooLarge();
      if (name !== 'description') return; // other fields are counted by busboy, otherwise ignored
      if (description !== undefined) return duplicate('description');
      description = sanitizeText(value);
    });

    // pipeline (not pipe) so that a client abort or a parser error reaches us as `error`.
    pipeline(source, parser, (error) => {
      if (error) return fail(error);
      void complete();
    });

    async function complete(): Promise<void> {
      if (settled) return;
      if (writer === undefined || file === undefined) {
        return fail(new BadRequestError('Missing "file" part', { code: 'UPLOAD_MISSING_FILE' }));
      }
      const size = await writer.catch(() => -1); // a failure already went to fail() via writer.catch
      if (settled) return;
      if (size === 0) return fail(new BadRequestError('The uploaded file is empty', { code: 'UPLOAD_EMPTY_FILE' }));
      settled = true;
      resolve({ size, ...file, ...(description === undefined ? {} : { description }) });
    }
  });
}

/**
 * Writes one file part to a new file and fsyncs it. Never writes data busboy marked truncated.
 * On failure the file is removed and the error rethrown.
 */
async function writeFilePart(stream: Readable & { truncated?: boolean }, path: string, signal: AbortSignal): Promise<number> {
  let size = 0;
  const handle = await open(path, 'wx', 0o600).catch((error: unknown) => {
    stream.resume();
    throw error;
  });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (stream.truncated || signal.aborted) break;
      for (let offset = 0; offset < chunk.length;) {
        const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset, size + offset);
        offset += bytesWritten;
      }
      size += chunk.length;
    }
    if (stream.truncated) throw new PayloadTooLargeError('File too large', { code: 'UPLOAD_FILE_TOO_LARGE' });
    if (signal.aborted) throw new BadRequestError('Upload cancelled', { code: 'UPLOAD_CANCELLED' });
    await handle.sync();
    await handle.close();
    return size;
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(path, { force: true });
    throw error;
  }
}

const ABORT_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE', 'ABORT_ERR']);

/** Maps what can go wrong while receiving to the HTTP error the client is owed. */
function toHttpError(error: unknown): unknown {
  if (error instanceof WebApplicationError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && ABORT_CODES.has(code)) {
    return new BadRequestError('Upload aborted before the body was complete', { code: 'UPLOAD_ABORTED', cause: error });
  }
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new WebApplicationError(507, 'Insufficient storage', { code: 'UPLOAD_NO_SPACE', cause: error });
  }
  // busboy's parse errors ('Malformed part header', 'Unexpected end of form', …) carry no code.
  if (code === undefined && error instanceof Error) {
    return new BadRequestError(`Malformed multipart body: ${error.message}`, {
      code: 'UPLOAD_MALFORMED',
      cause: error,
    });
  }
  return error;
}
