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
 * our listeners are removed) and a no-op `error` listener is left behind so that a later error
 * on a stream nobody listens to cannot crash the process. Closing the connection after a 413 is
 * the caller's decision (the unread bytes are still on the socket).
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
  if (contentLength !== undefined) {
    if (!Number.isSafeInteger(contentLength) || contentLength < 0) {
      return Promise.reject(new BadRequestError('Invalid Content-Length', { code: BodyErrorCode.LengthMismatch }));
    }
    if (contentLength > limit) return Promise.reject(tooLarge(limit));
  }
  if (input.readableEnded) return Promise.resolve(EMPTY);
  if (input.destroyed) {
    return Promise.reject(input.errored === null ? clientAborted() : streamError(input.errored));
  }
  return new Promise<Buffer>((resolve, reject) => {
    let first: Buffer | undefined;
    let chunks: Buffer[] | undefined;
    let received = 0;

    const cleanup = (): void => {
      input.removeListener('data', onData);
      input.removeListener('end', onEnd);
      input.removeListener('error', onError);
      input.removeListener('aborted', onAborted);
      input.removeListener('close', onClose);
    };
    const fail = (err: Error): void => {
      cleanup();
      input.on('error', noop);
      reject(err);
    };
    function onData(chunk: unknown): void {
      const buf = toBuffer(chunk);
      if (buf === undefined) {
        input.pause();
        fail(streamError(new TypeError(`Body chunks must be bytes or strings, got ${typeof chunk}`)));
        return;
      }
      received += buf.length;
      if (received > limit) {
        // Removing the 'data' listener does not stop a flowing stream: pause it explicitly.
        input.pause();
        fail(tooLarge(limit));
        return;
      }
      if (first === undefined) first = buf;
      else if (chunks === undefined) chunks = [first, buf];
      else chunks.push(buf);
    }
    function onEnd(): void {
      cleanup();
      if (contentLength !== undefined && received !== contentLength) {
        reject(lengthMismatch(received, contentLength));
        return;
      }
      if (chunks !== undefined) resolve(Buffer.concat(chunks, received));
      else resolve(first ?? EMPTY);
    }
    function onError(err: unknown): void {
      fail(streamError(err));
    }
    // IncomingMessage emits 'aborted' (and 'error' only when someone listens) when the client resets.
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
 * Chunks are Buffers for byte streams; object-mode sources may yield strings or plain
 * Uint8Arrays. Anything else gives undefined (never a throw: this runs inside 'data' handlers).
 */
export function toBuffer(chunk: unknown): Buffer | undefined {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return undefined;
}
