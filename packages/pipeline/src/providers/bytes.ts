import type { Readable } from 'node:stream';
import type { MediaType } from '../core/http/media-type.js';
import type { Body, MessageBodyReader, MessageBodyWriter, ReadContext, TypeToken, WriteContext } from '../core/context/contracts.js';
import { readBody } from './read-body.js';
import { isBinaryType, isSubtypeOf } from './type-tokens.js';

/**
 * Reads any media type (or none) into a Buffer, for entity parameters typed `Buffer` or
 * `Uint8Array` (a Buffer is both). Same limits and length checks as every buffered reader.
 */
export class BytesReader implements MessageBodyReader<Buffer> {
  readonly name = 'BytesReader';
  readonly consumes: readonly string[] = ['*/*'];

  isReadable(type: TypeToken, _mediaType: MediaType | undefined): boolean {
    return isSubtypeOf(type, Uint8Array);
  }

  readFrom(_type: TypeToken, _mediaType: MediaType | undefined, input: Readable, ctx: ReadContext): Promise<Buffer> {
    return readBody(input, ctx.limit, ctx.contentLength);
  }
}

/**
 * Writes bytes as they are, whatever the media type (JAX-RS `byte[]` provider: `*\/*`):
 * Buffer / Uint8Array unchanged, other typed arrays, DataView and ArrayBuffer as a zero-copy
 * Uint8Array view. With only a wildcard negotiated the lifecycle picks `application/octet-stream`.
 */
export class BytesWriter implements MessageBodyWriter<unknown> {
  readonly name = 'BytesWriter';
  readonly produces: readonly string[] = ['application/octet-stream', '*/*'];

  isWriteable(type: TypeToken, _mediaType: MediaType): boolean {
    return isBinaryType(type);
  }

  writeTo(entity: unknown, _type?: TypeToken, _mediaType?: MediaType, _ctx?: WriteContext): Body {
    if (entity instanceof Uint8Array) return entity;
    if (ArrayBuffer.isView(entity)) return new Uint8Array(entity.buffer, entity.byteOffset, entity.byteLength);
    if (entity instanceof ArrayBuffer) return new Uint8Array(entity);
    throw new TypeError(`BytesWriter cannot write ${typeof entity}: expected Buffer, a typed array or ArrayBuffer`);
  }
}
