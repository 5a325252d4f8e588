import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { FieldInfo, FileInfo } from 'busboy';
import { NotSupportedError, WebApplicationError } from '../../core/http/errors.js';
import { mediaTypeString, parseMediaType, type MediaType } from '../../core/http/media-type.js';
import { clientAborted, lengthMismatch, streamError, tooLarge } from '../../providers/body-errors.js';
import { toBuffer } from '../../providers/read-body.js';
import { busboy, type Busboy } from './busboy.js';
import { EntityPart } from './entity-part.js';
import { badBoundary, limitExceeded, malformed, MultipartErrorCode } from './errors.js';
import { HeaderScan } from './header-scan.js';
import { resolveLimits, type MultipartLimits } from './limits.js';
import { parsePartHeaders, type PartHeaders } from './part-headers.js';
import { PartStream } from './part-stream.js';

/** Chunk size of the stages between the socket and a part's content. */
const STAGE_HIGH_WATER_MARK = 64 * 1024;
// RFC 2046 §5.1.1: 1 to 70 bchars, the last not a space.
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;
const TEXT_PLAIN = parseMediaType('text/plain')!;
const ignore = (): void => {};

/** Thrown by `next()` once the body was closed (the response went out, or the loop was left). */
class BodyClosedError extends Error {
  constructor() {
    super('The multipart body was closed: the response was sent or the iteration was left');
    this.name = 'BodyClosedError';
  }
}

/**
 * A `multipart/form-data` body read part by part, in order, as the bytes arrive (Jakarta REST
 * 3.1 §4.2 `EntityPart`s): `for await (const part of body)`, or `await body.next()`. Take it as
 * a resource method's entity parameter (with `MultipartFeature` registered) or make one from any
 * stream with {@link readMultipart}.
 *
 * - Parts come one at a time: the socket is read only as far as the current part needs, so a
 *   large file streams with backpressure and nothing is held whole.
 * - A part not read to its end when the next one is asked for is drained first (the limits still
 *   apply to it); leaving the loop (`break`, `return`, a throw) closes the body: what was not read
 *   stays unread, and the pipeline closes the connection after the response.
 * - A limit crossed (413), a malformed body (400), a client that goes away (400): the part being
 *   read fails with that error, parts that were complete before it are still handed out, and then
 *   `next()` rejects with it. A part is never silently cut short.
 *
 * @example
 * \@POST() @Consumes('multipart/form-data')
 * async upload(body: MultipartBody) {
 *   const saved = [];
 *   for await (const part of body) {
 *     if (part.isFile) saved.push({ name: part.safeFilename, bytes: await part.pipeTo(createWriteStream(tempPath())) });
 *     else if (part.name === 'title') title = await part.text();
 *   }
 *   return saved;
 * }
 */
export class MultipartBody implements AsyncIterable<EntityPart> {
  private readonly queue: EntityPart[] = [];
  private readonly streams = new WeakMap<EntityPart, PartStream>();
  private readonly scanned: PartHeaders[] = [];
  private readonly parser: Busboy;
  private readonly scan: HeaderScan;
  private readonly input: Readable;
  private readonly contentLength: number | undefined;
  private received = 0;
  private started = false;
  private current: EntityPart | undefined;
  private waiting: { resolve: (part: EntityPart | undefined) => void; reject: (error: unknown) => void } | undefined;
  private failure: unknown;
  private finished = false;

  /** Use {@link readMultipart} (or take the body as an entity parameter). */
  constructor(
    input: Readable,
    mediaType: MediaType,
    contentLength: number | undefined,
    readonly limits: Readonly<MultipartLimits>,
  ) {
    const boundary = mediaType.params.boundary;
    if (boundary === undefined || !BOUNDARY.test(boundary)) {
      throw badBoundary(boundary === undefined ? 'none given' : '1 to 70 characters of RFC 2046 §5.1.1');
    }
    if (contentLength !== undefined && contentLength > limits.totalSize) throw tooLarge(limits.totalSize);
    try {
      this.parser = busboy({
        headers: { 'content-type': mediaTypeString(mediaType) },
        // Browsers send raw UTF-8 in filename="…" (RFC 7578 §5.1); busboy's default is latin1.
        defParamCharset: 'utf8',
        // `filename` as sent; `safeFilename` is ours.
        preservePath: true,
        highWaterMark: STAGE_HIGH_WATER_MARK,
        fileHwm: STAGE_HIGH_WATER_MARK,
        limits: {
          // busboy flags a value that REACHES its limit, and reports the parts limit once that many
          // parts are complete: one more than allowed in each case.
          fileSize: limits.partSize + 1,
          fieldSize: limits.fieldSize + 1,
          parts: limits.parts + 1,
        },
      });
    } catch (cause) {
      throw badBoundary(cause instanceof Error ? cause.message : String(cause));
    }
    this.parser.on('file', (name: string, stream: Readable, info: FileInfo) => this.onFile(name, stream, info));
    this.parser.on('field', (name: string, value: string, info: FieldInfo) => this.onField(name, value, info));
    this.parser.on('partsLimit', () =>
      this.fail(limitExceeded(MultipartErrorCode.TooManyParts, `The body has more than ${limits.parts} parts`)),
    );
    this.parser.on('error', (e: unknown) => this.fail(malformed(e)));
    this.parser.on('finish', () => this.onFinish());
    this.parser.on('drain', () => this.pump());

    this.scan = new HeaderScan(boundary, limits.headerSize, (block) => this.scanned.push(parsePartHeaders(block)));
    this.input = input;
    this.contentLength = contentLength;
  }

  /** Starts reading, on the first `next()`. */
  private begin(): void {
    this.started = true;
    const input = this.input;
    if (input.readableEnded) {
      this.parser.end();
    } else if (input.destroyed) {
      this.fail(input.errored === null ? clientAborted() : streamError(input.errored));
    } else {
      input.on('data', this.onData);
      input.on('end', this.onEnd);
      input.on('error', this.onError);
      input.on('aborted', this.onAborted);
      input.on('close', this.onClose);
    }
  }

  /**
   * The next part, or `undefined` after the last. The previous part is drained first if nobody
   * reads it, else waited for. Rejects with the body's error (413, 400) once the parts complete
   * before it were handed out.
   */
  async next(): Promise<EntityPart | undefined> {
    if (this.waiting !== undefined) throw new Error('MultipartBody.next() was called again before the previous call settled');
    if (!this.started && this.failure === undefined) this.begin();
    const previous = this.current;
    if (previous !== undefined) {
      this.current = undefined;
      const stream = this.streams.get(previous);
      if (stream !== undefined) {
        if (stream.idle) stream.destroy(); // drains it
        await stream.sourceDone;
      }
    }
    const queued = this.queue.shift();
    if (queued !== undefined) {
      this.current = queued;
      this.pump();
      return queued;
    }
    if (this.failure !== undefined) throw this.failure;
    if (this.finished) return undefined;
    return new Promise<EntityPart | undefined>((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.pump();
    });
  }

  async *[Symbol.asyncIterator](): AsyncIterator<EntityPart> {
    try {
      for (let part = await this.next(); part !== undefined; part = await this.next()) yield part;
    } finally {
      if (!this.finished) this.close();
    }
  }

  /** Reads the rest of the body, keeping nothing (the limits still apply): rejects as `next()` would. */
  async drain(): Promise<void> {
    while ((await this.next()) !== undefined) {
      // each part is drained by the next call
    }
  }

  /**
   * Stops reading: the unread rest stays unread (the pipeline closes the connection after the
   * response) and the part being read and a later `next()` fail with `reason` (default: an error
   * saying the body was closed). The reader calls it when the response is complete, or with 400
   * `PIPE_CLIENT_ABORTED` when the client went away first.
   */
  close(reason?: Error): void {
    if (this.finished || this.failure !== undefined) return;
    this.fail(reason ?? new BodyClosedError());
  }

  /** True once the closing delimiter was read and every part ended. */
  get complete(): boolean {
    return this.finished;
  }

  private onFile(name: string, source: Readable, info: FileInfo): void {
    source.once('limit', () => {
      // Destroyed now, inside busboy's handler, so no reader sees the cut part end cleanly.
      const error = limitExceeded(MultipartErrorCode.PartTooLarge, `Part '${name}' exceeds the limit of ${this.limits.partSize} bytes`);
      source.destroy(error);
      this.fail(error);
    });
    const stream = new PartStream(source, STAGE_HIGH_WATER_MARK, (e) => {
      this.fail(e instanceof WebApplicationError ? e : malformed(e));
      return (this.failure ?? e) as Error;
    });
    const part = this.makePart(name, info.filename, info.mimeType, true, () => stream);
    this.streams.set(part, stream);
    this.deliver(part);
  }

  private onField(name: string, value: string, info: FieldInfo): void {
    if (info.valueTruncated) {
      this.fail(limitExceeded(MultipartErrorCode.FieldTooLarge, `Field '${name}' exceeds the limit of ${this.limits.fieldSize} bytes`));
      return;
    }
    this.deliver(this.makePart(name, undefined, info.mimeType, false, () => Readable.from([Buffer.from(value, 'utf8')]), value));
  }

  private makePart(
    name: string,
    filename: string | undefined,
    reportedType: string,
    isFile: boolean,
    open: () => Readable,
    text?: string,
  ): EntityPart {
    const headers = this.headersOf(name, filename, reportedType);
    const declared = headers['content-type'];
    const mediaType = (declared === undefined ? undefined : parseMediaType(declared)) ?? parseMediaType(reportedType) ?? TEXT_PLAIN;
    return new EntityPart({ name, filename, mediaType, headers, isFile, open, text });
  }

  /**
   * The headers the scanner saw for this part: busboy reports parts in order but skips some (no
   * `Content-Disposition`), so scanned blocks are taken in order until one has the same name.
   */
  private headersOf(name: string, filename: string | undefined, reportedType: string): Record<string, string> {
    while (this.scanned.length > 0) {
      const next = this.scanned.shift()!;
      if (next.name === name) return next.headers;
    }
    const disposition = `form-data; name="${name}"${filename === undefined ? '' : `; filename="${filename}"`}`;
    return { 'content-disposition': disposition, 'content-type': reportedType };
  }

  private deliver(part: EntityPart): void {
    if (this.failure !== undefined) return;
    const waiting = this.waiting;
    if (waiting !== undefined) {
      this.waiting = undefined;
      this.current = part;
      waiting.resolve(part);
      return;
    }
    this.queue.push(part);
    this.input.pause();
  }

  private onFinish(): void {
    if (this.failure !== undefined) return;
    this.finished = true;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.resolve(undefined);
  }

  // The request is read here, with no stream stage between it and busboy: the bytes are counted
  // (`totalSize`, `Content-Length`) and scanned for header blocks, then written to busboy, and
  // the request is paused whenever busboy or the queue of parts is full.
  private readonly onData = (data: unknown): void => {
    const chunk = toBuffer(data);
    if (chunk === undefined) return this.fail(streamError(new TypeError('Body chunks must be bytes or strings')));
    this.received += chunk.length;
    if (this.received > this.limits.totalSize) return this.fail(tooLarge(this.limits.totalSize));
    try {
      this.scan.scan(chunk);
    } catch (e) {
      return this.fail(e);
    }
    if (!this.parser.write(chunk) || this.queue.length > 0) this.input.pause();
  };

  private readonly onEnd = (): void => {
    this.detach();
    if (this.contentLength !== undefined && this.received !== this.contentLength) {
      this.fail(lengthMismatch(this.received, this.contentLength));
    } else {
      this.parser.end();
    }
  };

  private readonly onError = (e: unknown): void => this.fail(streamError(e));
  // IncomingMessage emits 'aborted' (and 'error' only when someone listens) when the client resets.
  private readonly onAborted = (): void => this.fail(clientAborted());
  // 'close' without 'end': destroyed without an error; it will never end.
  private readonly onClose = (): void => {
    if (!this.input.readableEnded) this.fail(clientAborted());
  };

  private detach(): void {
    this.input.removeListener('data', this.onData);
    this.input.removeListener('end', this.onEnd);
    this.input.removeListener('error', this.onError);
    this.input.removeListener('aborted', this.onAborted);
    this.input.removeListener('close', this.onClose);
  }

  /** Reads on while nothing waits to be handed out and busboy takes more. */
  private pump(): void {
    if (!this.started || this.failure !== undefined || this.finished || this.queue.length > 0 || this.parser.writableNeedDrain) return;
    if (!this.input.readableEnded) this.input.resume();
  }

  /**
   * The first failure wins: the waiting `next()` rejects, the part being read fails with it, and
   * reading stops: the request stream is paused, never destroyed, so the error response can still
   * be sent (the pipeline then closes the connection; a no-op `error` listener stays, as
   * `readBody` leaves one), and busboy is destroyed after its own handler returned (it keeps
   * using its state after emitting).
   */
  private fail(error: unknown): void {
    if (this.failure !== undefined || this.finished) return;
    this.failure = error;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(error);
    if (this.started) {
      this.detach();
      this.input.on('error', ignore);
      this.input.pause();
    }
    process.nextTick(() => this.parser.destroy(error as Error));
  }
}

/**
 * Reads a `multipart/form-data` body from any stream, outside the pipeline (a plain `node:http`
 * handler, a test): checks the headers at once and returns the {@link MultipartBody}; nothing is
 * read before the first `next()`.
 *
 * @throws NotSupportedError (415) unless `Content-Type` is `multipart/form-data`; BadRequestError
 *   (400) for a missing or invalid boundary; PayloadTooLargeError (413) when `Content-Length`
 *   exceeds `limits.totalSize`. A `TypeError` for invalid limits.
 *
 * @example
 * createServer(async (req, res) => {
 *   for await (const part of readMultipart(req, req.headers, { partSize: 1 << 30 })) {
 *     if (part.isFile) await part.pipeTo(createWriteStream(`/srv/in/${randomUUID()}`));
 *   }
 *   res.end('ok');
 * });
 */
export function readMultipart(input: Readable, headers: IncomingHttpHeaders, limits?: Partial<MultipartLimits>): MultipartBody {
  const resolved = resolveLimits(limits, 'readMultipart');
  const contentType = headers['content-type'];
  const mediaType = contentType === undefined ? undefined : parseMediaType(contentType);
  if (mediaType?.essence !== 'multipart/form-data') {
    // The right type with parameters that do not parse (`boundary=`): the boundary is what is wrong.
    if (mediaType === undefined && contentType?.split(';', 1)[0]!.trim().toLowerCase() === 'multipart/form-data') {
      throw badBoundary('the Content-Type parameters do not parse');
    }
    throw new NotSupportedError('Content-Type must be multipart/form-data', { code: 'PIPE_UNSUPPORTED_MEDIA_TYPE' });
  }
  const cl = headers['content-length'];
  return new MultipartBody(input, mediaType, cl === undefined ? undefined : Number(cl), resolved);
}
