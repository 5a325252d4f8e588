import type { MediaType } from '../core/http/media-type.js';
import type { Body, MessageBodyWriter, TypeToken, WriteContext } from '../core/context/contracts.js';
import { RangeableBody } from '../core/ranges/rangeable-body.js';
import type { RangeableEntity } from '../core/ranges/rangeable-entity.js';
import { isRangeableType } from './type-tokens.js';

/**
 * Writes a {@link RangeableEntity} (`FileBody`, `BytesBody`), any media type (default
 * `application/octet-stream`): states its `ETag` and `Last-Modified` unless the response has them,
 * and gives a stream that reads nothing until it is read. When no writer interceptor replaced that
 * stream (a content coding), the response step serves ranges from the entity (RFC 9110 §14;
 * docs/ranges.md); otherwise the interceptor reads the whole content through it.
 */
export class RangeableEntityWriter implements MessageBodyWriter<RangeableEntity> {
  readonly name = 'RangeableEntityWriter';
  readonly produces: readonly string[] = ['application/octet-stream', '*/*'];

  isWriteable(type: TypeToken, _mediaType: MediaType): boolean {
    return isRangeableType(type);
  }

  writeTo(entity: RangeableEntity, _type: TypeToken, _mediaType: MediaType, ctx: WriteContext): Body {
    const headers = ctx.response.headers;
    if (entity.entityTag !== undefined && headers.etag === undefined) headers.etag = entity.entityTag.toString();
    if (entity.lastModified !== undefined && headers['last-modified'] === undefined)
      headers['last-modified'] = entity.lastModified.toUTCString();
    return new RangeableBody(entity);
  }
}
