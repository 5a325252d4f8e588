/**
 * Body providers the client adds to the server's built-in ones: a form writer (the server reads
 * forms, a client sends them), a stream reader whose errors are client errors, and a last-resort
 * reader so that an untyped read of an unknown media type still gives the bytes.
 */
import { Readable, Transform, pipeline, type TransformCallback } from 'node:stream';
import type { Body, MessageBodyReader, MessageBodyWriter, ReadContext, TypeToken } from '../core/context/contracts.js';
import type { MediaType } from '../core/http/media-type.js';
import { readBody } from '../providers/read-body.js';
import { BODY_STAGE_HIGH_WATER_MARK } from '../providers/stream.js';
import { isSubtypeOf } from '../providers/type-tokens.js';
import { ClientErrorCode, ClientProcessingError } from './errors.js';
import { transportFailure } from './failures.js';

/**
 * A form (`URLSearchParams`) as `application/x-www-form-urlencoded`, as `@FormParam` arguments are sent
 * (built into every client).
 * @example await client.target('login').request().post(new URLSearchParams({ user: 'ada' }));
 */
export class FormWriter implements MessageBodyWriter<URLSearchParams> {
  readonly name = 'FormWriter';
  readonly produces: readonly string[] = ['application/x-www-form-urlencoded'];

  isWriteable(type: TypeToken, mediaType: MediaType): boolean {
    return isSubtypeOf(type, URLSearchParams) && mediaType.essence === 'application/x-www-form-urlencoded';
  }

  writeTo(entity: URLSearchParams): Body {
    return entity.toString();
  }
}

/** The error a response body past `limit` bytes fails with. */
export function responseTooLarge(limit: number, cause?: unknown): ClientProcessingError {
  return new ClientProcessingError(ClientErrorCode.ResponseTooLarge, `The response body exceeds maxResponseBytes (${limit})`, { cause });
}

/**
 * Counts the bytes of a streamed response: past `limit` the stream fails with
 * `CLIENT_RESPONSE_TOO_LARGE`; errors of the source arrive as client errors (a body timeout as
 * `ClientTimeoutError`, a reset as `CLIENT_CONNECTION_FAILED`).
 */
class ResponseLimit extends Transform {
  private received = 0;

  constructor(private readonly limit: number) {
    super({ highWaterMark: BODY_STAGE_HIGH_WATER_MARK });
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.received += chunk.length;
    if (this.received > this.limit) cb(responseTooLarge(this.limit));
    else cb(null, chunk);
  }

  override _destroy(err: Error | null, cb: (error?: Error | null) => void): void {
    cb(err === null ? null : transportFailure(err, undefined));
  }
}

/**
 * Hands the response body through as a stream (`readEntity(Readable)`, or a contract method
 * declared to return `Readable`), any media type, counted against `maxResponseBytes`.
 */
export class ClientStreamReader implements MessageBodyReader<Readable> {
  readonly name = 'ClientStreamReader';
  readonly consumes: readonly string[] = ['*/*'];

  isReadable(type: TypeToken): boolean {
    return isSubtypeOf(type, Readable);
  }

  readFrom(_type: TypeToken, _mediaType: MediaType | undefined, input: Readable, ctx: ReadContext): Readable {
    if (ctx.contentLength !== undefined && ctx.contentLength > ctx.limit) throw responseTooLarge(ctx.limit);
    const limited = new ResponseLimit(ctx.limit);
    pipeline(input, limited, () => undefined);
    return limited;
  }
}

/**
 * The last reader tried: `String` as UTF-8 text and `Object` (no type asked for) as the bytes, for
 * media types no other reader takes (or none at all). An empty body is `''` or `undefined`.
 */
export class FallbackReader implements MessageBodyReader<unknown> {
  readonly name = 'FallbackReader';

  isReadable(type: TypeToken): boolean {
    return type === String || type === Object;
  }

  async readFrom(type: TypeToken, _mediaType: MediaType | undefined, input: Readable, ctx: ReadContext): Promise<unknown> {
    const bytes = await readBody(input, ctx.limit, ctx.contentLength);
    if (type === String) return bytes.toString('utf8');
    return bytes.length === 0 ? undefined : bytes;
  }
}
