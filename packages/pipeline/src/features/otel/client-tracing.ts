/**
 * CLIENT spans for the typed client (OpenTelemetry HTTP semantic conventions, "HTTP client
 * span"), and W3C `traceparent`/`tracestate` injected into every request (W3C Trace Context §3).
 *
 * One span per call, not per attempt: the conventions prefer a span per attempt, and allow one
 * span for the top-most operation when the client exposes no hook per attempt, which a client
 * provider does not (retries happen below the filters). So a call retried twice is one span, its
 * `traceparent` the same on every attempt, its status the last attempt's.
 *
 * The span starts in a request filter that runs after the others (so headers they set, and an
 * `abortWith`, come first), and ends when the call ends, entity read included, as the client's
 * `jaxrs-node:client:request:finish` diagnostics channel reports it: that also covers a call that
 * failed without a response (a timeout, a refused connection, the caller's abort), which no
 * response filter sees.
 */
import diagnostics_channel from 'node:diagnostics_channel';
import type { Span, TextMapPropagator, TextMapSetter, Tracer, TracerProvider } from '@opentelemetry/api';
import { CLIENT_CHANNEL_NAMES } from '../../client/diagnostics.js';
import type { ClientRequestFilter, ClientResponseFilter } from '../../client/contracts.js';
import type { ClientHeaders, ClientRequestContext } from '../../client/request-context.js';
import type { ClientResponse } from '../../client/response.js';
import { Priority } from '../../decorators/provider.js';
import { otel } from './api.js';
import { ATTR, errorType, knownMethods, methodAttributes, redactQuery } from './conventions.js';
import { INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION } from './version.js';

/** Options of {@link ClientTracing}; every field is optional. */
export interface ClientTracingOptions {
  /** Where the spans go; default the global provider. */
  tracerProvider?: TracerProvider;
  /** How the trace context is written into requests; default the global propagator. */
  propagator?: TextMapPropagator;
  /** Methods recorded as they are; others are `_OTHER` (see `TracingOptions.knownMethods`). */
  knownMethods?: readonly string[];
}

/** A request property no application uses: the call's span. */
const SPAN = 'jaxrs-node.otel.client-span';

/** The call's span and the status its response had (0 before one arrived). */
interface CallSpan {
  readonly span: Span;
  status: number;
}

const headerSetter: TextMapSetter<ClientHeaders> = {
  set: (carrier, key, value) => {
    carrier[key.toLowerCase()] = value;
  },
};

/** What the client's finish channel publishes (see `CLIENT_CHANNEL_NAMES`). */
interface FinishMessage {
  readonly request: ClientRequestContext;
  readonly status: number | undefined;
  readonly error: unknown;
}

let listening = false;

/** Subscribes, once per process, the end of the calls that have a span; the others cost a property read. */
function listen(): void {
  if (listening) return;
  listening = true;
  diagnostics_channel.subscribe(CLIENT_CHANNEL_NAMES.finish, (message) => {
    // A subscriber that throws would surface as an uncaught exception: never let one escape.
    try {
      endSpan(message as FinishMessage);
    } catch {
      // Nothing sensible to do with a failing exporter hook here; the call itself is unaffected.
    }
  });
}

function endSpan(m: FinishMessage): void {
  const state = m.request.getProperty(SPAN) as CallSpan | undefined;
  if (state === undefined) return;
  m.request.removeProperty(SPAN);
  const span = state.span;
  if (m.error !== undefined) {
    // A call that throws for an error status (ClientResponseError, or a mapper's own error) is
    // typed by that status (conventions, `error.type`); one that got no response by its error.
    span.setAttribute(ATTR.errorType, state.status >= 400 ? String(state.status) : errorType(m.error));
    if (m.error instanceof Error) span.recordException(m.error);
    span.setStatus({ code: otel.SpanStatusCode.ERROR });
  } else if (m.status !== undefined && m.status >= 400) {
    // 4xx and 5xx are errors from the client's side (conventions, "Status").
    span.setAttribute(ATTR.errorType, String(m.status));
    span.setStatus({ code: otel.SpanStatusCode.ERROR });
  }
  span.end();
}

/** `url.full` without credentials and with signed-URL parameters redacted (conventions, `url.full`). */
function fullUrl(url: URL): string {
  if (url.username !== '' || url.password !== '') {
    url.username = url.username === '' ? '' : 'REDACTED';
    url.password = url.password === '' ? '' : 'REDACTED';
  }
  const query = url.search.slice(1);
  if (query !== '') url.search = redactQuery(query);
  return url.href;
}

/**
 * A client provider that makes a CLIENT span per call, named `{method}` (`GET`), with
 * `http.request.method`, `server.address`, `server.port`, `url.full`, `http.response.status_code`
 * and `error.type`, and injects the span's W3C `traceparent`/`tracestate` into the request. Inside
 * a request traced by `TracingFeature` the span is a child of the server span, and the next
 * service continues the same trace. Retries are one span per call (see docs/tracing.md).
 * @example
 * import { ClientTracing } from '@jaxrs-node/pipeline/otel';
 * const catalog = createClient(CatalogContract, { baseUrl, providers: [new ClientTracing()] });
 */
@Priority(Number.MAX_SAFE_INTEGER)
export class ClientTracing implements ClientRequestFilter, ClientResponseFilter {
  private readonly tracer: Tracer;
  private readonly propagator: TextMapPropagator | undefined;
  private readonly known: ReadonlySet<string>;

  constructor(options: ClientTracingOptions = {}) {
    const provider = options.tracerProvider ?? otel.trace.getTracerProvider();
    this.tracer = provider.getTracer(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION);
    this.propagator = options.propagator;
    this.known = knownMethods(options.knownMethods, 'ClientTracing');
    listen();
  }

  filterClientRequest(request: ClientRequestContext): void {
    const attrs: Record<string, string | number> = {};
    const name = methodAttributes(request.method, this.known, attrs);
    const url = new URL(request.uri);
    attrs[ATTR.serverAddress] = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    attrs[ATTR.serverPort] = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    attrs[ATTR.urlFull] = fullUrl(url);
    const parent = otel.context.active();
    const span = this.tracer.startSpan(name, { kind: otel.SpanKind.CLIENT, attributes: attrs }, parent);
    const context = otel.trace.setSpan(parent, span);
    if (this.propagator === undefined) otel.propagation.inject(context, request.headers, headerSetter);
    else this.propagator.inject(context, request.headers, headerSetter);
    request.setProperty(SPAN, { span, status: 0 } satisfies CallSpan);
  }

  filterClientResponse(request: ClientRequestContext, response: ClientResponse): void {
    const state = request.getProperty(SPAN) as CallSpan | undefined;
    if (state === undefined) return;
    state.status = response.status;
    state.span.setAttribute(ATTR.status, response.status);
  }
}
