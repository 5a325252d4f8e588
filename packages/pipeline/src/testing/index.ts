/**
 * `@jaxrs-node/pipeline/testing`: unit-test one filter, interceptor, reader, writer or mapper in
 * isolation (no application, no socket), plus `injectRequest` for whole-pipeline tests.
 * @example
 * const ctx = createRequestContext({ url: '/health', headers: { 'x-api-key': 'k' } });
 * await runRequestFilter(new ApiKeyFilter(['k']), ctx);
 * expect(ctx.abortResponse).toBeUndefined();
 */
import 'reflect-metadata';
import type { Readable } from 'node:stream';
import { parseMediaType, type MediaType } from '../core/http/media-type.js';
import type {
  Body,
  Constructor,
  ContainerRequestFilter,
  ContainerResponseFilter,
  ExceptionMapper,
  MessageBodyReader,
  MessageBodyWriter,
  ReaderInterceptor,
  TypeToken,
  WriterInterceptor,
} from '../core/context/contracts.js';
import { effectiveResource } from '../core/model/metadata.js';
import { joinPaths } from '../core/routing/path-template.js';
import { ReadCtx } from '../core/internal/readers.js';
import { ResourceInfo } from '../core/context/resource-info.js';
import { type ContainerRequestContext, Phase } from '../core/context/request-context.js';
import { Response } from '../core/http/response.js';
import { responseMediaType, typeOf, WriteCtx } from '../core/internal/writers.js';
import { collectBody as collectBounded } from '../providers/collect-body.js';
import { asExchange, BUILTIN_WRITERS, createExchange, useWriters } from './test-exchange.js';

export { injectRequest } from '../core/server/inject.js';
export type { InjectRequest, InjectResponse } from '../core/server/inject.js';

/** What a test request looks like. */
export interface TestRequestInit {
  method?: string;
  url?: string;
  headers?: Record<string, string | string[]>;
  body?: string | Uint8Array;
  remoteAddress?: string;
  /** Build the context as a pre-matching filter sees it (method/URI/headers mutable). Default false. */
  preMatching?: boolean;
  /**
   * The matched resource method, as a post-matching filter sees it in `ctx.resourceInfo`: the
   * class and method name; its path and binding decorators (with their arguments, method over
   * class) are read from the decorators, as the pipeline does. `httpMethod` defaults to the
   * method's first HTTP method (or `method`).
   *
   * @example createRequestContext({ matched: { resource: AdminResource, method: 'list' } })
   */
  matched?: { resource: Constructor; method: string; httpMethod?: string };
}

/** The ResourceInfo the pipeline builds for `resource.method`, from its decorators. */
function matchedInfo(init: NonNullable<TestRequestInit['matched']>, requestMethod: string | undefined): ResourceInfo {
  const meta = effectiveResource(init.resource);
  const mm = meta?.methods.get(init.method)?.meta;
  if (meta === undefined || mm === undefined || mm.httpMethods.length === 0) {
    throw new TypeError(`${init.resource.name}.${init.method} is not a resource method (no @GET/@POST/... on it)`);
  }
  const bindings = new Map(meta.bindings);
  for (const [k, v] of mm.bindings) bindings.set(k, v);
  const httpMethod =
    init.httpMethod ?? (requestMethod !== undefined && mm.httpMethods.includes(requestMethod) ? requestMethod : mm.httpMethods[0]!);
  return new ResourceInfo(init.resource, init.method, httpMethod, joinPaths(meta.path, mm.path), bindings);
}

/**
 * A request context over a fake request stream, as filters and interceptors receive it: the
 * pipeline's own request object (with the built-in readers and writers behind it), so
 * {@link runWriterInterceptors} can run on it exactly as the pipeline does.
 */
export function createRequestContext(init: TestRequestInit = {}): ContainerRequestContext {
  const ctx = createExchange(init);
  if (init.preMatching !== true) ctx.phase = Phase.PostMatching;
  if (init.matched !== undefined) ctx.resourceInfo = matchedInfo(init.matched, init.method);
  return ctx;
}

/** Runs a request filter; resolves with the abort response, if the filter aborted. Errors reject. */
export async function runRequestFilter(
  filter: ContainerRequestFilter,
  ctx: ContainerRequestContext = createRequestContext(),
): Promise<Response | undefined> {
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
export async function runExceptionMapper<E>(
  mapper: ExceptionMapper<E>,
  error: E,
  request: ContainerRequestContext = createRequestContext(),
): Promise<Response> {
  return (await mapper.toResponse(error, request)) ?? new Response(204);
}

/**
 * Collects a body (string, bytes or stream) into bytes, without a limit (tests only; production
 * code uses the main entry's bounded `collectBody(body, limit)`).
 */
export async function collectBody(body: Body | undefined): Promise<Buffer> {
  return collectBounded(body, Number.POSITIVE_INFINITY);
}

/** Options for {@link runWriterInterceptors}. */
export interface WriteTestInit {
  entity: unknown;
  /**
   * The media type, as if the resource method declared `@Produces(mediaType)` (default
   * `application/json`); an explicit `Content-Type` on `response` wins, as in the pipeline. A
   * wildcard such as `*\/*` negotiates like a method without `@Produces`: the request's Accept
   * against the writers' media types (406 when none fits).
   */
  mediaType?: string;
  /** Entity type (default: the response's `entityType`, else the entity's constructor). */
  type?: TypeToken;
  /** Must come from {@link createRequestContext} (the interceptors' `ctx.request` is this object). */
  request?: ContainerRequestContext;
  response?: Response;
  /** Writers to choose from after the interceptors, in this order (default: the built-in ones). */
  writers?: readonly MessageBodyWriter[];
}

/**
 * Runs writer interceptors (in the given order) and then a writer with the pipeline's own writer
 * context: the writer is chosen after the interceptors from their last type and media type,
 * `Content-Type` is set as the pipeline sets it, and no fitting writer rejects with the
 * pipeline's error (`InternalServerError`, 500, `PIPE_NO_WRITER`). Returns bytes and headers.
 */
export async function runWriterInterceptors(
  interceptors: readonly WriterInterceptor[],
  init: WriteTestInit,
): Promise<{ body: Buffer; response: Response; mediaType: MediaType }> {
  const ex = asExchange(init.request ?? createRequestContext());
  // Concurrent calls on one request context must pass the same writers (they live on its runtime).
  useWriters(ex, init.writers ?? BUILTIN_WRITERS);
  const response = init.response ?? new Response(200, init.entity);
  // The pipeline's typeOf; a response's entityType describes its own entity only.
  const type = init.type ?? typeOf(response.entity === init.entity ? response : new Response(response.status, init.entity));
  const produced = ex.responseMediaType;
  ex.responseMediaType = mustParse(init.mediaType ?? 'application/json');
  ex.phase = Phase.Responding;
  try {
    const ctx = new WriteCtx(ex, response, type, responseMediaType(ex, response, type), interceptors);
    ctx.entity = init.entity;
    await ctx.proceed();
    return { body: await collectBody(ctx.body), response, mediaType: ctx.mediaType };
  } finally {
    // Matching set it in the pipeline; here it is this call's, not the next one's.
    ex.responseMediaType = produced;
  }
}

/** Options for {@link runReaderInterceptors}. */
export interface ReadTestInit {
  /** Bytes get a Content-Length (unless `headers` has one); a stream without one is chunked, as `app.inject()` sends them. */
  body: string | Uint8Array | Readable;
  headers?: Record<string, string>;
  type?: TypeToken;
  /** Body limit in bytes (default: the pipeline's `bodyLimit` default, 1 MiB). */
  limit?: number;
  /** Readers to choose from after the interceptors, in this order (default: the built-in ones). */
  readers?: readonly MessageBodyReader[];
}

/**
 * Runs reader interceptors and then a reader over a body with the pipeline's own reader context
 * (a POST request); resolves with the entity. No fitting reader rejects with the pipeline's
 * error (`NotSupportedError`, 415, `PIPE_NO_READER`). The entity parameter's empty-body policy
 * (`undefined` or 400) is not applied: the reader's value is returned as is.
 */
export async function runReaderInterceptors(interceptors: readonly ReaderInterceptor[], init: ReadTestInit): Promise<unknown> {
  const ex = createExchange({ method: 'POST', headers: init.headers, body: init.body }, init.readers);
  ex.phase = Phase.PostMatching;
  const ctx = new ReadCtx(ex, init.type ?? Object, ex.mediaType, interceptors);
  if (init.limit !== undefined) ctx.limit = init.limit;
  return ctx.proceed();
}

function mustParse(s: string): MediaType {
  const mt = parseMediaType(s);
  if (mt === undefined) throw new TypeError(`invalid media type ${s}`);
  return mt;
}
