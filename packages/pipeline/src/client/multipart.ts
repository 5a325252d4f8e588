/**
 * Multipart request bodies on the client (RFC 7578 `multipart/form-data`, RFC 2046 §5.1
 * `multipart/mixed`): a list of `EntityPart`s is written by the multipart entry's own
 * `MultipartWriter`, streamed part by part. Only the writer side is loaded (it needs no busboy).
 */
import { randomBytes } from 'node:crypto';
import type { Body, Feature, FeatureContext, MessageBodyWriter, TypeToken, WriteContext } from '../core/context/contracts.js';
import { parseMediaType, type MediaType } from '../core/http/media-type.js';
import { EntityPart } from '../features/multipart/entity-part.js';
import { MultipartWriter } from '../features/multipart/writer.js';
import type { ClientWriterInterceptor, ClientWriterInterceptorContext } from './contracts.js';

const FORM_DATA = parseMediaType('multipart/form-data')!;

/** A list of parts with the boundary chosen for them (the type the writer is chosen for). */
class MultipartRequest {
  constructor(
    readonly parts: readonly EntityPart[],
    readonly boundary: string,
  ) {}
}

const isMultipart = (mt: MediaType | undefined): mt is MediaType =>
  mt?.type === 'multipart' && (mt.subtype === 'form-data' || mt.subtype === 'mixed');

const isPartList = (value: unknown): value is readonly EntityPart[] => Array.isArray(value) && value.every((p) => p instanceof EntityPart);

/**
 * Chooses the boundary of a part list before the writer runs and puts it on `Content-Type` after
 * (a client writer has no headers to set), then writes the parts with `MultipartWriter`. The
 * writer is chosen for `multipart/form-data` without the boundary, so a random boundary per call
 * never fills the client's writer cache.
 */
class ClientMultipartWriter implements ClientWriterInterceptor, MessageBodyWriter<MultipartRequest> {
  readonly name = 'ClientMultipartWriter';
  private readonly writer = new MultipartWriter();

  async aroundWriteTo(ctx: ClientWriterInterceptorContext): Promise<void> {
    const parts = ctx.entity;
    let mediaType = ctx.mediaType;
    if (!isPartList(parts)) return ctx.proceed();
    if (!isMultipart(mediaType)) {
      // A part list without a Content-Type is a form; with another media type it is the caller's choice.
      if (ctx.headers['content-type'] !== undefined || parts.length === 0) return ctx.proceed();
      mediaType = FORM_DATA;
    }
    const boundary = mediaType.params.boundary ?? `jaxrs-node-${randomBytes(16).toString('hex')}`;
    ctx.entity = new MultipartRequest(parts, boundary);
    ctx.type = MultipartRequest;
    ctx.mediaType = mediaType;
    await ctx.proceed();
    const sent = ctx.headers['content-type'];
    if (typeof sent !== 'string') return;
    const sentType = parseMediaType(sent);
    if (isMultipart(sentType) && sentType.params.boundary === undefined) ctx.headers['content-type'] = `${sent}; boundary=${boundary}`;
  }

  isWriteable(type: TypeToken, mediaType: MediaType): boolean {
    return type === MultipartRequest && isMultipart(mediaType);
  }

  writeTo(entity: MultipartRequest, _type: TypeToken, mediaType: MediaType): Body {
    const withBoundary: MediaType = { ...mediaType, params: { ...mediaType.params, boundary: entity.boundary } };
    // The server writer puts the boundary on the response's headers (a scratch object here: the
    // interceptor above sets the request's) and writes object-valued parts as JSON outside a server request.
    const scratch = { request: undefined, response: { headers: {} } } as unknown as WriteContext;
    return this.writer.writeTo(entity.parts, Array, withBoundary, scratch);
  }
}

/**
 * Sends lists of `EntityPart`s (`EntityPart.of(name, value, { filename, mediaType })`) as
 * `multipart/form-data` (the default for a part list) or `multipart/mixed`, streamed: a `Readable`
 * part is piped with backpressure, never held whole. The boundary is random unless the
 * `Content-Type` names one. Part values: strings, bytes, `Readable`s, other values as JSON. A
 * contract method with `@Consumes('multipart/form-data')` taking an `EntityPart[]` works the same.
 * Needs no busboy (only reading multipart does).
 * @example
 * import { Client, ClientEntity, ClientMultipartFeature, EntityPart } from '@jaxrs-node/pipeline/client';
 * const client = new Client({ baseUrl, providers: [new ClientMultipartFeature()] });
 * await client.target('uploads').request().post([
 *   EntityPart.of('file', createReadStream(path), { filename: 'report.pdf', mediaType: 'application/pdf' }),
 *   EntityPart.of('title', 'Q3 report'),
 * ]);
 */
export class ClientMultipartFeature implements Feature {
  setup(context: FeatureContext): void {
    context.register(new ClientMultipartWriter());
  }
}
