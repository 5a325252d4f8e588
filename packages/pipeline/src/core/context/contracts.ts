import type { Readable } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import type { ContainerRequestContext } from './request-context.js';
import type { Response } from '../http/response.js';
import type { MediaType } from '../http/media-type.js';
import type { ResourceInfo } from './resource-info.js';

/** A class constructor (providers, resources, entity types). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Constructor<T = unknown> = new (...args: any[]) => T;
/** Anything usable as an entity type token: a class, or a built-in constructor like `String`. */
export type TypeToken = Constructor | ((...args: never[]) => unknown) | object;

/** The response as seen by response filters (JAX-RS `ContainerResponseContext`). */
export type ContainerResponseContext = Response;

/**
 * JAX-RS `ContainerRequestFilter`. Post-matching unless the class carries `@PreMatching()`.
 * Return nothing for the fast path; return a Promise only when you must wait.
 * Stop the request with `ctx.abortWith(response)` or by throwing.
 */
export interface ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void | Promise<void>;
}

/** JAX-RS `ContainerResponseFilter`; runs in DESCENDING priority order. */
export interface ContainerResponseFilter {
  filterResponse(request: ContainerRequestContext, response: ContainerResponseContext): void | Promise<void>;
}

/** Context handed to reader interceptors; `proceed()` calls the next one, and finally the reader. */
export interface ReaderInterceptorContext {
  readonly request: ContainerRequestContext;
  /** The declared entity type of the parameter being read. */
  type: TypeToken;
  /** Request media type (may be replaced before `proceed()`). */
  mediaType: MediaType | undefined;
  /** Request headers (mutable copy semantics: changes are visible to the reader). */
  readonly headers: IncomingHttpHeaders;
  /** The entity byte stream; replace it to decode (e.g. gunzip) before `proceed()`. */
  input: Readable;
  /** Maximum number of (decoded) bytes a reader may consume. */
  limit: number;
  proceed(): Promise<unknown>;
  getProperty(name: string): unknown;
  setProperty(name: string, value: unknown): void;
}

/** JAX-RS `ReaderInterceptor`: wraps entity reading; cannot abort the request. */
export interface ReaderInterceptor {
  aroundReadFrom(ctx: ReaderInterceptorContext): unknown | Promise<unknown>;
}

/** A serialized body: bytes, text, or a stream of bytes. */
export type Body = string | Uint8Array | Readable;

/** Context handed to writer interceptors; `proceed()` calls the next one, and finally the writer. */
export interface WriterInterceptorContext {
  readonly request: ContainerRequestContext;
  readonly response: ContainerResponseContext;
  /** The entity to write; may be replaced before `proceed()`. */
  entity: unknown;
  /** Entity type used to choose the writer (chosen AFTER the interceptors, from these values). */
  type: TypeToken;
  /** Media type used to choose the writer and sent as `Content-Type`. */
  mediaType: MediaType;
  /** Response headers (same object as `response.headers`). */
  readonly headers: ContainerResponseContext['headers'];
  /** The serialized body, set by the writer when `proceed()` resolves; replace it to re-encode. */
  body: Body | undefined;
  proceed(): Promise<void>;
  getProperty(name: string): unknown;
  setProperty(name: string, value: unknown): void;
}

/** JAX-RS `WriterInterceptor`: wraps entity writing; cannot abort the request. */
export interface WriterInterceptor {
  aroundWriteTo(ctx: WriterInterceptorContext): void | Promise<void>;
}

/** What a reader gets besides the stream. */
export interface ReadContext {
  readonly request: ContainerRequestContext;
  readonly headers: IncomingHttpHeaders;
  /** Maximum number of bytes to consume; exceed it → `PayloadTooLargeError` (413). */
  readonly limit: number;
  /** Declared `Content-Length`, if any (the stream may be decoded and differ). */
  readonly contentLength: number | undefined;
}

/** JAX-RS `MessageBodyReader`: turns a request byte stream into an entity. */
export interface MessageBodyReader<T = unknown> {
  /**
   * Media types it reads. Among the readers whose `isReadable` accepts a body, the one declaring
   * the closest type wins (`x/y`, then `x/*`, then `*\/*` or nothing declared).
   */
  readonly consumes?: readonly string[];
  isReadable(type: TypeToken, mediaType: MediaType | undefined): boolean;
  readFrom(type: TypeToken, mediaType: MediaType | undefined, input: Readable, ctx: ReadContext): T | Promise<T>;
}

/** What a writer gets besides the entity. */
export interface WriteContext {
  readonly request: ContainerRequestContext;
  readonly response: ContainerResponseContext;
}

/** JAX-RS `MessageBodyWriter`: turns an entity into a body. Return bytes/text for one write, a stream for large bodies. */
export interface MessageBodyWriter<T = unknown> {
  /**
   * Media types it writes, in preference order. Used to negotiate the response type when the
   * resource method declares no `@Produces` (default: `application/octet-stream`), and to choose
   * among writers: the one declaring the closest type wins (`x/y`, then `x/*`, then `*\/*`).
   */
  readonly produces?: readonly string[];
  isWriteable(type: TypeToken, mediaType: MediaType): boolean;
  writeTo(entity: T, type: TypeToken, mediaType: MediaType, ctx: WriteContext): Body | Promise<Body>;
}

/** Converts one string parameter value. Throw to signal a bad value (→ 400). */
export interface ParamConverter<T = unknown> {
  fromString(value: string): T;
  /**
   * The text form of a value (JAX-RS `ParamConverter.toString`), used by `@jaxrs-node/pipeline/client`
   * to send a parameter of this type; without it the client sends numbers, booleans, dates (ISO 8601)
   * and objects with their own `toString()` as they are, and refuses other objects.
   */
  toString?(value: T): string;
}

/** What a converter provider learns about the parameter. */
export interface ParamInfo {
  readonly source: 'path' | 'query' | 'header' | 'cookie' | 'form';
  readonly name: string;
  readonly type: TypeToken;
  readonly resourceInfo: ResourceInfo;
}

/** JAX-RS `ParamConverterProvider`: asked once per parameter at start-up. */
export interface ParamConverterProvider {
  getConverter(type: TypeToken, info: ParamInfo): ParamConverter | undefined;
}

/** JAX-RS `ExceptionMapper`. Declare the error type with `@MapsError(Type)` or the `errorType` registration option. */
export interface ExceptionMapper<E = unknown> {
  toResponse(error: E, request: ContainerRequestContext): Response | null | undefined | Promise<Response | null | undefined>;
}

/** JAX-RS `ContextResolver`: supplies a configuration object (e.g. JSON options) per entity type. */
export interface ContextResolver<T = unknown> {
  getContext(type: TypeToken): T | undefined;
}

/** Registration surface offered to features (JAX-RS `FeatureContext`). */
export interface FeatureContext {
  /** Register a provider class or instance; `priority` overrides its `@Priority`. */
  register(provider: Constructor | object, options?: { priority?: number }): this;
  /**
   * The application's settings a feature may need to agree with (Jakarta REST `FeatureContext`'s
   * `getConfiguration()`): set by the application's build, absent in a context you make yourself.
   */
  readonly configuration?: FeatureConfiguration;
}

/** What {@link FeatureContext.configuration} tells a feature about its application. */
export interface FeatureConfiguration {
  /** How error responses are written (`ApplicationOptions.errorFormat`, default `'json'`). */
  readonly errorFormat: 'json' | 'problem' | 'negotiate';
}

/**
 * How one request ended, as a {@link RequestListener} is told it (the facts an access log line,
 * a metric or a span needs). Sizes follow OpenTelemetry's HTTP conventions: body bytes, headers
 * excluded, undefined when not known.
 */
export interface RequestOutcome {
  /** The status sent (for a connection cut mid-body, the status its head carried). */
  readonly status: number;
  /** Milliseconds (monotonic, `performance.now()`) from the moment the pipeline took the request. */
  readonly durationMs: number;
  /** The error that led to the response, mapped or not; undefined for a normal answer. */
  readonly error: unknown;
  /** The request body's size as its `Content-Length` declared it; undefined without one. */
  readonly requestBodySize: number | undefined;
  /** Response body bytes written (0 for HEAD, 204 and 304); undefined when the connection broke mid-body. */
  readonly responseBodySize: number | undefined;
}

/**
 * Told of every request the application handles (Jersey's `ApplicationEventListener.onRequest`):
 * a provider kind, recognised by its `onRequest` method and registered like any provider (or by a
 * `Feature`). `onRequest` runs when the pipeline takes the request, before pre-matching filters;
 * the function it returns, if any, runs once when the pipeline is done with the request, after the
 * last byte was handed to the socket (or the connection was cut). Listeners run in priority
 * order; a listener that throws is reported through the application's logger and skipped.
 * An application without listeners pays nothing for this contract.
 * @example
 * class Timing implements RequestListener {
 *   onRequest(ctx: ContainerRequestContext) {
 *     return (o: RequestOutcome) => console.log(ctx.method, ctx.resourceInfo?.path, o.status, o.durationMs);
 *   }
 * }
 */
export interface RequestListener {
  onRequest(ctx: ContainerRequestContext): ((outcome: RequestOutcome) => void) | undefined | void;
}

/**
 * Runs the rest of a request's processing inside a scope: an `AsyncLocalStorage` store, an
 * OpenTelemetry context. A provider kind, recognised by its `runInScope` method: it must call
 * `next` exactly once, synchronously. Scopes nest in priority order (the first is outermost) and
 * are entered after every {@link RequestListener.onRequest} ran.
 * @example
 * class Scoped implements RequestScope {
 *   runInScope(ctx: ContainerRequestContext, next: () => void) { storage.run({ ctx }, next); }
 * }
 */
export interface RequestScope {
  runInScope(ctx: ContainerRequestContext, next: () => void): void;
}

/** JAX-RS `DynamicFeature`: called once per resource method at start-up. */
export interface DynamicFeature {
  configure(resourceInfo: ResourceInfo, context: FeatureContext): void;
}

/** A bundle of registrations (JAX-RS `Feature`). Named `setup` so one class is never both kinds. */
export interface Feature {
  setup(context: FeatureContext): void;
}
