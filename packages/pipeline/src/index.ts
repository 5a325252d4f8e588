/**
 * @jaxrs-node/pipeline: a JAX-RS-style request pipeline on node:http.
 * The public surface, by name. Testing helpers live in `@jaxrs-node/pipeline/testing`.
 */
import 'reflect-metadata';

export { Application, defaultErrorBody } from './core/server/application.js';
export type { ApplicationOptions, CloseResult } from './core/server/application.js';
export type { RegistrationOptions } from './core/build/build.js';
export { DEFAULT_LIMITS } from './core/internal/defaults.js';
export type { PipelineLimits } from './core/internal/defaults.js';
export { CHANNEL_NAMES } from './core/internal/diagnostics.js';
export * from './core/http/errors.js';
export type { InjectRequest, InjectResponse } from './core/server/inject.js';
export { injectRequest } from './core/server/inject.js';
export {
  APPLICATION_FORM_URLENCODED,
  APPLICATION_JSON,
  APPLICATION_OCTET_STREAM,
  APPLICATION_XML,
  MULTIPART_FORM_DATA,
  TEXT_PLAIN,
  WILDCARD,
  mediaTypeString,
  parseAccept,
  parseMediaType,
} from './core/http/media-type.js';
export { isCompatible, negotiate } from './core/http/negotiation.js';
export type { MediaType } from './core/http/media-type.js';
export { HttpHeaders } from './core/context/http-headers.js';
export { DEFAULT_PRIORITY, Priorities } from './core/util/priorities.js';
export type {
  Body,
  Constructor,
  ContainerRequestFilter,
  ContainerResponseContext,
  ContainerResponseFilter,
  ContextResolver,
  DynamicFeature,
  ExceptionMapper,
  Feature,
  FeatureConfiguration,
  FeatureContext,
  MessageBodyReader,
  MessageBodyWriter,
  ParamConverter,
  ParamConverterProvider,
  ParamInfo,
  ReadContext,
  ReaderInterceptor,
  ReaderInterceptorContext,
  TypeToken,
  WriteContext,
  WriterInterceptor,
  WriterInterceptorContext,
} from './core/context/contracts.js';
export { ContainerRequestContext } from './core/context/request-context.js';
export { ResourceInfo } from './core/context/resource-info.js';
export type { ServerOnly } from './core/context/server-only.js';
export { Response, ResponseBuilder } from './core/http/response.js';
export type { OutgoingHeaders } from './core/http/response.js';
export type { EntityTagLike } from './core/http/response.js';
export { CacheControl } from './core/http/cache-control.js';
export type { CacheControlOptions } from './core/http/cache-control.js';
export { NewCookie } from './core/http/new-cookie.js';
export type { NewCookieOptions, SameSite } from './core/http/new-cookie.js';
export type { ErrorBodyFactory, ErrorLogger } from './core/internal/runtime.js';
export { APPLICATION_PROBLEM_JSON, prefersProblemDetails, problemDetailsErrorBody } from './core/internal/error-format.js';
export type { ErrorFormat } from './core/internal/error-format.js';
export { ANONYMOUS, SecurityContext } from './core/context/security-context.js';
export type { Principal } from './core/context/security-context.js';
export { UriInfo } from './core/context/uri-info.js';
export { UriBuilder } from './core/model/resource-paths.js';
export { ModelValidationError } from './core/model/model-problems.js';
export { EntityTag, evaluatePreconditions } from './core/http/entity-tag.js';
export { Link, LinkBuilder } from './core/http/link.js';
export type { LinkParams } from './core/http/link.js';
export type { PreconditionRequest, PreconditionState } from './core/http/entity-tag.js';
export type { ModelProblem, ModelProblemCode } from './core/model/model-problems.js';

export { NameBinding } from './decorators/binding.js';
export type { NameBindingDecorator } from './decorators/binding.js';
export { Context, CookieParam, DefaultValue, Entity, FormParam, HeaderParam, PathParam, QueryParam } from './decorators/params.js';
export { BeanParam } from './decorators/params.js';
export type { ParamDecorator, ParamOptions } from './decorators/params.js';
export { MapsError, PreMatching, Priority, Provider, ResolvesContext } from './decorators/provider.js';
export {
  Consumes,
  DELETE,
  GET,
  HEAD,
  HttpMethod,
  OPTIONS,
  PATCH,
  POST,
  PUT,
  Path,
  Produces,
  RequestScoped,
  Singleton,
  Deadline,
} from './decorators/resource.js';

export * from './providers/index.js';
export * from './features/validation/index.js';
export * from './features/security/index.js';
export * from './features/gzip/index.js';
export * from './features/cors/index.js';
export * from './features/etag/index.js';
export * from './features/openapi/index.js';
export * from './features/sse/index.js';
export { reusePortSupported, serveOnCores } from './core/server/workers.js';
export type {
  ApplicationFactory,
  RestartPolicy,
  ServeOnCoresOptions,
  ServeOnCoresResult,
  ServeReady,
  WorkerMode,
} from './core/server/workers.js';
export type { ListenSocketOptions } from './core/server/application.js';
