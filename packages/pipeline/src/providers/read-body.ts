import { EventEmitter } from 'node:events';
import { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { BadRequestError } from '../core/http/errors.js';
import { BodyErrorCode, clientAborted, lengthMismatch, streamError, tooLarge } from './body-errors.js';

const EMPTY = Buffer.alloc(0);
const noop = (): void => {};

/**
 * Reads a whole request body into one Buffer, enforcing the Fastify body contract
 * (Fastify's body-limit contract):
 *
 * - a declared `contentLength` above `limit` rejects with 413 BEFORE any byte is read;
 * - streamed bytes are counted and reading stops at the first chunk that crosses `limit` (413);
 *   a body of exactly `limit` bytes passes;
 * - a byte count different from `contentLength` rejects with 400. Pass `contentLength` only
 *   when `input` is the raw request; after a decoding interceptor (gunzip) pass `undefined`;
 * - an `aborted` / `error` / `close`-before-`end` from the stream rejects; resets get the code
 *   `PIPE_CLIENT_ABORTED`, HTTP errors from upstream streams (a limit guard) pass through.
 *
 * On rejection nothing is destroyed: `input` belongs to the caller. Reading stops (`pause()`,
 * our listeners are removed or ignore what follows) and an `error` listener stays behind on any
 * stream other than `node:http`'s `IncomingMessage` so that a later error on a stream nobody
 * listens to cannot crash the process (an `IncomingMessage` emits `error` only to listeners).
 * Closing the connection after a 413 is the caller's decision (the unread bytes are still on the
 * socket).
 *
 * A stream that has already ended (its body was consumed elsewhere) resolves with an empty
 * Buffer instead of waiting for an `end` that will never come.
 *
 * One chunk is returned as is (no `Buffer.concat` copy): most JSON bodies fit in one TCP read.
 *
 * @example
 * const cl = req.headers['content-length'];
 * const bytes = await readBody(req, 1024 * 1024, cl === undefined ? undefined : Number(cl));
 */
export function readBody(input: Readable, limit: number, contentLength: number | undefined): Promise<Buffer> {
  return readBodyAs(input, limit, contentLength, asBytes);
}

function asBytes(bytes: Buffer): Buffer {
  return bytes;
}

/**
 * {@link readBody}, then `convert` on the bytes inside the same promise: a reader that parses the
 * body (JSON, text) answers with one promise per body instead of a second one chained on the
 * first (one promise and one microtask turn fewer per request, issue 27). A throw from `convert`
 * rejects.
 */
export function readBodyAs<T>(
  input: Readable,
  limit: number,
  contentLength: number | undefined,
  convert: (bytes: Buffer) => T,
): Promise<T> {
  if (contentLength !== undefined) {
    if (!Number.isSafeInteger(contentLength) || contentLength < 0) {
      return Promise.reject(new BadRequestError('Invalid Content-Length', { code: BodyErrorCode.LengthMismatch }));
    }
    if (contentLength > limit) return Promise.reject(tooLarge(limit));
  }
  if (input.readableEnded) return settle(convert, EMPTY);
  if (input.destroyed) {
    return Promise.reject(input.errored === null ? clientAborted() : streamError(input.errored));
  }
  if (input instanceof IncomingMessage) return readIncoming(input, limit, contentLength, convert);
  return readStream(input, limit, contentLength, convert);
}

function settle<T>(convert: (bytes: Buffer) => T, bytes: Buffer): Promise<T> {
  try {
    return Promise.resolve(convert(bytes));
  } catch (e) {
    return Promise.reject(e);
  }
}

/**
 * The raw HTTP/1.1 request: a 'data' and an 'end' listener as hand-written code has, plus one
 * 'close' listener for every way the body can fail, and none of them removed after a success
 * (issue 27: ten listener calls fewer per request). What Node guarantees for an
 * `IncomingMessage` makes that enough: a client reset, a timeout or a `destroy(err)` all go
 * through `destroy()`, which sets `errored`, emits 'aborted' when the body was incomplete, emits
 * 'error' only when someone listens (never an unhandled error) and always ends with 'close';
 * after a complete body 'close' follows 'end' (auto-destroy). The listeners ignore whatever comes
 * after the promise settled: a 'close' after 'end' must not build an error (capturing its stack
 * is what made an earlier "leave the listeners attached" attempt cost 43 000 instructions more
 * per request).
 */
function readIncoming<T>(
  input: IncomingMessage,
  limit: number,
  contentLength: number | undefined,
  convert: (bytes: Buffer) => T,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const body = new BodyBytes(limit);
    let settled = false;

    const fail = (err: Error): void => {
      settled = true;
      body.drop();
      input.removeListener('data', onData);
      input.removeListener('end', onEnd);
      reject(err);
    };
    function onData(chunk: unknown): void {
      if (settled) return;
      const err = body.add(chunk);
      if (err !== undefined) {
        // Removing the 'data' listener does not stop a flowing stream: pause it explicitly.
        input.pause();
        fail(err);
      }
    }
    function onEnd(): void {
      if (settled) return;
      settled = true;
      settleBody(body, contentLength, convert, resolve, reject);
    }
    // 'close' without 'end': destroyed (reset, timeout, destroy(err)); it will never end.
    function onClose(): void {
      if (settled) return;
      const err = input.errored;
      fail(err === null ? clientAborted() : streamError(err));
    }

    input.on('data', onData); // Readable's own `on`: a 'data' listener starts the flow
    // 'end' and 'close' straight through EventEmitter's: `Readable.prototype.on` adds nothing for
    // them but a wrapper whose property reads see every stream class of the process (megamorphic
    // loads, about 300 instructions per listener in issue 27's profile).
    EventEmitter.prototype.on.call(input, 'end', onEnd);
    EventEmitter.prototype.on.call(input, 'close', onClose);
  });
}

/** Any other stream (HTTP/2, a decoding interceptor's, a client response, a test's): five listeners, removed when done. */
function readStream<T>(input: Readable, limit: number, contentLength: number | undefined, convert: (bytes: Buffer) => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const body = new BodyBytes(limit);

    const cleanup = (): void => {
      input.removeListener('data', onData);
      input.removeListener('end', onEnd);
      input.removeListener('error', onError);
      input.removeListener('aborted', onAborted);
      input.removeListener('close', onClose);
    };
    const fail = (err: Error): void => {
      cleanup();
      body.drop();
      input.on('error', noop);
      reject(err);
    };
    function onData(chunk: unknown): void {
      const err = body.add(chunk);
      if (err !== undefined) {
        // Removing the 'data' listener does not stop a flowing stream: pause it explicitly.
        input.pause();
        fail(err);
      }
    }
    function onEnd(): void {
      cleanup();
      settleBody(body, contentLength, convert, resolve, reject);
    }
    function onError(err: unknown): void {
      fail(streamError(err));
    }
    // IncomingMessage-like streams emit 'aborted' (and 'error' only when someone listens) when the client resets.
    function onAborted(): void {
      fail(clientAborted());
    }
    // 'close' without 'end': the stream was destroyed without an error; it will never end.
    function onClose(): void {
      fail(clientAborted());
    }

    input.on('data', onData);
    input.on('end', onEnd);
    input.on('error', onError);
    input.on('aborted', onAborted);
    input.on('close', onClose);
  });
}

/**
 * A body's bytes as its chunks arrive, up to `limit` bytes: one chunk is kept as it is (most JSON
 * bodies fit in one TCP read, no `Buffer.concat` copy), more are concatenated once at the end.
 */
class BodyBytes {
  /** Bytes added so far (counted also past the limit, for the 413 decision). */
  received = 0;
  private first: Buffer | undefined = undefined;
  private chunks: Buffer[] | undefined = undefined;

  constructor(private readonly limit: number) {}

  /** Adds a 'data' chunk; answers the error to fail with (a chunk that is not bytes, the limit crossed), else undefined. */
  add(chunk: unknown): Error | undefined {
    const buf = toBuffer(chunk);
    if (buf === undefined) return streamError(new TypeError(`Body chunks must be bytes or strings, got ${typeof chunk}`));
    this.received += buf.length;
    if (this.received > this.limit) return tooLarge(this.limit);
    if (this.first === undefined) this.first = buf;
    else if (this.chunks === undefined) this.chunks = [this.first, buf];
    else this.chunks.push(buf);
    return undefined;
  }

  /** Everything added, as one Buffer; the chunks are let go. */
  take(): Buffer {
    const bytes = this.chunks !== undefined ? Buffer.concat(this.chunks, this.received) : (this.first ?? EMPTY);
    this.drop();
    return bytes;
  }

  /** Lets the chunks go (a failed read keeps nothing). */
  drop(): void {
    this.first = undefined;
    this.chunks = undefined;
  }
}

/** The end of a read: 400 when the byte count differs from the declared `Content-Length`, else `convert`'s value (a throw rejects). */
function settleBody<T>(
  body: BodyBytes,
  contentLength: number | undefined,
  convert: (bytes: Buffer) => T,
  resolve: (value: T) => void,
  reject: (reason: unknown) => void,
): void {
  const bytes = body.take();
  if (contentLength !== undefined && body.received !== contentLength) {
    reject(lengthMismatch(body.received, contentLength));
    return;
  }
  try {
    resolve(convert(bytes));
  } catch (e) {
    reject(e);
  }
}

/**
 * Chunks are Buffers for byte streams; object-mode sources may yield strings or plain
 * Uint8Arrays. Anything else gives undefined (never a throw: this runs inside 'data' handlers).
 */
export function toBuffer(chunk: unknown): Buffer | undefined {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return undefined;
}
