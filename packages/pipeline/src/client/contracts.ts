/**
 * The client's provider contracts (Jakarta REST 3.1 §6.2, client filters, and §6.3, entity
 * interceptors; MicroProfile Rest Client's `ResponseExceptionMapper`). As on the server, a provider's
 * kinds are read from its method names, which are distinct from the server's (`filterClientRequest`,
 * not `filterRequest`), so registering a server provider on a client, or the reverse, fails loudly.
 * `MessageBodyReader`, `MessageBodyWriter`, `ParamConverterProvider` and
 * `ContextResolver<JsonOptions>` are the server's own interfaces: the same instances work on both.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Body, TypeToken } from '../core/context/contracts.js';
import type { MediaType } from '../core/http/media-type.js';
import type { ClientProcessingError } from './errors.js';
import type { ClientHeaders, ClientRequestContext } from './request-context.js';
import type { ClientResponse } from './response.js';

/**
 * Runs before the request is sent, in ascending priority (JAX-RS `ClientRequestFilter`). It may
 * change the method, URI, headers and entity, or stop the call with `request.abortWith(response)`:
 * nothing is sent and that response goes through the response filters as if the server had sent it.
 * @example
 * \@Priority(Priorities.AUTHENTICATION)
 * class BearerAuth implements ClientRequestFilter {
 *   constructor(private readonly token: () => string) {}
 *   filterClientRequest(request: ClientRequestContext) {
 *     request.setHeader('authorization', `Bearer ${this.token()}`);
 *   }
 * }
 */
export interface ClientRequestFilter {
  filterClientRequest(request: ClientRequestContext): void | Promise<void>;
}

/**
 * Runs when the response headers arrived (or a request filter aborted), in DESCENDING priority
 * (JAX-RS `ClientResponseFilter`). It may change the status and headers, or replace the entity stream.
 * @example
 * class Timing implements ClientResponseFilter {
 *   filterClientResponse(request: ClientRequestContext, response: ClientResponse) {
 *     metrics.observe(request.method, response.status);
 *   }
 * }
 */
export interface ClientResponseFilter {
  filterClientResponse(request: ClientRequestContext, response: ClientResponse): void | Promise<void>;
}

/** What a {@link ClientReaderInterceptor} sees; `proceed()` calls the next one, and finally the reader. */
export interface ClientReaderInterceptorContext {
  readonly request: ClientRequestContext;
  readonly response: ClientResponse;
  /** The type the caller asked for (`readEntity(Type)`, or the contract method's return type). */
  type: TypeToken;
  /** The response's media type (may be replaced before `proceed()`). */
  mediaType: MediaType | undefined;
  /** A copy of the response headers: decoders drop `content-encoding` / `content-length` here. */
  readonly headers: IncomingHttpHeaders;
  /** The entity byte stream; replace it to decode (e.g. gunzip) before `proceed()`. */
  input: Readable;
  /** Most (decoded) bytes the reader may consume: the client's `maxResponseBytes`. */
  limit: number;
  proceed(): Promise<unknown>;
  getProperty(name: string): unknown;
  setProperty(name: string, value: unknown): void;
}

/**
 * Wraps reading a response entity (JAX-RS `ReaderInterceptor` on the client), in ascending priority.
 * @example
 * class Unwrap implements ClientReaderInterceptor {
 *   async aroundReadFrom(ctx: ClientReaderInterceptorContext) {
 *     const value = (await ctx.proceed()) as { data: unknown };
 *     return value.data;
 *   }
 * }
 */
export interface ClientReaderInterceptor {
  aroundReadFrom(ctx: ClientReaderInterceptorContext): unknown;
}

/** What a {@link ClientWriterInterceptor} sees; `proceed()` calls the next one, and finally the writer. */
export interface ClientWriterInterceptorContext {
  readonly request: ClientRequestContext;
  /** The entity to write; may be replaced before `proceed()`. */
  entity: unknown;
  /** Entity type used to choose the writer (chosen after the interceptors, from these values). */
  type: TypeToken;
  /** Media type used to choose the writer and sent as `Content-Type`. */
  mediaType: MediaType;
  /** The request headers (the same object as `request.headers`). */
  readonly headers: ClientHeaders;
  /** The serialized body, set by the writer when `proceed()` resolves; replace it to re-encode. */
  body: Body | undefined;
  proceed(): Promise<void>;
  getProperty(name: string): unknown;
  setProperty(name: string, value: unknown): void;
}

/**
 * Wraps writing the request entity (JAX-RS `WriterInterceptor` on the client), in ascending priority.
 * @example
 * class Signature implements ClientWriterInterceptor {
 *   async aroundWriteTo(ctx: ClientWriterInterceptorContext) {
 *     await ctx.proceed();
 *     const bytes = await collectBody(ctx.body, 1 << 20);
 *     ctx.headers['x-signature'] = sign(bytes);
 *     ctx.body = bytes;
 *   }
 * }
 */
export interface ClientWriterInterceptor {
  aroundWriteTo(ctx: ClientWriterInterceptorContext): void | Promise<void>;
}

/**
 * Turns an error response into the error a call throws (MicroProfile Rest Client's
 * `ResponseExceptionMapper`). Asked in ascending priority for every response it `handles` (default:
 * status >= 400); the first error returned is thrown; `undefined` lets the next mapper, and at the
 * end the default `ClientResponseError`, decide. The entity is buffered first, so `toError` may
 * read it. Only calls that return an entity (contract methods, `get(Type)`) are mapped; a call
 * that returns the `ClientResponse` leaves the status to the caller.
 * @example
 * class NotFoundMapper implements ResponseExceptionMapper {
 *   handles(status: number) { return status === 404; }
 *   async toError(response: ClientResponse) {
 *     return new UserNotFound(((await response.readEntity()) as { message: string }).message);
 *   }
 * }
 */
export interface ResponseExceptionMapper {
  /** Whether this mapper looks at the response; default `status >= 400`. */
  handles?(status: number, headers: IncomingHttpHeaders): boolean;
  toError(response: ClientResponse): Error | null | undefined | Promise<Error | null | undefined>;
}

/**
 * Turns a {@link ClientProcessingError} (a timeout, an unreachable server, an unreadable or
 * oversized response) into the error the call throws, in ascending priority; the first error
 * returned wins, `undefined` leaves it to the next mapper (and at the end the error is thrown as
 * is). Errors from the caller's own `AbortSignal` are never mapped: they are its reason.
 * @example
 * class GatewayErrors implements ClientFailureMapper {
 *   mapFailure(error: ClientProcessingError) {
 *     return error instanceof ClientTimeoutError ? new GatewayTimeoutError('upstream timed out', { cause: error }) : undefined;
 *   }
 * }
 */
export interface ClientFailureMapper {
  mapFailure(error: ClientProcessingError, request: ClientRequestContext): Error | null | undefined;
}
