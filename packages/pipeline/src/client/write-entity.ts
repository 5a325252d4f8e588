/**
 * Writing the request entity on the client: writer interceptors (ascending) around the
 * MessageBodyWriter chosen AFTER them from the type and media type they leave, as on the server
 * (src/core/internal/writers.ts). The media type is the request's `Content-Type`, else the
 * contract method's `@Consumes`, else the first type the writers declare for the entity.
 */
import type { ContainerRequestContext } from '../core/context/request-context.js';
import type { Body, MessageBodyWriter, TypeToken, WriteContext } from '../core/context/contracts.js';
import type { Response } from '../core/http/response.js';
import { mediaTypeString, parseMediaType, type MediaType } from '../core/http/media-type.js';
import { mediaTypeKey } from '../core/internal/provider-cache.js';
import { chooseProvider } from '../core/internal/provider-choice.js';
import { typeName } from '../core/util/type-name.js';
import { ClientErrorCode, ClientProcessingError } from './errors.js';
import type { ClientWriterInterceptor, ClientWriterInterceptorContext } from './contracts.js';
import type { ClientChains, ClientProviders } from './registry.js';
import type { ClientHeaders, ClientRequestContext } from './request-context.js';

/** What writers get on the client: there is no server request or response to give them. */
const CLIENT_WRITE_CONTEXT: WriteContext = Object.freeze({
  get request(): ContainerRequestContext {
    throw new TypeError('WriteContext.request is the server request; a writer registered on a client writes a request body and has none');
  },
  get response(): Response {
    throw new TypeError('WriteContext.response is the server response; a writer registered on a client writes a request body and has none');
  },
});

/** The class of an entity (its prototype's constructor), `Object` for plain objects. */
export function entityTypeOf(entity: unknown): TypeToken {
  if (entity === null || entity === undefined) return Object;
  if ((entity as { constructor?: unknown }).constructor === Object) return Object;
  const proto = Object.getPrototypeOf(entity) as { constructor?: unknown } | null;
  const c = proto === null ? undefined : proto.constructor;
  return c === undefined || c === null ? Object : (c as TypeToken);
}

/** The first media type a writer declares for `type` and can write it as (cached per client). */
function defaultMediaType(providers: ClientProviders, type: TypeToken): MediaType | undefined {
  let text = providers.writerTypes.get(type);
  if (text === undefined) {
    text = null;
    search: for (const w of providers.writers) {
      for (const p of w.produces ?? ['application/octet-stream']) {
        const mt = parseMediaType(p);
        if (mt !== undefined && mt.type !== '*' && mt.subtype !== '*' && w.isWriteable(type, mt)) {
          text = p;
          break search;
        }
      }
    }
    if (providers.writerTypes.size < 256) providers.writerTypes.set(type, text);
  }
  return text === null ? undefined : parseMediaType(text);
}

/** The writer for `type` as `mediaType`, or an unwritable-request error. */
function selectWriter(providers: ClientProviders, type: TypeToken, mediaType: MediaType): MessageBodyWriter {
  const key = mediaTypeKey(mediaType);
  let writer = providers.writerChoices.get(type, key);
  if (writer === undefined) {
    writer = chooseProvider(
      providers.writers,
      (w) => w.isWriteable(type, mediaType),
      (w) => w.produces,
      mediaType,
      providers.builtin,
    );
    if (writer === undefined) {
      throw new ClientProcessingError(
        ClientErrorCode.RequestUnwritable,
        `No MessageBodyWriter for ${typeName(type)} as ${mediaType.essence}: register one on the client, or send another type`,
      );
    }
    providers.writerChoices.set(type, key, writer);
  }
  return writer;
}

const contentTypes = new Map<MediaType, string>();

/** `Content-Type` value; text types get `charset=utf-8` (the writers emit UTF-8). */
function contentTypeOf(mt: MediaType): string {
  let s = contentTypes.get(mt);
  if (s === undefined) {
    s = mt.type === 'text' && mt.params.charset === undefined ? `${mediaTypeString(mt)}; charset=utf-8` : mediaTypeString(mt);
    if (contentTypes.size < 256) contentTypes.set(mt, s);
  }
  return s;
}

/** Serializes `request.entity` (undefined when there is none) and sets its `Content-Type`. */
export async function writeEntity(
  providers: ClientProviders,
  chains: ClientChains,
  request: ClientRequestContext,
): Promise<Body | undefined> {
  const entity = request.entity;
  if (entity === undefined || entity === null) return undefined;
  const type = request.entityType ?? entityTypeOf(entity);
  const mediaType = request.mediaType ?? defaultMediaType(providers, type);
  if (mediaType === undefined) {
    throw new ClientProcessingError(
      ClientErrorCode.RequestUnwritable,
      `No MessageBodyWriter declares a media type for ${typeName(type)}: set Content-Type, or register a writer`,
    );
  }
  try {
    if (chains.writerInterceptors.length === 0) {
      const writer = selectWriter(providers, type, mediaType);
      request.headers['content-type'] ??= contentTypeOf(mediaType);
      return await writer.writeTo(entity, type, mediaType, CLIENT_WRITE_CONTEXT);
    }
    const ctx = new ClientWriteCtx(request, providers, type, mediaType, chains.writerInterceptors);
    await ctx.proceed();
    return ctx.body;
  } catch (e) {
    if (e instanceof ClientProcessingError) throw e;
    throw new ClientProcessingError(
      ClientErrorCode.RequestUnwritable,
      `The request entity could not be written: ${(e as Error)?.message}`,
      {
        cause: e,
      },
    );
  }
}

class ClientWriteCtx implements ClientWriterInterceptorContext {
  entity: unknown;
  body: Body | undefined;
  private i = 0;
  private readonly initial: MediaType;

  constructor(
    readonly request: ClientRequestContext,
    private readonly providers: ClientProviders,
    public type: TypeToken,
    public mediaType: MediaType,
    private readonly chain: readonly ClientWriterInterceptor[],
  ) {
    this.entity = request.entity;
    this.body = undefined;
    this.initial = mediaType;
  }

  get headers(): ClientHeaders {
    return this.request.headers;
  }

  async proceed(): Promise<void> {
    const interceptor = this.chain[this.i++];
    if (interceptor !== undefined) {
      await interceptor.aroundWriteTo(this);
      return;
    }
    const writer = selectWriter(this.providers, this.type, this.mediaType);
    // The request's own Content-Type stays, unless an interceptor changed the media type.
    const headers = this.request.headers;
    if (headers['content-type'] === undefined || this.mediaType !== this.initial) headers['content-type'] = contentTypeOf(this.mediaType);
    this.body = await writer.writeTo(this.entity, this.type, this.mediaType, CLIENT_WRITE_CONTEXT);
  }

  getProperty(name: string): unknown {
    return this.request.getProperty(name);
  }
  setProperty(name: string, value: unknown): void {
    this.request.setProperty(name, value);
  }
}
