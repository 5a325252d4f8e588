/**
 * Server spans for every request (OpenTelemetry HTTP semantic conventions, "HTTP server span"):
 * a `RequestListener` starts the span when the pipeline takes the request, from the W3C
 * `traceparent`/`tracestate` it carries (W3C Trace Context §3), a `RequestScope` runs the rest of
 * the request in the span's context (so spans the method starts are its children, and the typed
 * client's `ClientTracing` injects it), a post-matching filter names it by its route as soon as one
 * matched, and the listener's end callback sets the status and ends it.
 *
 * When Node's HTTP instrumentation (`@opentelemetry/instrumentation-http`) already made the server
 * span, no second one is started: the route is given to that span, through the "RPC metadata" the
 * instrumentation leaves in the context for frameworks (it names its span `{method} {route}` from
 * it when the response finishes), and set on the span at once.
 */
import type { Attributes, Context, Span, TextMapGetter, TextMapPropagator, Tracer, TracerProvider } from '@opentelemetry/api';
import type {
  ContainerRequestFilter,
  Feature,
  FeatureContext,
  RequestListener,
  RequestOutcome,
  RequestScope,
} from '../../core/context/contracts.js';
import type { ContainerRequestContext } from '../../core/context/request-context.js';
import { isValidHost, requestScheme } from '../../core/context/uri-info.js';
import { WebApplicationError } from '../../core/http/errors.js';
import { otel } from './api.js';
import { ATTR, errorType, hostAttributes, knownMethods, methodAttributes, protocolVersion, redactQuery } from './conventions.js';
import { INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION } from './version.js';

/** Options of {@link TracingFeature}; every field is optional. */
export interface TracingOptions {
  /** Where the spans go; default the global provider (`trace.setGlobalTracerProvider`, what `NodeSDK.start()` registers). */
  tracerProvider?: TracerProvider;
  /** How the incoming trace context is read; default the global propagator (W3C Trace Context once an SDK is started). */
  propagator?: TextMapPropagator;
  /**
   * Methods recorded as they are (case-sensitive); others are `_OTHER` with the original in
   * `http.request.method_original`. Default: the conventions' list, RFC 9110's methods and PATCH.
   */
  knownMethods?: readonly string[];
}

/** A property name no application uses: the request's span state. */
const STATE = 'jaxrs-node.otel.server-span';

/** The context key `@opentelemetry/core`'s `setRPCMetadata` uses (a `Symbol.for`, the same from any copy). */
const RPC_METADATA = otel.createContextKey('OpenTelemetry SDK Context Key RPC_METADATA');

/** What Node's HTTP instrumentation leaves in the request's context (`@opentelemetry/core` `RPCMetadata`). */
interface RpcMetadata {
  type: string;
  span: Span;
  route?: string;
}

/** The instrumentation's metadata already given to a request (weakly: it lives as long as its request's context). */
const claimed = new WeakSet<RpcMetadata>();

/** One request's span. */
interface SpanState {
  readonly span: Span;
  /** The context to run the request in (undefined: the instrumentation's, already active). */
  readonly context: Context | undefined;
  /** Set when the span is the HTTP instrumentation's. */
  readonly rpc: RpcMetadata | undefined;
  /** `{method}` of the span name: the method, or `HTTP` for an unknown one. */
  readonly methodName: string;
  named: boolean;
}

const headerGetter: TextMapGetter<ContainerRequestContext['headers']> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

/** The route label: the base path and the matched template, `/api/users/{id}`; undefined when nothing matched. */
function routeOf(ctx: ContainerRequestContext): string | undefined {
  const path = ctx.resourceInfo?.path;
  return path === undefined ? undefined : ctx.basePath + path;
}

/**
 * Starts, scopes and ends the server spans (registered by {@link TracingFeature}).
 * @internal
 */
export class ServerTracing implements RequestListener, RequestScope {
  private readonly tracer: Tracer;
  private readonly propagator: TextMapPropagator | undefined;
  private readonly known: ReadonlySet<string>;

  constructor(options: TracingOptions = {}) {
    const provider = options.tracerProvider ?? otel.trace.getTracerProvider();
    this.tracer = provider.getTracer(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION);
    this.propagator = options.propagator;
    this.known = knownMethods(options.knownMethods, 'TracingFeature');
  }

  onRequest(ctx: ContainerRequestContext): ((outcome: RequestOutcome) => void) | undefined {
    const active = otel.context.active();
    const attrs: Attributes & Record<string, string | number> = {};
    const methodName = methodAttributes(ctx.method, this.known, attrs);
    const rpc = active.getValue(RPC_METADATA) as RpcMetadata | undefined;
    // Node's HTTP instrumentation made this request's server span and runs us inside it. A request
    // made in-process from inside that request (a typed client on `inProcess(app)`, `inject()`)
    // inherits the same metadata: the first request to see it claims it, the others get spans of their own.
    if (rpc !== undefined && rpc.type === 'http' && rpc.span !== undefined && !claimed.has(rpc)) {
      claimed.add(rpc);
      ctx.setProperty(STATE, { span: rpc.span, context: undefined, rpc, methodName, named: false } satisfies SpanState);
      return (outcome) => this.endInstrumented(ctx, rpc.span, outcome);
    }
    // A server request starts from its own headers, not from whatever context the caller of
    // the application happened to run in (in-process `inject()` inside a test's span, say).
    const carrier = ctx.headers;
    const parent =
      this.propagator === undefined
        ? otel.propagation.extract(otel.ROOT_CONTEXT, carrier, headerGetter)
        : this.propagator.extract(otel.ROOT_CONTEXT, carrier, headerGetter);
    // Attributes that may decide sampling are given at creation (conventions, "HTTP server span").
    attrs[ATTR.urlPath] = ctx.path;
    if (ctx.rawQuery !== '') attrs[ATTR.urlQuery] = redactQuery(ctx.rawQuery);
    attrs[ATTR.urlScheme] = requestScheme(ctx);
    const host = ctx.headers.host;
    if (host !== undefined && isValidHost(host)) hostAttributes(host, attrs);
    const client = ctx.remoteAddress;
    if (client !== undefined) attrs[ATTR.clientAddress] = client;
    const ua = ctx.headers['user-agent'];
    if (ua !== undefined) attrs[ATTR.userAgent] = ua;
    const version = protocolVersion(ctx.raw.httpVersion);
    if (version !== undefined) attrs[ATTR.protocolVersion] = version;
    const span = this.tracer.startSpan(methodName, { kind: otel.SpanKind.SERVER, attributes: attrs }, parent);
    ctx.setProperty(STATE, {
      span,
      context: otel.trace.setSpan(parent, span),
      rpc: undefined,
      methodName,
      named: false,
    } satisfies SpanState);
    return (outcome) => this.end(ctx, span, outcome);
  }

  runInScope(ctx: ContainerRequestContext, next: () => void): void {
    const state = ctx.getProperty(STATE) as SpanState | undefined;
    if (state?.context === undefined) next();
    else otel.context.with(state.context, next);
  }

  /** Names the span `{method} {route}` and sets `http.route`, once, as soon as the route is known. */
  name(ctx: ContainerRequestContext): void {
    const state = ctx.getProperty(STATE) as SpanState | undefined;
    if (state === undefined || state.named) return;
    const route = routeOf(ctx);
    if (route === undefined) return;
    state.named = true;
    if (state.rpc !== undefined) state.rpc.route = route;
    if (!state.span.isRecording()) return;
    state.span.setAttribute(ATTR.route, route);
    state.span.updateName(`${state.methodName} ${route}`);
  }

  private end(ctx: ContainerRequestContext, span: Span, outcome: RequestOutcome): void {
    this.name(ctx);
    span.setAttribute(ATTR.status, outcome.status);
    failure(span, outcome);
    span.end();
  }

  /**
   * The instrumentation's span: it sets the status code and ends the span itself when the response
   * finishes; what only the pipeline knows, the exception behind a 5xx, is added while it is open.
   */
  private endInstrumented(ctx: ContainerRequestContext, span: Span, outcome: RequestOutcome): void {
    this.name(ctx);
    if (span.isRecording()) failure(span, outcome);
  }
}

/**
 * A 5xx: status ERROR, `error.type` (the class of an unexpected exception, else the status) and the
 * exception as an event. A 4xx is the client's doing: a server span's status stays unset
 * (conventions, "Status").
 */
function failure(span: Span, { status, error }: RequestOutcome): void {
  if (status < 500) return;
  const unexpected = error !== undefined && !(error instanceof WebApplicationError);
  span.setAttribute(ATTR.errorType, unexpected ? errorType(error) : String(status));
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: otel.SpanStatusCode.ERROR });
}

/** The post-matching filter that names the span by its route before the method runs. */
class RouteNaming implements ContainerRequestFilter {
  constructor(private readonly tracing: ServerTracing) {}
  filterRequest(ctx: ContainerRequestContext): void {
    this.tracing.name(ctx);
  }
}

/**
 * Traces every request through `@opentelemetry/api`: a SERVER span per request named `{method}
 * {route}` (`GET /api/users/{id}`; `{method}` alone when nothing matched) with the HTTP semantic
 * conventions' attributes, continuing the W3C `traceparent`/`tracestate` of the request; the
 * resource method runs in the span's context, so its own spans and the typed client's
 * (`ClientTracing`) are children. Status ERROR and `error.type` for 5xx answers (4xx leave a server
 * span's status unset). When Node's HTTP instrumentation already made the server span, that span
 * gets the route and the name instead of a second span.
 * @example
 * import { TracingFeature } from '@jaxrs-node/pipeline/otel';
 * const app = new Application({ resources: [Users], providers: [new TracingFeature()] });
 */
export class TracingFeature implements Feature {
  private readonly options: TracingOptions;

  constructor(options: TracingOptions = {}) {
    knownMethods(options.knownMethods, 'TracingFeature');
    this.options = options;
  }

  setup(context: FeatureContext): void {
    const tracing = new ServerTracing(this.options);
    context.register(tracing);
    // First among the request filters: the span has its name before any filter can fail the request.
    context.register(new RouteNaming(tracing), { priority: 0 });
  }
}
