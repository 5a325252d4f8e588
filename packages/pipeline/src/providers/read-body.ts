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
  return new Promise<Buffer>((resolve, reject) => readBodyInto(input, limit, contentLength, asBytes, resolve, reject));
}

function asBytes(bytes: Buffer): Buffer {
  return bytes;
}

/**
 * {@link readBody}, then `convert` on the bytes, without a promise: `done` gets `convert`'s value
 * (a throw from `convert` fails), or `fail` the error
 * (exactly one of them, once), called from the body's own `end` event, or at once when the
 * answer is known before any byte is read. The lifecycle reads a route's entity this way: from
 * the body's end to the resource method no promise and no microtask turn, as in hand-written
 * `node:http` code (issue 27). Neither callback is called inside a `try` of this function, so a
 * throw from `done` is never reported to `fail`.
 */
export function readBodyInto<T>(
  input: Readable,
  limit: number,
  contentLength: number | undefined,
  convert: (bytes: Buffer) => T,
  done: (value: T) => void,
  fail: (reason: unknown) => void,
): void {
  if (contentLength !== undefined) {
    if (!Number.isSafeInteger(contentLength) || contentLength < 0) {
      fail(new BadRequestError('Invalid Content-Length', { code: BodyErrorCode.LengthMismatch }));
      return;
    }
    if (contentLength > limit) {
      fail(tooLarge(limit));
      return;
    }
  }
  if (input.readableEnded) {
    settle(convert, EMPTY, done, fail);
    return;
  }
  if (input.destroyed) {
    fail(input.errored === null ? clientAborted() : streamError(input.errored));
    return;
  }
  const read = new BodyRead(limit, contentLength, convert, done, fail);
  if (input instanceof IncomingMessage) readIncoming(input, read);
  else readStream(input, read);
}

/** `convert(bytes)` to `done`, or its throw to `fail` (`done` outside the `try`). */
function settle<T>(convert: (bytes: Buffer) => T, bytes: Buffer, done: (value: T) => void, fail: (reason: unknown) => void): void {
  let value: T;
  try {
    value = convert(bytes);
  } catch (e) {
    fail(e);
    return;
  }
  done(value);
}

/**
 * The raw HTTP/1.1 request: a 'data' and an 'end' listener as hand-written code has, plus one
 * 'close' listener for every way the body can fail, and none of them removed after a success
 * (issue 27: ten listener calls fewer per request). What Node guarantees for an
 * `IncomingMessage` makes that enough: a client reset, a timeout or a `destroy(err)` all go
 * through `destroy()`, which sets `errored`, emits 'aborted' when the body was incomplete, emits
 * 'error' only when someone listens (never an unhandled error) and always ends with 'close';
 * after a complete body 'close' follows 'end' (auto-destroy). The listeners ignore whatever comes
 * after the read settled: a 'close' after 'end' must not build an error (capturing its stack
 * is what made an earlier "leave the listeners attached" attempt cost 43 000 instructions more
 * per request).
 */
function readIncoming<T>(input: IncomingMessage, read: BodyRead<T>): void {
  let settled = false;

  const stop = (err: Error): void => {
    settled = true;
    read.drop();
    input.removeListener('data', onData);
    input.removeListener('end', onEnd);
    read.fail(err);
  };
  function onData(chunk: unknown): void {
    if (settled) return;
    const err = read.add(chunk);
    if (err !== undefined) {
      // Removing the 'data' listener does not stop a flowing stream: pause it explicitly.
      input.pause();
      stop(err);
    }
  }
  function onEnd(): void {
    if (settled) return;
    settled = true;
    read.end();
  }
  // 'close' without 'end': destroyed (reset, timeout, destroy(err)); it will never end.
  function onClose(): void {
    if (settled) return;
    const err = input.errored;
    stop(err === null ? clientAborted() : streamError(err));
  }

  input.on('data', onData); // Readable's own `on`: a 'data' listener starts the flow
  if (unbound(input)) {
    // 'end' and 'close' straight through EventEmitter's: `Readable.prototype.on` adds nothing for
    // them but a wrapper whose property reads see every stream class of the process (megamorphic
    // loads, about 300 instructions per listener in issue 27's profile).
    EventEmitter.prototype.on.call(input, 'end', onEnd);
    EventEmitter.prototype.on.call(input, 'close', onClose);
  } else {
    // A context manager bound this request (OpenTelemetry's `context.bind`, which its HTTP
    // instrumentation applies to every request): its own `on` makes each listener run in the
    // request's context, and the resource method runs from `onEnd`. As Fastify's body reading does.
    input.on('end', onEnd);
    input.on('close', onClose);
  }
}

/** Is `on` still the one every `IncomingMessage` inherits (no context manager put its own on this request)? */
function unbound(input: IncomingMessage): boolean {
  // Compared, never called unbound.
  // eslint-disable-next-line typescript/unbound-method
  return input.on === IncomingMessage.prototype.on;
}

/** Any other stream (HTTP/2, a decoding interceptor's, a client response, a test's): five listeners, removed when done. */
function readStream<T>(input: Readable, read: BodyRead<T>): void {
  const cleanup = (): void => {
    input.removeListener('data', onData);
    input.removeListener('end', onEnd);
    input.removeListener('error', onError);
    input.removeListener('aborted', onAborted);
    input.removeListener('close', onClose);
  };
  const stop = (err: Error): void => {
    cleanup();
    read.drop();
    input.on('error', noop);
    read.fail(err);
  };
  function onData(chunk: unknown): void {
    const err = read.add(chunk);
    if (err !== undefined) {
      // Removing the 'data' listener does not stop a flowing stream: pause it explicitly.
      input.pause();
      stop(err);
    }
  }
  function onEnd(): void {
    cleanup();
    read.end();
  }
  function onError(err: unknown): void {
    stop(streamError(err));
  }
  // IncomingMessage-like streams emit 'aborted' (and 'error' only when someone listens) when the client resets.
  function onAborted(): void {
    stop(clientAborted());
  }
  // 'close' without 'end': the stream was destroyed without an error; it will never end.
  function onClose(): void {
    stop(clientAborted());
  }

  input.on('data', onData);
  input.on('end', onEnd);
  input.on('error', onError);
  input.on('aborted', onAborted);
  input.on('close', onClose);
}

/**
 * One read: the body's bytes as its chunks arrive, up to `limit` bytes (one chunk is kept as it
 * is: most JSON bodies fit in one TCP read, no `Buffer.concat` copy; more are concatenated once at
 * the end), and where its outcome goes.
 */
class BodyRead<T> {
  /** Bytes added so far (counted also past the limit, for the 413 decision). */
  received = 0;
  private first: Buffer | undefined = undefined;
  private chunks: Buffer[] | undefined = undefined;

  constructor(
    private readonly limit: number,
    private readonly contentLength: number | undefined,
    private readonly convert: (bytes: Buffer) => T,
    private readonly done: (value: T) => void,
    readonly fail: (reason: unknown) => void,
  ) {}

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

  /** Lets the chunks go (a failed read keeps nothing). */
  drop(): void {
    this.first = undefined;
    this.chunks = undefined;
  }

  /** The body ended: 400 when the byte count differs from the declared `Content-Length`, else `convert`'s value (a throw fails). */
  end(): void {
    const bytes = this.chunks !== undefined ? Buffer.concat(this.chunks, this.received) : (this.first ?? EMPTY);
    this.drop();
    if (this.contentLength !== undefined && this.received !== this.contentLength) {
      this.fail(lengthMismatch(this.received, this.contentLength));
      return;
    }
    settle(this.convert, bytes, this.done, this.fail);
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
