import type { DependencyContainer } from 'tsyringe';
import type { PipelineLimits } from './defaults.js';
import type { WebApplicationError } from '../http/errors.js';
import type { Exchange } from './exchange.js';
import type { BodyProviders, MapperEntry, PathEntry, ResponseChains } from './model.js';
import type { ContainerRequestFilter, Constructor, RequestListener, RequestScope } from '../context/contracts.js';
import type { ContainerRequestContext } from '../context/request-context.js';
import type { Router } from '../routing/router.js';
import type { ErrorFormat } from './error-format.js';

/**
 * Builds the error entity for a status; pluggable so services can use their own error body. Also
 * used for the requests Node's HTTP parser rejects (docs/application.md, "Which responses use your errorBody"): `request` is then a context
 * with an empty `method` and `path` (or the request's own when it had been dispatched).
 */
export type ErrorBodyFactory = (error: WebApplicationError, request: ContainerRequestContext) => unknown;

/** Where unexpected errors are reported (5xx causes are logged, never sent). */
export type ErrorLogger = (error: unknown, request: ContainerRequestContext | undefined) => void;

/** The built, immutable application the lifecycle runs on. */
export interface Runtime {
  readonly router: Router<PathEntry>;
  readonly preMatchFilters: readonly ContainerRequestFilter[];
  /** Global response chains (no match, pre-matching abort or error). */
  readonly global: ResponseChains;
  /** Sorted by priority; chosen by nearest error type at error time (cached). */
  readonly mappers: readonly MapperEntry[];
  readonly mapperCache: Map<Constructor, MapperEntry | null>;
  readonly body: BodyProviders;
  readonly container: DependencyContainer;
  readonly limits: PipelineLimits;
  readonly errorBody: ErrorBodyFactory;
  /** `ApplicationOptions.errorFormat` (error-format.ts); undefined: `'json'`. */
  readonly errorFormat?: ErrorFormat | undefined;
  /** `ApplicationOptions.problemBody`; undefined: `problemDetailsErrorBody`. */
  readonly problemBody?: ErrorBodyFactory | undefined;
  readonly logError: ErrorLogger;
  readonly tracing: boolean;
  /** `ApplicationOptions.basePath` (validated: `/api`), or undefined: resources match below it. */
  readonly basePath?: string | undefined;
  /**
   * `closing`: the close proper has begun (new requests get 503). `stopping`: `close()` was called
   * (set first, during the shutdown delay too): readiness reports it.
   */
  readonly state: { inflight: number; closing: boolean; stopping: boolean; onIdle: (() => void) | undefined };
  /** `RequestListener` providers in priority order; undefined when there are none (the usual case). */
  readonly listeners?: readonly RequestListener[] | undefined;
  /**
   * Full request paths (base path included) of the `@ServedWhileClosing()` GET methods, answered
   * normally while closing; undefined when there are none. Read only while closing.
   */
  readonly servedWhileClosing?: ReadonlySet<string> | undefined;
  /** `RequestScope` providers, outermost first; undefined when there are none. */
  readonly scopes?: readonly RequestScope[] | undefined;
  /** Called when an exchange is finished (diagnostics, accounting). */
  finish(ex: Exchange, status: number): void;
}
