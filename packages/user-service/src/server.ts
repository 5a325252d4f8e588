import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import {
  Application,
  ContentEncodingFeature,
  CorsFilter,
  FailedAuthLimiter,
  jsonLogger,
  LoggingFeature,
  MemoryRateLimitStore,
  RateLimitFeature,
  RateLimitKeys,
  RequestIdFeature,
  requestId,
  SecurityHeadersFeature,
  serveMetrics,
  type ContainerRequestContext,
  type ListenOptions,
  type Logger,
  type MetricsServer,
} from '@jaxrs-node/pipeline';
import { MultipartFeature } from '@jaxrs-node/pipeline/multipart';
import { EmbeddedCatalog, type ProductLookup, type ProductView } from './domain/catalog/embedded.js';
import type { AppConfig } from './domain/config/app-config.js';
import { ApiKeyVerifier, BasicAuthenticator } from './domain/auth/credentials.js';
import { FileStore } from './domain/files/service.js';
import { IdempotencyService } from './domain/common/idempotency.js';
import { RememberedLogins } from './domain/auth/remembered-logins.js';
import { JobService } from './domain/jobs/service.js';
import { OrderService } from './domain/orders/service.js';
import { ClientConcurrency, LARGE_DATA_TOTAL } from './domain/limits/client-concurrency.js';
import { SharedRateLimitStore } from './domain/limits/shared-rate-limit-store.js';
import { RateLimited } from './http/bindings.js';
import { seedDemoData } from './domain/seed/demo-data.js';
import { TokenService } from './domain/auth/bearer-tokens.js';
import { ExternalTokens } from './domain/auth/external-tokens.js';
import { TRACE_CONTEXT_HEADERS, UpstreamCatalog } from './domain/catalog/upstream.js';
import { UserService } from './domain/users/service.js';
import { serviceErrorBody, serviceProblemBody } from './http/error-body.js';
import { ApiVersionFilter } from './http/filters/api-version-filter.js';
import { ApiKeyFilter, BasicAuthFilter, BearerAuthFilter } from './http/filters/auth-filters.js';
import { DurabilityFilter } from './http/filters/durability-filter.js';
import { ServiceHeadersFilter } from './http/filters/service-headers-filter.js';
import { CustomFieldInterceptor } from './http/providers/custom-field-interceptor.js';
import { StoreErrorMapper } from './http/providers/store-error-mapper.js';
import { XmlUserWriter } from './http/providers/xml-user-writer.js';
import { JobEventLogs } from './http/job-events.js';
import { openApiFeature } from './http/openapi.js';
import { loadTracing } from './http/tracing.js';
import { healthFeature } from './http/health.js';
import { AsyncUsersResource } from './http/resources/async-resource.js';
import { AuthResource } from './http/resources/auth-resource.js';
import { FilesResource } from './http/resources/files-resource.js';
import { UploadLimitFilter } from './http/filters/upload-limit-filter.js';
import { CustomDataResource } from './http/resources/custom-data-resource.js';
import { HealthResource } from './http/resources/health-resource.js';
import { LargeDataResource } from './http/resources/large-data-resource.js';
import { SchemaResource } from './http/resources/schema-resource.js';
import { TestResource } from './http/resources/test-resource.js';
import { ProductsResource } from './http/resources/products-resource.js';
import { AdminUsersResource } from './http/resources/admin-users-resource.js';
import { ExternalUsersResource } from './http/resources/external-users-resource.js';
import { ProtectedUsersResource } from './http/resources/protected-users-resource.js';
import { UsersResource } from './http/resources/users-resource.js';
import { XmlUsersResource } from './http/resources/xml-resource.js';
import { TOKENS } from './http/di-tokens.js';
import { createRecordStore, type RecordStore } from './storage/index.js';
import type { StoreObserver } from './storage/store-observer.js';
import { serviceMetrics } from './metrics-wiring.js';

/** Every resource class of the service (also used by the DI test). */
export const RESOURCES = [
  UsersResource,
  AuthResource,
  AdminUsersResource,
  ProtectedUsersResource,
  ExternalUsersResource,
  HealthResource,
  TestResource,
  LargeDataResource,
  CustomDataResource,
  SchemaResource,
  ProductsResource,
  XmlUsersResource,
  FilesResource,
  AsyncUsersResource,
] as const;

/** Every provider class the service registers (instances are added beside them). */
export const PROVIDER_CLASSES = [
  ApiVersionFilter,
  BasicAuthFilter,
  BearerAuthFilter,
  ApiKeyFilter,
  CustomFieldInterceptor,
  DurabilityFilter,
  ServiceHeadersFilter,
] as const;

/** What `createService` needs besides the configuration. */
export interface ServiceOptions {
  /** A store to use instead of the configured one (tests). */
  store?: RecordStore;
  /** Where the access log's JSON lines go (one per request, without the newline); `null` disables the access log. */
  log?: ((line: string) => void) | null;
  /** Where unexpected errors go (also journal snapshot failures). */
  logError?: (error: unknown, request: ContainerRequestContext | undefined) => void;
  /** Where operational notices go (e.g. journal snapshots recovered). Default: a JSON line on stdout. */
  logInfo?: (message: string) => void;
  /**
   * Measurement only (`packages/bench`, the filters' cost per request): providers left out of the
   * application. The service without any of them breaks its API (`docs/api.md`), so nothing but a
   * benchmark sets this; the access log, the rate limit and metrics are switched off by their
   * configuration instead (`LOG_REQUESTS`, `RATE_LIMIT_PER_MINUTE=0`, no `METRICS_PORT`).
   */
  without?: readonly OptionalProvider[];
}

/** The providers a benchmark may leave out ({@link ServiceOptions.without}), by the behaviour each adds to every request. */
export const OPTIONAL_PROVIDERS = [
  'request-id',
  'api-version',
  'durability',
  'service-headers',
  'security-headers',
  'cors',
  'content-encoding',
] as const;

/** One of {@link OPTIONAL_PROVIDERS}. */
export type OptionalProvider = (typeof OPTIONAL_PROVIDERS)[number];

/** The optional ones among {@link PROVIDER_CLASSES}. */
const OPTIONAL_CLASSES = new Map<(typeof PROVIDER_CLASSES)[number], OptionalProvider>([
  [ApiVersionFilter, 'api-version'],
  [DurabilityFilter, 'durability'],
  [ServiceHeadersFilter, 'service-headers'],
]);

/** A running (or ready-to-run) service. */
export interface Service {
  readonly app: Application;
  readonly store: RecordStore;
  readonly container: DependencyContainer;
  readonly jobs: JobService;
  /** Resolves once the users' indexes are built (readiness waits for it; see UserService.buildIndexes). */
  readonly indexed: Promise<void>;
  /** Listens on PORT, and first on METRICS_PORT when it is set. */
  listen(): Promise<AddressInfo>;
  /** The port of the metrics listener once `listen()` resolved; undefined without METRICS_PORT. */
  metricsPort(): number | undefined;
  /** Graceful: drain HTTP, finish jobs, flush storage. Says whether everything went cleanly. */
  close(): Promise<ServiceStopped>;
}

/**
 * How a {@link Service.close} went. `exitCode` is 0 only when every request drained before the
 * deadline, and the store was writable and flushed; else 1 and `problems` says why.
 */
export interface ServiceStopped {
  readonly exitCode: 0 | 1;
  readonly problems: readonly string[];
}

/**
 * Composes the service from its configuration: storage, domain services, DI container, the
 * pipeline application with its providers. Nothing listens until `listen()`.
 */
export async function createService(config: AppConfig, options: ServiceOptions = {}): Promise<Service> {
  const logError = options.logError ?? defaultErrorLog;
  const logInfo = options.logInfo ?? defaultInfoLog;
  // Loaded only with STORAGE=etcd: a journal deployment never loads the etcd client.
  const etcd = config.storage === 'etcd' ? await import('./etcd-wiring.js') : undefined;
  // METRICS_PORT: HTTP metrics by route, and the store's latencies, on a listener of their own.
  const metrics = config.metricsPort === undefined ? undefined : serviceMetrics(config.storage);
  const store = options.store ?? configuredStore(config, etcd, logError, logInfo, metrics?.store);
  await store.open();
  const users = new UserService(store);
  // Loaded only with TRACING=true: without it the service never needs @opentelemetry/api.
  const tracing = config.tracing ? await loadTracing() : undefined;
  const upstream =
    config.productCatalogUrl === undefined
      ? undefined
      : new UpstreamCatalog(config.productCatalogUrl, {
          // The request id and the trace context go on to the catalogue: with tracing on,
          // ClientTracing replaces the copied traceparent with its own span's.
          propagate: [...TRACE_CONTEXT_HEADERS, forwardRequestId],
          providers: tracing === undefined ? [] : [tracing.client],
        });
  const findProduct: ProductLookup = upstream === undefined ? new EmbeddedCatalog().lookup : upstreamLookup(upstream);
  const orders = new OrderService(store, { findProduct, findCustomer: (id) => users.getRecord(id) });
  const files = new FileStore({
    dir: config.dataDir,
    filesDir: config.filesDir,
    store,
    maxFileBytes: config.uploadMaxBytes,
    maxFiles: config.uploadMaxFiles,
  });
  const jobs = new JobService({
    store,
    createUser: (body, options) => users.create(body, options),
    onError: (e) => logError(e, undefined),
  });
  await files.init();
  await jobs.recover();
  if (config.seed === 'demo') {
    // The demo orders are priced from the embedded catalog: a fresh deployment must start even
    // when an upstream catalogue is down.
    await seedDemoData(store, undefined, {
      findProduct: new EmbeddedCatalog().lookup,
      extraSeeders: [
        async () => {
          await files.seedDemoFile();
        },
      ],
    });
  }

  // Every index of the users, in the background (at once for a small store): no request builds
  // one, and readiness stays DOWN (`indexes`) until they are all there.
  const indexed = users.buildIndexes();
  indexed.catch((e: unknown) => logError(e, undefined));

  const container = rootContainer.createChildContainer();
  container.register(TOKENS.config, { useValue: config });
  container.register(TOKENS.store, { useValue: store });
  container.register(TOKENS.users, { useValue: users });
  container.register(TOKENS.orders, { useValue: orders });
  const productView: ProductView = upstream === undefined ? findProduct : (id, from) => upstream.get(id, from);
  container.register(TOKENS.products, { useValue: productView });
  container.register(TOKENS.files, { useValue: files });
  container.register(TOKENS.jobs, { useValue: jobs });
  container.register(TOKENS.jobEvents, { useValue: new JobEventLogs(jobs) });
  const idempotency = new IdempotencyService(store);
  container.register(TOKENS.idempotency, { useValue: idempotency });
  // Expired answers leave the local stores hourly (etcd's leases drop them by themselves).
  const sweeper = setInterval(() => void idempotency.sweep().catch((e: unknown) => logError(e, undefined)), 3_600_000);
  sweeper.unref();
  container.register(TOKENS.tokens, { useValue: new TokenService({ secret: config.tokenSecret, ttlSeconds: config.tokenTtlSeconds }) });
  // JWTs of an external issuer on /api/protected/*, beside our own tokens (JWT_ISSUER, JWT_AUDIENCE, JWKS_URL).
  const external = config.externalJwt === undefined ? null : new ExternalTokens(config.externalJwt);
  container.register(TOKENS.externalTokens, { useFactory: () => external });
  // Several instances: an admin login verified on one is remembered on all (the shared secret keys it).
  const remembered = store.shared ? new RememberedLogins(store, config.tokenSecret, (error) => logError(error, undefined)) : undefined;
  container.register(TOKENS.basic, {
    useValue: await BasicAuthenticator.create(config.adminUsername, config.adminPassword, { remembered }),
  });
  container.register(TOKENS.apiKeys, { useValue: new ApiKeyVerifier(config.apiKeys) });
  // With several instances (etcd) the limits are counted across all of them.
  const shared = etcd?.sharedLimits(config, (error) => logError(error, undefined), metrics?.etcdRoundTrip);
  // Requests per client (principal, else socket address) on every @RateLimited resource, with the
  // X-Rate-Limit-* names the API promises beside the draft's RateLimit-Policy / RateLimit.
  const rateLimits =
    config.rateLimitPerMinute === 0
      ? undefined
      : new RateLimitFeature({
          key: RateLimitKeys.principal,
          default: { limit: config.rateLimitPerMinute, windowMs: 60_000 },
          binding: RateLimited,
          store: shared?.rateLimiter != null ? new SharedRateLimitStore(shared.rateLimiter) : new MemoryRateLimitStore({ maxKeys: 10_000 }),
          headers: { legacy: 'X-Rate-Limit' },
        });
  const authFailures =
    shared !== undefined
      ? shared.authFailures
      : config.authFailuresPerMinute === 0
        ? null
        : new FailedAuthLimiter({ limit: config.authFailuresPerMinute });
  // A factory, not `useValue`: tsyringe tests `useValue != undefined`, so `useValue: null` (limits
  // off) is not a value provider and resolving it fails at start-up.
  container.register(TOKENS.authFailures, { useFactory: () => authFailures });
  container.register(TOKENS.largeData, {
    useValue: new ClientConcurrency({ perClient: config.largeDataPerClient, total: LARGE_DATA_TOTAL }),
  });

  const log = options.log === undefined ? (config.logRequests ? defaultAccessLog : null) : options.log;
  const without = new Set<OptionalProvider>(options.without);
  // The provider unless a benchmark left it out (none is left out when the service runs).
  const unless = <P>(name: OptionalProvider, provider: P): P[] => (without.has(name) ? [] : [provider]);
  const app = new Application({
    // A local store has one writer: a second process must not serve it.
    singleProcess: !store.shared,
    container,
    resources: [...RESOURCES],
    providers: [
      ...(tracing === undefined ? [] : [tracing.feature]),
      // Before any filter: the id is on the request, its log lines and every response (404, 503 while closing too).
      // Random version 4 UUIDs, not the feature's faster counter-based default: an id a client
      // receives must not tell it how many requests others made, nor predict the next one.
      ...unless('request-id', new RequestIdFeature({ header: 'x-request-id', generate: () => randomUUID() })),
      // One access line per request (LOG_REQUESTS), superset of the documented fields: time, requestId, method, path, status, durationMs.
      ...(log === null ? [] : [new LoggingFeature({ logger: accessLogger(log), requestIdKey: 'requestId' })]),
      ...PROVIDER_CLASSES.filter((p) => {
        const name = OPTIONAL_CLASSES.get(p);
        return name === undefined || !without.has(name);
      }),
      ...(rateLimits === undefined ? [] : [rateLimits]),
      // nosniff, no-referrer, frame-ancestors 'none', DENY, same-origin, HSTS over TLS; /docs keeps its own policy.
      ...unless('security-headers', new SecurityHeadersFeature()),
      new XmlUserWriter(),
      new StoreErrorMapper(logError),
      ...unless(
        'cors',
        new CorsFilter({
          allowOrigin: config.cors.origin,
          allowMethods: splitList(config.cors.methods),
          allowHeaders: splitList(config.cors.headers),
        }),
      ),
      // zstd (where Node has it), br and gzip both ways, the pipeline's measured defaults.
      ...unless('content-encoding', new ContentEncodingFeature({ threshold: 1024 })),
      openApiFeature(),
      healthFeature(store, etcd?.etcdReachable(store), () => users.indexesReady),
      new MultipartFeature({ limits: files.multipartLimits }),
      new UploadLimitFilter(files.limits),
      ...(metrics === undefined ? [] : [metrics.http]),
    ],
    errorBody: serviceErrorBody,
    // RFC 9457 problem details for a client whose Accept prefers them; the specified body otherwise.
    errorFormat: 'negotiate',
    problemBody: serviceProblemBody,
    logger: logError,
    limits: { bodyLimit: config.bodyLimitBytes, shutdownDeadline: config.shutdownDeadlineMs, shutdownDelay: config.shutdownDelayMs },
  });
  app.build();

  let metricsServer: MetricsServer | undefined;

  return {
    app,
    store,
    container,
    jobs,
    indexed,
    async listen() {
      // The metrics listener first: a port it cannot have fails the start before the API is served.
      if (metrics !== undefined && config.metricsPort !== undefined) {
        metricsServer = await serveMetrics(metrics.registry, { port: config.metricsPort, host: config.host });
      }
      return app.listen(config.port, config.host, listenOptions(config));
    },
    metricsPort: () => metricsServer?.port,
    async close() {
      const problems: string[] = [];
      const http = await app.close(config.shutdownDeadlineMs);
      await metricsServer?.close();
      if (!http.drained) problems.push(`the shutdown deadline (${config.shutdownDeadlineMs} ms) cut ${http.cutConnections} connection(s)`);
      clearInterval(sweeper);
      await jobs.whenIdle();
      jobs.close();
      await shared?.close();
      await upstream?.close();
      const write = store.writeStatus();
      if (!write.writable) problems.push(`the store could not write: ${write.reason}`);
      try {
        await store.close();
      } catch (e) {
        problems.push(`the final store flush failed: ${(e as Error)?.message ?? String(e)}`);
      }
      return { exitCode: problems.length === 0 ? 0 : 1, problems };
    },
  };
}

/** The request's id (given or generated by RequestIdFeature) as `X-Request-Id` on upstream calls. */
function forwardRequestId(request: ContainerRequestContext): Record<string, string | undefined> {
  return { 'x-request-id': requestId(request) };
}

/** The store the configuration names, not yet opened. */
function configuredStore(
  config: AppConfig,
  etcd: typeof import('./etcd-wiring.js') | undefined,
  logError: (error: unknown, request: undefined) => void,
  logInfo: (message: string) => void,
  observer: StoreObserver | undefined,
): RecordStore {
  const reporters = {
    // Once per failure streak, naming the errno; writes are refused (507/503) until it heals.
    onWriteError: (error: Error) => logError(error, undefined),
    onWriteRecovered: (message: string) => logInfo(message),
  };
  // The watch reconnects by itself; a log line says the store lagged meanwhile.
  if (config.storage === 'etcd') {
    if (etcd === undefined) throw new TypeError('STORAGE=etcd: the etcd wiring is not loaded');
    return etcd.etcdStore(config, reporters, (error) => logError(error, undefined), observer);
  }
  return createRecordStore(config.storage, join(config.dataDir, 'store'), {
    // A snapshot every 10 000 mutations or a quarter of the state, whichever is more: at 10^6
    // users a fixed interval rewrote the whole store (about 240 MB) every 3 000 creates.
    snapshotGrowth: 0.25,
    // Not fatal (the journal keeps every write) but the journal grows until it is fixed.
    onSnapshotError: (error) => logError(error, undefined),
    onSnapshotRecovered: (recovery) => logInfo(recovery.message),
    ...reporters,
    ...(observer === undefined ? {} : { observer }),
  });
}

/**
 * Upstream products carry id, name and an optional price; orders need a price, so a product
 * without one is answered as a bad upstream answer (502, `priceToCents`) when an order needs
 * it. Only orders see this adapter: `GET /api/products/{id}` shows the upstream product as sent.
 */
function upstreamLookup(upstream: UpstreamCatalog): ProductLookup {
  return async (id) => {
    const p = await upstream.get(id);
    if (p === undefined) return undefined;
    return { id: p.id, name: p.name, price: p.price ?? Number.NaN, currency: 'USD', description: '' };
  };
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function defaultAccessLog(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** The request logger: JSON lines (`time` as ISO 8601, `requestId`, `method`, `route`) into the access log's writer. */
function accessLogger(log: (line: string) => void): Logger {
  // The default destination takes the logger's line as it is, newline included: no copy without it and back.
  const destination = log === defaultAccessLog ? process.stdout : { write: (chunk: string) => log(chunk.slice(0, -1)) };
  return jsonLogger({ level: 'info', time: 'iso', destination });
}

function defaultInfoLog(message: string): void {
  process.stdout.write(`${JSON.stringify({ level: 'info', time: new Date().toISOString(), message })}\n`);
}

/** One JSON line on stderr; a request's error carries its id, method and route (template, never the raw path). */
function defaultErrorLog(error: unknown, request: ContainerRequestContext | undefined): void {
  const e = error as Error;
  const info = request?.resourceInfo;
  const line = {
    level: 'error',
    time: new Date().toISOString(),
    requestId: request === undefined ? undefined : requestId(request),
    method: request?.method || undefined,
    route: info === undefined || request === undefined ? undefined : request.basePath + info.path,
    error: e?.message,
    stack: e?.stack,
  };
  process.stderr.write(`${JSON.stringify(line)}\n`);
}

/** TLS_CERT_FILE / TLS_KEY_FILE and HTTP2 as `listen()` options (none: plain HTTP/1.1). */
export function listenOptions(config: AppConfig): ListenOptions {
  return {
    ...(config.tls === undefined ? {} : { tls: { cert: config.tls.cert, key: config.tls.key } }),
    ...(config.http2 ? { http2: true } : {}),
  };
}
