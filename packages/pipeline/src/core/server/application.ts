// tsyringe needs the Reflect polyfill before it loads (it checks at import): in the bundle this chunk may be evaluated before the entry's own import.
import 'reflect-metadata';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, ListenOptions as NetListenOptions } from 'node:net';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import type { NameBindingDecorator } from '../context/resource-info.js';
import { validateBasePath } from '../context/base-path.js';
import { defaultProviders } from '../../providers/index.js';
import { JsonOptions } from '../../providers/json.js';
import { buildModel, type Registration, type RegistrationOptions } from '../build/build.js';
import { answerClientErrors } from './client-error.js';
import { Connections, cutQuiet, halfClosed, sparingFlushing, watchSendTimeout } from './connections.js';
import { resolveLimits, type PipelineLimits } from '../internal/defaults.js';
import { channels } from '../internal/diagnostics.js';
import type { Exchange } from '../internal/exchange.js';
import { injectRequest, type InjectRequest, type InjectResponse } from './inject.js';
import {
  checkTransportOptions,
  closeQuietHttp1,
  createTransport,
  cutAll,
  goAwayAll,
  type Http2ListenOptions,
  type TlsListenOptions,
  type Transport,
} from './http2.js';
import type { Http2SecureServer, Http2Server } from 'node:http2';
import { handle, rejectMissingHost, rejectWhileClosing } from '../stages/lifecycle.js';
import { runClosingHooks } from '../internal/extensions.js';
import { classMeta, discoveredProviders } from '../model/metadata.js';
import { ModelProblems, type ModelProblem } from '../model/model-problems.js';
import type { RouteMethod } from '../internal/model.js';
import type { Constructor, RequestOutcome, TypeToken } from '../context/contracts.js';
import type { ErrorBodyFactory, ErrorLogger, Runtime } from '../internal/runtime.js';
import { ERROR_FORMATS, type ErrorFormat } from '../internal/error-format.js';
import { REQUEST_LOGGER_PROPERTY, type Logger } from '../internal/observation.js';

/** How an application is configured; every field is optional. */
export interface ApplicationOptions {
  /** Resource classes (`@Path`). */
  resources?: Constructor[];
  /** Provider classes or instances (filters, interceptors, readers, writers, mappers, features...). */
  providers?: (Constructor | object)[];
  /** Also register every class decorated with `@Provider()` that has been imported. Default false. */
  discoverProviders?: boolean;
  /** The tsyringe container resources and providers are resolved from. Default: a child of the root container. */
  container?: DependencyContainer;
  /** Resource lifecycle when a class does not say: `singleton` (default, see docs/dependency-injection.md) or `request`. */
  resourceScope?: 'singleton' | 'request';
  /** Binding decorators applied to the application: providers bound only to these become global (jersey#1967). */
  bindings?: NameBindingDecorator<never>[];
  /** Limits and timeouts; see {@link DEFAULT_LIMITS}. */
  limits?: Partial<PipelineLimits>;
  /** The error entity for mapped HTTP errors (default: `{status, error, message, code, errors?}`). */
  errorBody?: ErrorBodyFactory;
  /**
   * The body of error responses: `'json'` (default) the `errorBody`; `'problem'` RFC 9457 problem
   * details as `application/problem+json` (`problemBody`); `'negotiate'` problem details when the
   * request's Accept prefers `application/problem+json` to `application/json`, else the
   * `errorBody` (with `Vary: Accept`). See docs/errors.md, "Problem details".
   * @example new Application({ resources: [Users], errorFormat: 'negotiate' })
   */
  errorFormat?: ErrorFormat;
  /** The problem details of `errorFormat` `'problem'`/`'negotiate'`. Default {@link problemDetailsErrorBody}. */
  problemBody?: ErrorBodyFactory;
  /**
   * Where unexpected (5xx) errors are reported. Default: through {@link log} when given (the
   * request's own logger when `LoggingFeature` gave it one, so the line carries its id and
   * route), else one JSON line on stderr.
   */
  logger?: ErrorLogger;
  /**
   * The application's logger (a `pino` instance, `jsonLogger()`, anything with the {@link Logger}
   * methods): the library's start-up warnings and unexpected errors go through it unless
   * `onWarning` or `logger` say otherwise. Default: JSON lines on stderr.
   * @example new Application({ resources: [Users], log: jsonLogger({ level: 'info' }) })
   */
  log?: Logger;
  /** Record which components ran and send them in `X-Pipeline-Trace`. Default false. */
  tracing?: boolean;
  /** Register the built-in JSON, text, bytes, stream and form providers. Default true. */
  builtinProviders?: boolean;
  /** Treat start-up warnings (docs/errors.md, "Start-up errors and warnings") as errors. Default false. */
  strict?: boolean;
  /** Where start-up warnings go, once, at `build()`. Default: `log.warn` when {@link log} is given, else one JSON line on stderr. */
  onWarning?: (warning: ModelProblem) => void;
  /** Deadline (ms) of every resource method without `@Deadline` (see {@link Deadline}). Default: none. */
  deadline?: number;
  /**
   * The application's base path, like Jakarta REST 3.1 §2.3.2 `@ApplicationPath`: `'/api'` serves
   * `@Path('/users')` at `/api/users`. Requests outside it (segment-wise: `/api` covers `/api` and
   * `/api/x`, not `/apix`) are 404. `UriInfo.path` stays the full request path and
   * `UriInfo.baseUri` includes the base path, while `ResourceInfo.path`, `UriInfo.matchedTemplate`
   * and {@link Application.routes} stay relative to it. Relative `Location` and `Content-Location`
   * values are resolved against `scheme://host/api/`. Must start with `/`, end without one, and
   * hold no template variables, `?` or `#` (checked here, at construction). Default: none (the root).
   * @example new Application({ basePath: '/api', resources: [UserResource] })
   */
  basePath?: string;
  /**
   * The application cannot run in several processes at once (it keeps state in memory that
   * requests must share: an in-memory store, rate-limit counters, sessions). {@link serveOnCores}
   * then refuses to start more than one worker, with a message naming this option. Default false.
   * @example new Application({ resources: [InMemoryCartResource], singleProcess: true })
   */
  singleProcess?: boolean;
}

const defaultOnWarning = (w: ModelProblem): void => {
  process.stderr.write(`${JSON.stringify({ level: 'warn', code: w.code, message: w.message })}\n`);
};

/** The default error entity: 4xx messages are shown, 5xx ones never (Koa's `expose`). */
export const defaultErrorBody: ErrorBodyFactory = (error) => {
  const body: Record<string, unknown> = { status: error.status, error: error.reason, code: error.code };
  if (error.expose) body.message = error.message;
  if (Array.isArray(error.details)) body.errors = error.details;
  return body;
};

/** Start-up warnings through the application's logger. */
const warnThrough =
  (log: Logger) =>
  (w: ModelProblem): void =>
    log.warn({ code: w.code }, w.message);

/**
 * Unexpected errors through the application's logger: the request's own logger when a feature
 * gave it one (its lines carry the request id and route), else `log` with the method and path.
 */
const errorsThrough =
  (log: Logger): ErrorLogger =>
  (error, request) => {
    const own = request?.getProperty(REQUEST_LOGGER_PROPERTY) as Logger | undefined;
    const e = error as Error | undefined;
    const message = e?.message ?? String(error);
    if (own !== undefined) own.error({ err: errorFields(error) }, message);
    else
      log.error(
        request === undefined ? { err: errorFields(error) } : { err: errorFields(error), method: request.method, path: request.path },
        message,
      );
  };

/** An error as log fields (pino's `err` shape: type, message, stack); a non-error as its string. */
function errorFields(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields: Record<string, unknown> = { type: error.name, message: error.message, stack: error.stack };
  const code = (error as { code?: unknown }).code;
  if (code !== undefined) fields.code = code;
  return fields;
}

const defaultLogger: ErrorLogger = (error, request) => {
  const e = error as Error;
  process.stderr.write(
    `${JSON.stringify({ level: 'error', method: request?.method, path: request?.path, error: e?.message, stack: e?.stack })}\n`,
  );
};

/**
 * A JAX-RS application: register resources and providers, `build()` once (route table and every
 * per-route chain precomputed), then `listen()`, use `handler` with your own server, or `inject()`.
 * @example
 * const app = new Application({ resources: [HelloResource] });
 * const { port } = await app.listen(8080);
 */
export class Application {
  private readonly registrations: Registration[] = [];
  private readonly options: ApplicationOptions;
  private readonly container: DependencyContainer;
  private rt: Runtime | undefined;
  private routesBuilt: RouteMethod[] = [];
  private httpServer: Server | undefined;
  private transport: Transport | undefined;
  private connections = new Connections();
  private closing: Promise<CloseResult> | undefined;
  readonly limits: PipelineLimits;
  /** The `basePath` option (`@ApplicationPath`), validated; undefined for the root. */
  readonly basePath: string | undefined;
  /** The `singleProcess` option: true when the application must not be served by several processes. */
  readonly singleProcess: boolean;

  constructor(options: ApplicationOptions = {}) {
    this.options = options;
    this.basePath = validateBasePath(options.basePath);
    this.singleProcess = options.singleProcess === true;
    this.limits = resolveLimits(options.limits);
    if (options.errorFormat !== undefined && !ERROR_FORMATS.includes(options.errorFormat)) {
      throw new TypeError(
        `errorFormat must be one of ${ERROR_FORMATS.map((f) => `'${f}'`).join(', ')}, got ${String(options.errorFormat)}`,
      );
    }
    const log = options.log;
    if (
      log !== undefined &&
      (typeof log !== 'object' || log === null || typeof log.warn !== 'function' || typeof log.error !== 'function')
    ) {
      throw new TypeError('log must be a Logger (warn, error, ... and child() methods): a pino instance or jsonLogger()');
    }
    this.container = options.container ?? rootContainer.createChildContainer();
    // Marked, so build() can say that an entry of `resources` is not a resource class.
    for (const r of options.resources ?? []) this.registrations.push({ target: r, asResource: true });
    for (const p of options.providers ?? []) this.register(p);
  }

  /** Registers a resource class, provider class or instance, Feature or DynamicFeature. */
  register(target: Constructor | object, options: RegistrationOptions = {}): this {
    if (this.rt !== undefined) throw new Error('register() after build(): the application is immutable once built');
    if (options.priority !== undefined && !Number.isFinite(options.priority)) throw new TypeError('priority must be a finite number');
    this.registrations.push({ target, ...options });
    return this;
  }

  /** Builds the model once; later calls return the same application. Start-up errors surface here. */
  build(): this {
    if (this.rt !== undefined) return this;
    const regs = [...this.registrations];
    if (this.options.discoverProviders === true) {
      for (const p of discoveredProviders()) if (!regs.some((r) => r.target === p)) regs.push({ target: p });
    }
    const appBindings = new Set<NameBindingDecorator>([
      ...((this.options.bindings ?? []) as unknown as NameBindingDecorator[]),
      ...classMeta(this.constructor).bindings.keys(),
    ]);
    const builtin = this.options.builtinProviders !== false;
    const problems = new ModelProblems();
    const deadline = this.options.deadline;
    if (deadline !== undefined && (!Number.isInteger(deadline) || deadline <= 0)) {
      throw new TypeError(`deadline must be a positive integer (ms), got ${String(deadline)}`);
    }
    const model = buildModel({
      deadline,
      configuration: { errorFormat: this.options.errorFormat ?? 'json' },
      problems,
      registrations: regs,
      container: this.container,
      appBindings,
      defaultScope: this.options.resourceScope ?? 'singleton',
      defaultProviders: (resolve) => {
        if (!builtin) return [];
        return defaultProviders(
          resolve === undefined ? undefined : (type: TypeToken) => resolve(JsonOptions, type) as JsonOptions | undefined,
        );
      },
    });
    // Every problem of the model at once (Jersey's ModelValidationException): errors throw here.
    const log = this.options.log;
    problems.finish(this.options.strict === true, this.options.onWarning ?? (log === undefined ? defaultOnWarning : warnThrough(log)));
    const logError = this.options.logger ?? (log === undefined ? defaultLogger : errorsThrough(log));
    const state: Runtime['state'] = { inflight: 0, closing: false, stopping: false, onIdle: undefined };
    this.routesBuilt = model.routes;
    this.rt = {
      router: model.router,
      preMatchFilters: model.preMatchFilters,
      global: { responseFilters: model.globalResponseFilters, writerInterceptors: model.globalWriterInterceptors },
      mappers: model.mappers,
      mapperCache: new Map(),
      body: model.body,
      container: this.container,
      limits: this.limits,
      errorBody: this.options.errorBody ?? defaultErrorBody,
      errorFormat: this.options.errorFormat,
      problemBody: this.options.problemBody,
      logError,
      tracing: this.options.tracing === true,
      basePath: this.basePath,
      listeners: model.requestListeners.length === 0 ? undefined : model.requestListeners,
      scopes: model.requestScopes.length === 0 ? undefined : model.requestScopes,
      servedWhileClosing: model.servedWhileClosing.length === 0 ? undefined : closingPathSet(model.servedWhileClosing, this.basePath),
      state,
      finish(ex: Exchange, status: number): void {
        if (ex.done) return;
        ex.done = true;
        state.inflight--;
        if (channels.finish.hasSubscribers) {
          const durationMs = ex.startTime < 0 ? undefined : performance.now() - ex.startTime;
          channels.finish.publish({ request: ex, status, durationMs, error: ex.error, trace: ex.trace });
        }
        if (ex.ends !== undefined) endListeners(ex, status, logError);
        if (state.closing && state.inflight === 0) state.onIdle?.();
      },
    };
    return this;
  }

  /** Every resource method, for diagnostics and tests: `GET /api/users/{id} -> UserResource.get`. */
  get routes(): string[] {
    this.build();
    return this.routesBuilt.map((r) => `${r.httpMethod} ${r.info.path} -> ${r.info.resourceClass.name}.${r.info.methodName}`);
  }

  /** A `(req, res)` listener for any `node:http` server (builds on first use). */
  get handler(): (req: IncomingMessage, res: ServerResponse) => void {
    const rt = this.build().rt!;
    return (req, res) => {
      if (rt.state.closing && !servedWhileClosing(rt, req)) {
        rejectWhileClosing(rt, req, res);
        return;
      }
      handle(rt, req, res);
    };
  }

  /**
   * The listener of the server {@link listen} starts: {@link handler} plus the `Host` check Node's
   * server would otherwise make itself, answering without a body (`requireHostHeader` is off).
   */
  private get serverHandler(): (req: IncomingMessage, res: ServerResponse) => void {
    const rt = this.build().rt!;
    return (req, res) => {
      if (rt.state.closing) {
        // A half-closed connection cannot carry an answer, not even a probe's.
        if (halfClosed(req.socket)) {
          req.resume();
          return;
        }
        if (!servedWhileClosing(rt, req)) {
          rejectWhileClosing(rt, req, res);
          return;
        }
      }
      if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor === 1) rejectMissingHost(rt, req, res);
      else handle(rt, req, res);
    };
  }

  /** The HTTP/1.1 server started by {@link listen} (plain or over TLS), if any. */
  get server(): Server | undefined {
    return this.httpServer;
  }

  /** The HTTP/2 server started by {@link listen} with `http2` (`Http2SecureServer` over TLS, `Http2Server` for h2c), if any. */
  get http2Server(): Http2SecureServer | Http2Server | undefined {
    const t = this.transport;
    return t === undefined || t.kind === 'https' ? undefined : (t.server as Http2SecureServer | Http2Server);
  }

  /**
   * The listener of the HTTP/2 streams of {@link listen}: {@link handler}, with nothing of
   * HTTP/1.1's connection handling (no Host check: `:authority` stands in for it, RFC 9113 §8.3.1).
   */
  private get http2Handler(): (req: IncomingMessage, res: ServerResponse) => void {
    const rt = this.build().rt!;
    return (req, res) => {
      if (rt.state.closing) rejectWhileClosing(rt, req, res);
      else handle(rt, req, res);
    };
  }

  /**
   * Starts a `node:http` server with the configured limits. Port 0 picks a free port. `options`
   * sets how the listening socket is bound (see {@link ListenSocketOptions}) and, with `tls` and
   * `http2`, the protocol: HTTP/1.1 over TLS, HTTP/2 over TLS with HTTP/1.1 on the same port, or
   * HTTP/2 in clear text with prior knowledge (see {@link ListenOptions} and docs/http2.md).
   * @example const { port } = await app.listen(0, '127.0.0.1');
   */
  async listen(port = 0, host = '127.0.0.1', options: ListenOptions = {}): Promise<AddressInfo> {
    const { tls, http2, ...socket } = options;
    checkTransportOptions(tls, http2);
    if (tls !== undefined || (http2 !== undefined && http2 !== false)) return this.listenTransport(port, host, socket, tls, http2);
    const l = this.limits;
    const server = createServer(
      {
        maxHeaderSize: l.maxHeaderSize,
        requestTimeout: l.requestTimeout,
        headersTimeout: l.headersTimeout,
        connectionsCheckingInterval: l.connectionsCheckingInterval,
        requireHostHeader: false,
      },
      this.serverHandler,
    );
    server.keepAliveTimeout = l.keepAliveTimeout;
    // sendTimeout: a sweep over the connections (connections.ts), not Node's per-socket timer,
    // which is re-armed on every read and write (keep-alive idle time uses keepAliveTimeout).
    server.timeout = 0;
    server.maxRequestsPerSocket = l.maxRequestsPerSocket === 0 ? null : l.maxRequestsPerSocket;
    // Requests Node's parser rejects (malformed, too large, too slow) get the application's error body too.
    answerClientErrors(server, this.build().rt!);
    this.httpServer = server;
    this.connections = new Connections().track(server, 'connection');
    watchSendTimeout(server, this.connections, l.sendTimeout);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port, host, ...socket } as NetListenOptions, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return server.address() as AddressInfo;
  }

  /** {@link listen} over TLS and/or HTTP/2 (http2.ts makes the server and maps the limits). */
  private async listenTransport(
    port: number,
    host: string,
    socket: ListenSocketOptions,
    tls: TlsListenOptions | undefined,
    http2: boolean | Http2ListenOptions | undefined,
  ): Promise<AddressInfo> {
    const rt = this.build().rt!;
    const transport = createTransport(tls, http2, this.limits, { http1: this.serverHandler, http2: this.http2Handler });
    const server = transport.server;
    // HTTP/1.1 requests Node's parser rejects (https, and the h2 port's HTTP/1.1 fallback) get the error body too.
    if (transport.kind !== 'h2c') answerClientErrors(server, rt);
    this.transport = transport;
    if (transport.kind === 'https') {
      this.httpServer = transport.server as Server;
      this.connections = transport.connections;
    }
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port, host, ...socket } as NetListenOptions, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return server.address() as AddressInfo;
  }

  /**
   * Graceful close: stop accepting, answer new requests on kept-alive sockets with 503 +
   * `Connection: close`, let in-flight requests finish, then cut what is left at the deadline.
   * A response already written is delivered whole (see connections.ts): a connection still
   * flushing it is never treated as idle, only the deadline cuts it. Resolves with how it went, so
   * a process can exit non-zero when the deadline had to cut connections. Idempotent.
   */
  close(deadlineMs = this.limits.shutdownDeadline, options: CloseOptions = {}): Promise<CloseResult> {
    if (this.closing !== undefined) return this.closing;
    const rt = this.build().rt!;
    const delay = options.delayMs ?? this.limits.shutdownDelay;
    if (delay > 0) {
      // The shutdown delay: served as usual, readiness already DOWN; then the close proper.
      rt.state.stopping = true;
      const proper = new Promise<void>((r) => setTimeout(r, delay)).then(() => {
        this.closing = undefined;
        return this.close(deadlineMs, { delayMs: 0 });
      });
      this.closing = proper;
      return proper;
    }
    rt.state.stopping = true;
    rt.state.closing = true;
    // Long-lived responses (event streams) end now instead of holding the close until its deadline.
    runClosingHooks(rt);
    const server = this.httpServer;
    const connections = this.connections;
    const transport = this.transport;
    if (transport !== undefined && transport.kind !== 'https') {
      this.closing = closeHttp2(transport, rt, deadlineMs);
      return this.closing;
    }
    this.closing = new Promise<CloseResult>((resolve) => {
      let cutConnections = 0;
      let deadlinePassed = false;
      const idle = new Promise<void>((r) => {
        if (rt.state.inflight === 0) r();
        else rt.state.onIdle = r;
      });
      // At the deadline: cut our server's connections. Without a server of our own (`handler` on
      // someone else's server, `inject`) the connections are not ours to cut: stop waiting.
      const timer = setTimeout(() => {
        deadlinePassed = true;
        if (server === undefined) {
          resolve({ drained: false, cutConnections: 0 });
          return;
        }
        cutConnections = connections.open().size;
        server.closeAllConnections();
      }, deadlineMs);
      // Only our server's timer may let the process exit early; without one, the timer is what
      // settles close() for a request that never ends (idle settles it sooner and clears it).
      if (server !== undefined) timer.unref();
      if (server === undefined) {
        void idle.then(() => {
          clearTimeout(timer);
          resolve({ drained: true, cutConnections: 0 });
        });
        return;
      }
      // server.close() also reaps idle connections (Node 19+): spare those still flushing.
      sparingFlushing(server, connections, () =>
        server.close(() => {
          clearTimeout(timer);
          clearTimeout(linger);
          resolve({ drained: !deadlinePassed, cutConnections });
        }),
      );
      // Once nothing is in flight, connections that never sent a request (clients open spares)
      // are not "idle" to Node and would hold close() until the deadline: give the last
      // responses a moment to flush, then cut those with nothing left to send.
      let linger: NodeJS.Timeout | undefined;
      void idle.then(() => {
        sparingFlushing(server, connections, () => server.closeIdleConnections());
        linger = setTimeout(() => cutQuiet(connections), Math.min(IDLE_LINGER_MS, deadlineMs));
        linger.unref();
      });
    });
    return this.closing;
  }

  /**
   * Runs one request through the whole pipeline in-process, no socket (builds on first use). It
   * reports every failure through the promise, never by throwing: a misconfigured application
   * rejects with the error {@link build} throws (e.g. `ModelValidationError`, `PIPELINE_MODEL_INVALID`),
   * so `await app.inject(...)` and `.catch()` see it (docs/testing.md).
   */
  inject(request: InjectRequest | string): Promise<InjectResponse> {
    // A try block costs nothing when nothing throws: the success path stays one promise, no
    // extra microtask (the in-process transport runs in the benchmarks).
    try {
      return injectRequest(this.handler, typeof request === 'string' ? { url: request } : request);
    } catch (e) {
      return Promise.reject(e);
    }
  }
}

/**
 * {@link Application.close} of an HTTP/2 server: GOAWAY on every session now (open streams finish,
 * new ones are refused, RFC 9113 §6.8), HTTP/1.1 fallback connections closed once nothing is in
 * flight (in-flight ones answer with `Connection: close`), everything cut at the deadline.
 */
function closeHttp2(transport: Transport, rt: Runtime, deadlineMs: number): Promise<CloseResult> {
  return new Promise<CloseResult>((resolve) => {
    let cutConnections = 0;
    let deadlinePassed = false;
    const timer = setTimeout(() => {
      deadlinePassed = true;
      cutConnections = cutAll(transport);
    }, deadlineMs);
    timer.unref();
    transport.server.close(() => {
      clearTimeout(timer);
      resolve({ drained: !deadlinePassed, cutConnections });
    });
    goAwayAll(transport);
    const idle = (): void => {
      goAwayAll(transport);
      closeQuietHttp1(transport);
    };
    if (rt.state.inflight === 0) idle();
    else rt.state.onIdle = idle;
  });
}

/**
 * How {@link Application.listen} binds its socket and which protocol it speaks;
 * {@link serveOnCores} sets these for its workers.
 * @example await app.listen(8443, '0.0.0.0', { tls: { key, cert }, http2: true });
 */
export interface ListenOptions extends ListenSocketOptions {
  /** Serve over TLS ({@link TlsListenOptions}): HTTP/1.1, or with `http2` HTTP/2 and HTTP/1.1 on the same port (ALPN). */
  tls?: TlsListenOptions;
  /**
   * Serve HTTP/2: over TLS (with `tls`) negotiated by ALPN, HTTP/1.1 clients served on the same
   * port; without `tls`, h2c with prior knowledge only (no HTTP/1.1 on that port). `true` or the
   * settings ({@link Http2ListenOptions}). Default false.
   */
  http2?: boolean | Http2ListenOptions;
}

/**
 * How {@link Application.listen} binds its socket; {@link serveOnCores} sets these for its workers.
 * @example await app.listen(8080, '0.0.0.0', { reusePort: true, exclusive: true });
 */
export interface ListenSocketOptions {
  /**
   * `SO_REUSEPORT`: several processes bind the same port and the kernel spreads connections over
   * them. Node 22.12+ / 23.1+ on Linux and some BSDs; older Node ignores it (the second bind then
   * fails with `EADDRINUSE`).
   */
  reusePort?: boolean;
  /** In a `node:cluster` worker, bind the socket in this process instead of sharing the primary's. */
  exclusive?: boolean;
}

/** How {@link Application.close} proceeds. */
export interface CloseOptions {
  /** The shutdown delay of this close, replacing `limits.shutdownDelay` (see {@link PipelineLimits.shutdownDelay}), ms. */
  delayMs?: number;
}

/** How a {@link Application.close} went. */
export interface CloseResult {
  /** Everything finished before the deadline (nothing had to be cut). */
  readonly drained: boolean;
  /** Connections the deadline had to cut (0 after a clean drain). */
  readonly cutConnections: number;
}

/** The full request paths of the `@ServedWhileClosing()` routes: the base path's root is `/api` as well as `/api/`. */
function closingPathSet(paths: readonly string[], basePath: string | undefined): ReadonlySet<string> {
  const set = new Set<string>();
  for (const p of paths) {
    set.add((basePath ?? '') + p);
    if (p === '/' && basePath !== undefined) set.add(basePath);
  }
  return set;
}

/**
 * While closing: the request is a GET or HEAD of a `@ServedWhileClosing()` path (a probe), which
 * the pipeline answers as usual instead of the closing 503. A string comparison of the path, no
 * routing: the paths are literal (checked by `build()`).
 */
function servedWhileClosing(rt: Runtime, req: IncomingMessage): boolean {
  const paths = rt.servedWhileClosing;
  if (paths === undefined || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return paths.has(q < 0 ? url : url.slice(0, q));
}

/** Tells the request listeners how the request ended; one that throws is reported and the others still run. */
function endListeners(ex: Exchange, status: number, logError: ErrorLogger): void {
  const cl = ex.raw.headers['content-length'];
  const declared = cl === undefined ? undefined : Number(cl);
  const outcome: RequestOutcome = {
    status,
    durationMs: performance.now() - ex.startTime,
    error: ex.error,
    requestBodySize: declared !== undefined && Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined,
    responseBodySize: ex.bytesOut < 0 ? undefined : ex.bytesOut,
  };
  for (const end of ex.ends!) {
    try {
      end(outcome);
    } catch (e) {
      logError(e, ex);
    }
  }
}

/** After the last in-flight response, how long connections may linger before close() cuts them. */
const IDLE_LINGER_MS = 500;
