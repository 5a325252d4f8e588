/**
 * @jaxrs-node/pipeline: a JAX-RS-style request pipeline on node:http.
 * The public surface, by name (no `export *`): a name added here is a decision, recorded by
 * test/unit/api-surface.test.ts. Testing helpers live in `@jaxrs-node/pipeline/testing`,
 * multipart in `@jaxrs-node/pipeline/multipart`, the typed client in `@jaxrs-node/pipeline/client`.
 */
import 'reflect-metadata';

export { Application, defaultErrorBody } from './core/server/application.js';
export type { ApplicationOptions, CloseOptions, CloseResult } from './core/server/application.js';
export type { RegistrationOptions } from './core/build/build.js';
export { DEFAULT_LIMITS } from './core/internal/defaults.js';
export type { PipelineLimits } from './core/internal/defaults.js';
export { CHANNEL_NAMES } from './core/internal/diagnostics.js';
export {
  BadGatewayError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  GatewayTimeoutError,
  InternalServerError,
  NotAcceptableError,
  NotAllowedError,
  NotAuthorizedError,
  NotFoundError,
  NotSupportedError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnprocessableEntityError,
  WebApplicationError,
} from './core/http/errors.js';
export type { WebApplicationErrorOptions } from './core/http/errors.js';
export type { InjectRequest, InjectResponse } from './core/server/inject.js';
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
  RequestListener,
  RequestOutcome,
  RequestScope,
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
export { BytesBody, FileBody, RangeableEntity } from './core/ranges/rangeable-entity.js';
export type { ByteReader, BytesBodyOptions, FileBodyOptions } from './core/ranges/rangeable-entity.js';
export { parseContentRange } from './core/ranges/byte-ranges.js';
export type { ContentRange } from './core/ranges/byte-ranges.js';
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
  ServedWhileClosing,
} from './decorators/resource.js';

// Entity providers (readers and writers) and the helpers custom ones use.
export {
  BodyErrorCode,
  BytesReader,
  BytesWriter,
  collectBody,
  DEFAULT_MAX_FORM_FIELDS,
  DEFAULT_MAX_JSON_DEPTH,
  FormReader,
  Int,
  IterableWriter,
  JsonOptions,
  JsonReader,
  JsonWriter,
  readBody,
  StreamReader,
  StreamWriter,
  TextReader,
  TextWriter,
} from './providers/index.js';
export type { BodyProvider, FormRecord, JsonReplacer } from './providers/index.js';

// Features: one folder each (src/features/<name>/index.ts).
export {
  compileValidator,
  defineConstraint,
  Email,
  IsInt,
  MAX_VALIDATION_DEPTH,
  MAX_VIOLATIONS,
  Max,
  Min,
  NotBlank,
  NotNull,
  Pattern,
  Size,
  Valid,
  ValidationError,
} from './features/validation/index.js';
export type {
  BoundOptions,
  ConstraintDecorator,
  ConstraintFactory,
  ConstraintOptions,
  ConstraintSpec,
  SizeOptions,
  Validator,
  Violation,
} from './features/validation/index.js';
export { DenyAll, DenyAllFilter, PermitAll, RolesAllowed, RolesAllowedFeature, RolesAllowedFilter } from './features/security/index.js';
export type { Challenge, RolesAllowedFeatureOptions } from './features/security/index.js';
export {
  JWT_ALGORITHMS,
  JwtAuthFilter,
  JwtConfigurationError,
  JwtInvalidTokenError,
  JwtKeySetUnavailableError,
  JwtVerificationError,
  JwtVerifier,
} from './features/jwt/index.js';
export type {
  JwksOptions,
  JwtAlgorithm,
  FailedAuthCounter,
  JwtAuthOptions,
  JwtClaims,
  JwtFailure,
  JwtHeader,
  JwtKeyInput,
  JwtPrincipal,
  JwtRolesClaim,
  JwtVerifierOptions,
} from './features/jwt/index.js';
export {
  AVAILABLE_CONTENT_CODINGS,
  ContentCodingErrorCode,
  ContentCodingTagFilter,
  ContentEncodingFeature,
  ContentEncodingReaderInterceptor,
  ContentEncodingWriterInterceptor,
  GzipErrorCode,
  GzipFeature,
  GzipReaderInterceptor,
  GzipTagFilter,
  GzipWriterInterceptor,
  ZSTD_AVAILABLE,
} from './features/content-coding/index.js';
export type {
  ContentCoding,
  ContentCodingLevels,
  ContentCodingTagFilterOptions,
  ContentEncodingFeatureOptions,
  ContentEncodingReaderOptions,
  ContentEncodingWriterOptions,
  GzipFeatureOptions,
  GzipReaderOptions,
  GzipWriterOptions,
} from './features/content-coding/index.js';
export { CorsFilter } from './features/cors/index.js';
export type { CorsOptions } from './features/cors/index.js';
export { ETagFeature } from './features/etag/index.js';
export { HealthFeature } from './features/health/index.js';
export type {
  HealthCheck,
  HealthCheckKind,
  HealthCheckOutcome,
  HealthCheckReport,
  HealthCheckResult,
  HealthData,
  HealthFeatureOptions,
  HealthProbe,
  HealthReport,
  HealthStatus,
} from './features/health/index.js';
export type { ETagFeatureOptions } from './features/etag/index.js';
export {
  DEFAULT_HISTOGRAM_BUCKETS,
  HTTP_BODY_SIZE_BUCKETS,
  HTTP_DURATION_BUCKETS,
  HttpMetricsFeature,
  MetricsRegistry,
  metricsResource,
  PROMETHEUS_CONTENT_TYPE,
  serveMetrics,
} from './features/metrics/index.js';
export type {
  HttpMetricsFeatureOptions,
  MetricAttributes,
  MetricAttributeValue,
  MetricOptions,
  MetricsCounter,
  MetricsGauge,
  MetricsHistogram,
  MetricsMeter,
  MetricsServer,
  MetricsSource,
  MetricsUpDownCounter,
  ServeMetricsOptions,
} from './features/metrics/index.js';
export {
  ApiHidden,
  ApiOperation,
  ApiResponse,
  ApiSchema,
  ApiTags,
  ArrayOf,
  buildOpenApi,
  OPENAPI_VERSION,
  OpenApiFeature,
} from './features/openapi/index.js';
export type {
  ApiHeader,
  ApiOperationOptions,
  ApiRequestBodyOptions,
  ApiResponseOptions,
  FilterDoc,
  JsonSchema,
  OpenApiDocument,
  OpenApiOptions,
  OperationDoc,
  SecurityRule,
} from './features/openapi/index.js';
export {
  DEFAULT_SSE_OPTIONS,
  EventLog,
  LastEventId,
  OutboundSseEvent,
  OutboundSseEventBuilder,
  Sse,
  SseBroadcaster,
  SseClosedError,
  SseEventSink,
  SseFeature,
} from './features/sse/index.js';
export type { EventLogOptions, ResolvedSseOptions, SseCloseReason, SseOptions } from './features/sse/index.js';
export {
  JsonLogger,
  jsonLogger,
  LOG_LEVELS,
  LoggingFeature,
  REDACTED,
  REDACTED_HEADERS,
  redactHeaders,
  RequestIdFeature,
  requestId,
  requestLogger,
} from './features/logging/index.js';
export type {
  JsonLoggerOptions,
  LogDestination,
  LogLevel,
  Logger,
  LoggingFeatureOptions,
  RequestIdOptions,
} from './features/logging/index.js';
export { currentRequest, RequestContextFeature } from './features/request-context/index.js';
export type { CurrentRequest } from './features/request-context/index.js';
export {
  FailedAuthLimiter,
  MemoryRateLimitStore,
  NoRateLimit,
  RateLimit,
  RateLimitConfigurationError,
  RateLimitFeature,
  RateLimitKeys,
  SlidingWindowLimiter,
} from './features/rate-limit/index.js';
export type {
  CountSharing,
  FailedAuthLimiterOptions,
  MemoryRateLimitStoreOptions,
  RateLimitConfigurationCode,
  RateLimitDecision,
  RateLimitFeatureOptions,
  RateLimitHeadersOptions,
  RateLimitKey,
  RateLimitPolicy,
  RateLimitStore,
  RateLimitStoreOptions,
  RateLimitWindow,
  SlidingWindowLimiterOptions,
} from './features/rate-limit/index.js';
export { SecurityHeaders, SecurityHeadersFeature } from './features/security-headers/index.js';
export type { SecurityHeadersOptions } from './features/security-headers/index.js';
export { reusePortSupported, serveOnCores } from './core/server/workers.js';
export type {
  ApplicationFactory,
  RestartPolicy,
  ServeOnCoresOptions,
  ServeOnCoresResult,
  ServeReady,
  WorkerMode,
} from './core/server/workers.js';
export type { ListenOptions, ListenSocketOptions } from './core/server/application.js';
export type { Http2ListenOptions, TlsListenOptions } from './core/server/http2.js';
