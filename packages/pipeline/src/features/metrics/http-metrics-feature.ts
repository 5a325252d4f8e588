import type { Feature, FeatureContext, RequestListener, RequestOutcome } from '../../core/context/contracts.js';
import type { ContainerRequestContext } from '../../core/context/request-context.js';
import type { ResourceInfo } from '../../core/context/resource-info.js';
import { requestScheme } from '../../core/context/uri-info.js';
import { WebApplicationError } from '../../core/http/errors.js';
import type { MetricAttributes, MetricsHistogram, MetricsMeter, MetricsUpDownCounter } from './meter.js';

/**
 * Bucket upper bounds (seconds) of `http.server.request.duration`, as OpenTelemetry's HTTP
 * semantic conventions advise them.
 */
export const HTTP_DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
]);

/** Bucket upper bounds (bytes) of the body-size histograms: powers of four from 64 B to 64 MiB. */
export const HTTP_BODY_SIZE_BUCKETS: readonly number[] = Object.freeze([
  0, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
]);

/**
 * The methods the HTTP semantic conventions know (RFC 9110 §9 and PATCH, RFC 5789); any other is
 * recorded as `_OTHER`, so a client cannot make a series per invented method.
 */
const KNOWN_METHODS: readonly string[] = ['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE'];

/** Options of {@link HttpMetricsFeature}. */
export interface HttpMetricsFeatureOptions {
  /** Where the instruments are created: a {@link MetricsRegistry}, or an OpenTelemetry `Meter`. */
  readonly meter: MetricsMeter;
  /**
   * The request methods recorded by name, replacing the conventions' list (CONNECT, DELETE, GET,
   * HEAD, OPTIONS, PATCH, POST, PUT, TRACE); any other is `_OTHER`. Case-sensitive.
   */
  readonly knownMethods?: readonly string[];
}

const OPTIONS: ReadonlySet<string> = new Set(['meter', 'knownMethods']);

/**
 * HTTP server metrics named and labelled by OpenTelemetry's HTTP semantic conventions:
 * `http.server.request.duration` (histogram, seconds, the conventions' buckets),
 * `http.server.active_requests` (up-down counter), `http.server.request.body.size` and
 * `http.server.response.body.size` (histograms, bytes; recorded when the size is known).
 *
 * Attributes: `http.request.method` (unknown methods as `_OTHER`), `url.scheme`, and on all but
 * the active-requests counter `http.response.status_code`, `http.route` (the base path and the
 * matched template, `/api/users/{id}`; left out when nothing matched, never the raw path) and, for
 * a 5xx, `error.type`: the class name of the unmapped exception behind it (`TypeError`), else the
 * status code as a string (`"503"`). Attribute objects are built once per route, method and status
 * and reused, so a request records without building labels.
 *
 * The meter is the library's {@link MetricsRegistry} (then expose it with `metricsResource` or
 * `serveMetrics`) or an OpenTelemetry `Meter` (`metrics.getMeter('app')`), when the application
 * exports through the OpenTelemetry SDK. An application without this feature pays nothing.
 *
 * @example
 * const registry = new MetricsRegistry();
 * const app = new Application({ resources: [Users], providers: [new HttpMetricsFeature({ meter: registry })] });
 */
export class HttpMetricsFeature implements Feature {
  private readonly listener: HttpMetricsListener;

  constructor(options: HttpMetricsFeatureOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new TypeError('HttpMetricsFeature: options must be an object like { meter: new MetricsRegistry() }');
    }
    for (const key of Object.keys(options)) {
      if (!OPTIONS.has(key)) throw new TypeError(`HttpMetricsFeature: unknown option ${key}; the options are meter and knownMethods`);
    }
    const { meter, knownMethods = KNOWN_METHODS } = options;
    if (typeof meter !== 'object' || meter === null || typeof meter.createHistogram !== 'function') {
      throw new TypeError(
        'HttpMetricsFeature: option meter must create instruments (createHistogram, createUpDownCounter): pass a MetricsRegistry or an OpenTelemetry Meter',
      );
    }
    if (!Array.isArray(knownMethods) || !knownMethods.every((m) => typeof m === 'string' && m !== '')) {
      throw new TypeError("HttpMetricsFeature: option knownMethods must be an array of method names, e.g. ['GET', 'POST']");
    }
    this.listener = new HttpMetricsListener(meter, new Set(knownMethods));
  }

  setup(context: FeatureContext): void {
    context.register(this.listener);
  }
}

/** The labels prepared for one route (or for "nothing matched"): per scheme, method and status. */
class RouteLabels {
  /** Key: `url.scheme` then `http.request.method`; value: attributes per status code. */
  private readonly http = new Map<string, Map<number, MetricAttributes>>();
  private readonly https = new Map<string, Map<number, MetricAttributes>>();
  /** 5xx from an unmapped exception, by `status + class name` (rare: built on demand). */
  private readonly errors = new Map<string, MetricAttributes>();
  /** The last plain-http answer's method, status and attributes: a steady route skips the maps. */
  private lastMethod = '';
  private lastStatus = 0;
  private lastAttrs: MetricAttributes | undefined;

  constructor(private readonly route: string | undefined) {}

  attributes(scheme: 'http' | 'https', method: string, status: number, errorType: string | undefined): MetricAttributes {
    if (errorType !== undefined) {
      const key = `${scheme} ${method} ${status} ${errorType}`;
      let attrs = this.errors.get(key);
      if (attrs === undefined) this.errors.set(key, (attrs = this.make(scheme, method, status, errorType)));
      return attrs;
    }
    if (status === this.lastStatus && method === this.lastMethod && scheme === 'http') return this.lastAttrs!;
    const byMethod = scheme === 'https' ? this.https : this.http;
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    let attrs = byStatus.get(status);
    if (attrs === undefined) byStatus.set(status, (attrs = this.make(scheme, method, status, status >= 500 ? String(status) : undefined)));
    if (scheme === 'http') {
      this.lastMethod = method;
      this.lastStatus = status;
      this.lastAttrs = attrs;
    }
    return attrs;
  }

  private make(scheme: string, method: string, status: number, errorType: string | undefined): MetricAttributes {
    const attrs: Record<string, string | number> = { 'http.request.method': method, 'url.scheme': scheme };
    if (this.route !== undefined) attrs['http.route'] = this.route;
    attrs['http.response.status_code'] = status;
    if (errorType !== undefined) attrs['error.type'] = errorType;
    // Frozen: a registry may then find the series by the object's identity.
    return Object.freeze(attrs);
  }
}

/** The `RequestListener` behind {@link HttpMetricsFeature} (registered by it, not exported). */
class HttpMetricsListener implements RequestListener {
  private readonly duration: MetricsHistogram;
  private readonly active: MetricsUpDownCounter;
  private readonly requestSize: MetricsHistogram;
  private readonly responseSize: MetricsHistogram;
  private readonly routes = new Map<ResourceInfo, RouteLabels>();
  private readonly unmatched = new RouteLabels(undefined);
  /** Attributes of the active-requests counter, by scheme and method. */
  private readonly activeLabels = new Map<string, MetricAttributes>();
  /** The last request's method and scheme, its method attribute (`_OTHER` for an unknown one) and active-requests attributes. */
  private lastMethod = '';
  private lastScheme = '';
  private lastLabel = '';
  private lastActive: MetricAttributes | undefined;
  /** The last matched method and its labels (one comparison on a steady route). */
  private lastInfo: ResourceInfo | undefined;
  private lastLabels: RouteLabels | undefined;

  constructor(
    meter: MetricsMeter,
    private readonly knownMethods: ReadonlySet<string>,
  ) {
    this.duration = meter.createHistogram('http.server.request.duration', {
      description: 'Duration of HTTP server requests.',
      unit: 's',
      advice: { explicitBucketBoundaries: [...HTTP_DURATION_BUCKETS] },
    });
    this.active = meter.createUpDownCounter('http.server.active_requests', {
      description: 'Number of active HTTP server requests.',
      unit: '{request}',
    });
    this.requestSize = meter.createHistogram('http.server.request.body.size', {
      description: 'Size of HTTP server request bodies.',
      unit: 'By',
      advice: { explicitBucketBoundaries: [...HTTP_BODY_SIZE_BUCKETS] },
    });
    this.responseSize = meter.createHistogram('http.server.response.body.size', {
      description: 'Size of HTTP server response bodies.',
      unit: 'By',
      advice: { explicitBucketBoundaries: [...HTTP_BODY_SIZE_BUCKETS] },
    });
  }

  onRequest(ctx: ContainerRequestContext): (outcome: RequestOutcome) => void {
    const scheme = requestScheme(ctx);
    let method: string;
    let activeAttrs: MetricAttributes;
    if (ctx.method === this.lastMethod && scheme === this.lastScheme) {
      // The previous request's method and scheme: a steady client skips the set and the map.
      method = this.lastLabel;
      activeAttrs = this.lastActive!;
    } else {
      method = this.knownMethods.has(ctx.method) ? ctx.method : '_OTHER';
      const activeKey = scheme === 'https' ? `https ${method}` : method;
      let attrs = this.activeLabels.get(activeKey);
      if (attrs === undefined) {
        attrs = Object.freeze({ 'http.request.method': method, 'url.scheme': scheme });
        this.activeLabels.set(activeKey, attrs);
      }
      activeAttrs = attrs;
      this.lastMethod = ctx.method;
      this.lastScheme = scheme;
      this.lastLabel = method;
      this.lastActive = attrs;
    }
    this.active.add(1, activeAttrs);
    return (outcome) => {
      this.active.add(-1, activeAttrs);
      const attrs = this.labelsOf(ctx).attributes(scheme, method, outcome.status, unmappedErrorType(outcome));
      this.duration.record(outcome.durationMs / 1000, attrs);
      if (outcome.requestBodySize !== undefined) this.requestSize.record(outcome.requestBodySize, attrs);
      if (outcome.responseBodySize !== undefined) this.responseSize.record(outcome.responseBodySize, attrs);
    };
  }

  /** The matched method's labels, prepared at its first request (the route includes the base path). */
  private labelsOf(ctx: ContainerRequestContext): RouteLabels {
    const info = ctx.resourceInfo;
    if (info === undefined) return this.unmatched;
    if (info === this.lastInfo) return this.lastLabels!;
    let labels = this.routes.get(info);
    if (labels === undefined) this.routes.set(info, (labels = new RouteLabels(ctx.basePath + info.path)));
    this.lastInfo = info;
    this.lastLabels = labels;
    return labels;
  }
}

/**
 * `error.type` of a 5xx caused by an exception no mapper turned into a response: its class name
 * (the conventions allow the exception type); undefined otherwise, when the status code is used.
 */
function unmappedErrorType(outcome: RequestOutcome): string | undefined {
  if (outcome.status < 500) return undefined;
  const e = outcome.error;
  if (!(e instanceof Error) || e instanceof WebApplicationError) return undefined;
  const name = e.constructor.name;
  return name === '' ? undefined : name;
}
