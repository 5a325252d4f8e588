import { Readable, Transform, type TransformCallback } from 'node:stream';
import type { MediaType } from '../core/http/media-type.js';
import type { Body, MessageBodyReader, MessageBodyWriter, ReadContext, TypeToken, WriteContext } from '../core/context/contracts.js';
import { clientAborted, lengthMismatch, streamError, tooLarge } from './body-errors.js';
import { toBuffer } from './read-body.js';
import { isStreamEntity, isStreamType, isSubtypeOf } from './type-tokens.js';

const noop = (): void => {};

/**
 * Buffer size of the body stages this library creates. Pinned because Node 22 raised the default
 * from 16 KiB to 64 KiB: with the default, a gzip bomb made of 1 KB members had 189 of them read
 * into buffers on Node 24.21 before backpressure stopped the input (the same on every version now).
 */
export const BODY_STAGE_HIGH_WATER_MARK = 16 * 1024;

/**
 * A pass-through that counts bytes and fails the stream with 413 when they exceed `limit`, and
 * with 400 when the total differs from a declared `contentLength` (raw, undecoded bodies only).
 */
export class BodyLimitGuard extends Transform {
  private received = 0;

  constructor(
    private readonly limit: number,
    private readonly contentLength: number | undefined,
  ) {
    super({ highWaterMark: BODY_STAGE_HIGH_WATER_MARK });
  }

  override _transform(chunk: unknown, _enc: BufferEncoding, cb: TransformCallback): void {
    const buf = toBuffer(chunk);
    if (buf === undefined) return cb(streamError(new TypeError('Body chunks must be bytes or strings')));
    this.received += buf.length;
    if (this.received > this.limit) return cb(tooLarge(this.limit));
    cb(null, buf);
  }

  override _flush(cb: TransformCallback): void {
    if (this.contentLength !== undefined && this.received !== this.contentLength) {
      cb(lengthMismatch(this.received, this.contentLength));
      return;
    }
    cb();
  }
}

/**
 * Hands `input` through a {@link BodyLimitGuard}. Source failures (client reset, a decoder
 * error, `close` before `end`) destroy the guard with the same errors `readBody` gives, so a
 * consumer never waits forever. On a guard error the source is unpiped and paused, not
 * destroyed: closing the connection is the lifecycle's decision. A no-op `error` listener on
 * the guard keeps an unread, failed body from crashing the process; consumers (for-await,
 * `pipeline`) still receive the error.
 */
export function guardStream(input: Readable, limit: number, contentLength: number | undefined): Readable {
  const guard = new BodyLimitGuard(limit, contentLength);
  guard.on('error', noop);
  if (input.destroyed && !input.readableEnded) {
    guard.destroy(input.errored === null ? clientAborted() : streamError(input.errored));
    return guard;
  }
  const onError = (err: unknown): void => {
    guard.destroy(streamError(err));
  };
  const onAborted = (): void => {
    guard.destroy(clientAborted());
  };
  const onClose = (): void => {
    if (!input.readableEnded) guard.destroy(clientAborted());
  };
  const detach = (): void => {
    input.removeListener('error', onError);
    input.removeListener('aborted', onAborted);
    input.removeListener('close', onClose);
  };
  input.on('error', onError);
  input.on('aborted', onAborted);
  input.on('close', onClose);
  guard.on('close', () => {
    detach();
    if (guard.errored !== null || !guard.writableFinished) {
      input.on('error', noop); // see readBody: the source may still error later
      input.unpipe(guard);
      input.pause();
    }
  });
  input.pipe(guard);
  return guard;
}

/**
 * Hands the request body through as a stream, for entity parameters typed `Readable`, any media
 * type. A declared `Content-Length` over the limit is 413 at once; otherwise the returned stream
 * errors with 413 when the limit is crossed (see {@link guardStream}).
 */
export class StreamReader implements MessageBodyReader<Readable> {
  readonly name = 'StreamReader';
  readonly consumes: readonly string[] = ['*/*'];

  isReadable(type: TypeToken, _mediaType: MediaType | undefined): boolean {
    return isSubtypeOf(type, Readable);
  }

  readFrom(_type: TypeToken, _mediaType: MediaType | undefined, input: Readable, ctx: ReadContext): Readable {
    if (ctx.contentLength !== undefined && ctx.contentLength > ctx.limit) throw tooLarge(ctx.limit);
    return guardStream(input, ctx.limit, ctx.contentLength);
  }
}

/**
 * Writes streamed entities, any media type: a Node `Readable` as is; an async iterable (async
 * generator, web `ReadableStream`) or an iterator (generator object) of string / Uint8Array
 * chunks through `Readable.from` in byte mode, so a chunk of another type fails the stream
 * instead of reaching the socket. Arrays and strings are data, not streams: other writers take
 * them. Under JSON, NDJSON and `text/event-stream` types an iterable's items are values, written
 * by `IterableWriter` (a closer media-type match); a `Readable` stays bytes under every type. Backpressure comes from the lifecycle's `pipeline(body, res)`, which also ends the
 * generator (its `finally` runs) when the client goes away.
 */
export class StreamWriter implements MessageBodyWriter<unknown> {
  readonly name = 'StreamWriter';
  readonly produces: readonly string[] = ['application/octet-stream', '*/*'];

  isWriteable(type: TypeToken, _mediaType: MediaType): boolean {
    return isStreamType(type);
  }

  writeTo(entity: unknown, _type?: TypeToken, _mediaType?: MediaType, _ctx?: WriteContext): Body {
    if (entity instanceof Readable) return entity;
    if (isStreamEntity(entity)) return Readable.from(entity as AsyncIterable<unknown> | Iterable<unknown>, { objectMode: false });
    throw new TypeError('StreamWriter needs a Readable, an async iterable or an iterator of string/Uint8Array chunks');
  }
}
