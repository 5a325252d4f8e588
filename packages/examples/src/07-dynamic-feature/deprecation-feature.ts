import type {
  ContainerRequestContext,
  ContainerResponseContext,
  ContainerResponseFilter,
  DynamicFeature,
  FeatureContext,
  ResourceInfo,
} from '@jaxrs-node/pipeline';

/** Options of {@link DeprecationFeature}. */
export interface DeprecationOptions {
  /** Path templates starting with one of these are deprecated, e.g. `/api/v1/`. */
  prefixes: readonly string[];
  /** When the deprecated API was (or will be) deprecated. */
  deprecatedSince: Date;
  /** When it stops working. */
  sunset: Date;
  /** Where the replacement is documented. */
  successor?: string;
}

/**
 * Adds `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and a `Link` to the successor on responses
 * of deprecated methods. The header values are computed once, here, not per request.
 */
export class DeprecationHeaders implements ContainerResponseFilter {
  private readonly deprecation: string;
  private readonly sunset: string;
  private readonly link: string | undefined;

  constructor(options: DeprecationOptions) {
    // RFC 9745 §2.1: a Structured Fields Date, `@` + seconds since the epoch.
    this.deprecation = `@${Math.floor(options.deprecatedSince.getTime() / 1000)}`;
    this.sunset = options.sunset.toUTCString();
    this.link = options.successor === undefined ? undefined : `<${options.successor}>; rel="successor-version"`;
  }

  filterResponse(_req: ContainerRequestContext, res: ContainerResponseContext): void {
    res.setHeader('Deprecation', this.deprecation);
    res.setHeader('Sunset', this.sunset);
    if (this.link !== undefined) res.addHeader('Link', this.link);
  }
}

/**
 * A DynamicFeature: `configure` is called ONCE PER RESOURCE METHOD while the application is
 * built, with that method's `ResourceInfo` (class, method name, HTTP method, path template,
 * bindings). Registering a provider through `context` attaches it to that method only. The rule
 * here, "path under a deprecated prefix", is evaluated at start-up; requests to other methods
 * never see the filter, not even an `if`.
 */
export class DeprecationFeature implements DynamicFeature {
  /** `GET /api/v1/users` style entries, for logs and tests: where the filter went. */
  readonly deprecatedMethods: string[] = [];
  private readonly filter: DeprecationHeaders;

  constructor(private readonly options: DeprecationOptions) {
    // One shared instance: it holds only immutable configuration.
    this.filter = new DeprecationHeaders(options);
  }

  configure(resourceInfo: ResourceInfo, context: FeatureContext): void {
    if (!this.options.prefixes.some((p) => resourceInfo.path.startsWith(p))) return;
    this.deprecatedMethods.push(`${resourceInfo.httpMethod} ${resourceInfo.path}`);
    context.register(this.filter);
  }
}
