/**
 * `@jaxrs-node/pipeline/testing`: unit-test one filter, interceptor, reader, writer or mapper in
 * isolation (no application, no socket), plus `injectRequest` for whole-pipeline tests.
 * @example
 * const ctx = createRequestContext({ url: '/health', headers: { 'x-api-key': 'k' } });
 * await runRequestFilter(new ApiKeyFilter(['k']), ctx);
 * expect(ctx.abortResponse).toBeUndefined();
 */
import 'reflect-metadata';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Readable, Writable } from 'node:stream';
import { parseMediaType, type MediaType } from '../core/media-type.js';
import type {
  Body, ContainerRequestFilter, ContainerResponseFilter, ExceptionMapper, MessageBodyReader, MessageBodyWriter,
  ReaderInterceptor, ReaderInterceptorContext, TypeToken, WriterInterceptor, WriterInterceptorContext,
} from '../core/providers.js';
import { ContainerRequestContext, Phase } from '../core/request-context.js';
import { Response } from '../core/response.js';
import { defaultProviders } from '../providers/index.js';

export { injectRequest } from '../core/inject.js';
export type { InjectRequest, InjectResponse } from '../core/inject.js';

/** What a test request looks like. */
export interface TestRequestInit {
  method?: string;
  url?: string;
  headers?: Record<string, string | string[]>;
  body?: string | Uint8Array;
  remoteAddress?: string;
  /** Build the context as a pre-matching filter sees it (method/URI/headers mutable). Default false. */
  preMatching?: boolean;
}

/** A request context over a fake request stream, as filters and interceptors receive it. */
export function createRequestContext(init: TestRequestInit = {}): ContainerRequestContext {
  const headers: IncomingHttpHeaders = {};
  for (const [k, v] of Object.entries(init.headers ?? {})) headers[k.toLowerCase()] = v;
  const body = init.body === undefined ? undefined : Buffer.from(init.body);
  if (body !== undefined && headers['content-length'] === undefined) headers['content-length'] = String(body.byteLength);
  const url = init.url ?? '/';
  const method = (init.method ?? 'GET').toUpperCase();
  const req = Object.assign(Readable.from(body === undefined || body.byteLength === 0 ? [] : [body]), {
    method, url, headers, httpVersion: '1.1',
    socket: { remoteAddress: init.remoteAddress ?? '127.0.0.1', encrypted: false },
  }) as unknown as IncomingMessage;
  const res = new Writable({ write: (_c, _e, cb) => cb() }) as unknown as ServerResponse;
  const q = url.indexOf('?');
  const ctx = new ContainerRequestContext(req, res, method, q < 0 ? url : url.slice(0, q), q < 0 ? '' : url.slice(q + 1), false);
  if (init.preMatching !== true) ctx.phase = Phase.PostMatching;
  return ctx;
}

/** Runs a request filter; resolves with the abort response, if the filter aborted. Errors reject. */
export async function runRequestFilter(filter: ContainerRequestFilter, ctx: ContainerRequestContext = createRequestContext()): Promise<Response | undefined> {
  await filter.filterRequest(ctx);
  return ctx.abortResponse;
}

/** Runs a response filter on `response` (default: 200 without entity) and returns it. */
export async function runResponseFilter(
  filter: ContainerResponseFilter,
  request: ContainerRequestContext = createRequestContext(),
  response: Response = new Response(200),
): Promise<Response> {
  request.phase = Phase.Responding;
  await filter.filterResponse(request, response);
  return response;
}

/** Runs an exception mapper as the pipeline would (null → 204). */
export async function runExceptionMapper<E>(mapper: ExceptionMapper<E>, error: E, request: ContainerRequestContext = createRequestContext()): Promise<Response> {
  return (await mapper.toResponse(error, request)) ?? new Response(204);
}

/** Collects a body (string, bytes or stream) into bytes. */
export async function collectBody(body: Body | undefined): Promise<Buffer> {
  if (body === undefined) return Buffer.alloc(0);
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body);
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(typeof c === 'string' ? Buffer.from(c) : Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks);
}

/** Options for {@link runWriterInterceptors}. */
export interface WriteTestInit {
  entity: unknown;
  mediaType?: string;
  type?: TypeToken;
  request?: ContainerRequestContext;
  response?: Response;
  /** Writers to choose from after the interceptors (default: the built-in ones). */
  writers?: readonly MessageBodyWriter[];
}

/** Runs writer interceptors (in the given order) and then a writer, like the pipeline does; returns bytes and headers. */
export async function runWriterInterceptors(interceptors: readonly WriterInterceptor[], init: WriteTestInit): Promise<{ body: Buffer; response: Response; mediaType: MediaType }> {
  const request = init.request ?? createRequestContext();
  const response = init.response ?? new Response(200, init.entity);
  const writers = init.writers ?? (defaultProviders().filter((p) => 'writeTo' in p) as MessageBodyWriter[]);
  let i = 0;
  const ctx: WriterInterceptorContext = {
    request, response, entity: init.entity,
    type: init.type ?? (init.entity as object | null)?.constructor ?? Object,
    mediaType: mustParse(init.mediaType ?? 'application/json'),
    get headers() { return response.headers; },
    body: undefined,
    async proceed() {
      const next = interceptors[i++];
      if (next !== undefined) return next.aroundWriteTo(ctx);
      const writer = writers.find((w) => w.isWriteable(ctx.type, ctx.mediaType));
      if (writer === undefined) throw new Error(`no writer for ${ctx.mediaType.essence}`);
      response.headers['content-type'] ??= ctx.mediaType.essence;
      ctx.body = await writer.writeTo(ctx.entity, ctx.type, ctx.mediaType, { request, response });
    },
    getProperty: (n) => request.getProperty(n),
    setProperty: (n, v) => request.setProperty(n, v),
  };
  await ctx.proceed();
  return { body: await collectBody(ctx.body), response, mediaType: ctx.mediaType };
}

/** Options for {@link runReaderInterceptors}. */
export interface ReadTestInit {
  body: string | Uint8Array | Readable;
  headers?: Record<string, string>;
  type?: TypeToken;
  limit?: number;
  readers?: readonly MessageBodyReader[];
}

/** Runs reader interceptors and then a reader over a body; resolves with the entity. */
export async function runReaderInterceptors(interceptors: readonly ReaderInterceptor[], init: ReadTestInit): Promise<unknown> {
  const headers: IncomingHttpHeaders = {};
  for (const [k, v] of Object.entries(init.headers ?? {})) headers[k.toLowerCase()] = v;
  const request = createRequestContext({ method: 'POST', headers: init.headers });
  const input = init.body instanceof Readable ? init.body : Readable.from([Buffer.from(init.body)]);
  const readers = init.readers ?? (defaultProviders().filter((p) => 'readFrom' in p) as MessageBodyReader[]);
  let i = 0;
  const ct = headers['content-type'];
  const ctx: ReaderInterceptorContext = {
    request, type: init.type ?? Object, mediaType: ct === undefined ? undefined : parseMediaType(ct), headers,
    input, limit: init.limit ?? 1024 * 1024,
    async proceed() {
      const next = interceptors[i++];
      if (next !== undefined) return next.aroundReadFrom(ctx);
      const reader = readers.find((r) => r.isReadable(ctx.type, ctx.mediaType));
      if (reader === undefined) throw new Error(`no reader for ${ctx.mediaType?.essence ?? '(none)'}`);
      const cl = ctx.headers['content-length'];
      return reader.readFrom(ctx.type, ctx.mediaType, ctx.input, {
        request, headers: ctx.headers, limit: ctx.limit, contentLength: cl === undefined || ctx.input !== input ? undefined : Number(cl),
      });
    },
    getProperty: (n) => request.getProperty(n),
    setProperty: (n, v) => request.setProperty(n, v),
  };
  return ctx.proceed();
}

function mustParse(s: string): MediaType {
  const mt = parseMediaType(s);
  if (mt === undefined) throw new Error(`invalid media type ${s}`);
  return mt;
}
