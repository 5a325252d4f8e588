import type {
  ContainerResponseContext,
  ContainerResponseFilter,
  DynamicFeature,
  Feature,
  FeatureContext,
} from '../../core/context/contracts.js';
import type { ContainerRequestContext } from '../../core/context/request-context.js';
import type { ResourceInfo } from '../../core/context/resource-info.js';
import { NameBinding } from '../../decorators/binding.js';
import { Priority } from '../../decorators/provider.js';

/**
 * The headers {@link SecurityHeadersFeature} adds, each a header value or `false` for none. The
 * defaults suit an API (Helmet's, less what only matters to HTML pages).
 */
export interface SecurityHeadersOptions {
  /** `X-Content-Type-Options`: `nosniff` (WHATWG Fetch §3.5), so no browser renders a JSON error or a download as HTML or script. */
  readonly contentTypeOptions?: 'nosniff' | false;
  /** `Referrer-Policy` (W3C Referrer Policy §3); default `no-referrer`. */
  readonly referrerPolicy?: string | false;
  /**
   * `Content-Security-Policy` (W3C CSP3); default `frame-ancestors 'none'`: an API response is
   * never framed. A response that already has its own policy (a documentation page) keeps it.
   */
  readonly contentSecurityPolicy?: string | false;
  /** `X-Frame-Options` (RFC 7034), for browsers without `frame-ancestors`; default `DENY`. */
  readonly frameOptions?: 'DENY' | 'SAMEORIGIN' | false;
  /** `Cross-Origin-Resource-Policy` (WHATWG Fetch §3.7); default `same-origin`. */
  readonly crossOriginResourcePolicy?: 'same-origin' | 'same-site' | 'cross-origin' | false;
  /**
   * `Strict-Transport-Security` (RFC 6797), sent only on a response to a request that came over
   * TLS (RFC 6797 §7.2: never over plain HTTP); default `max-age=31536000; includeSubDomains`.
   */
  readonly strictTransportSecurity?: string | false;
}

/**
 * Overrides {@link SecurityHeadersFeature}'s options on a method or class (a method's replaces
 * its class's): each field given replaces the application's, `false` removes that header; `false`
 * alone turns the feature off for the route.
 * @example
 * \@GET() \@Path('/embed') \@SecurityHeaders({ frameOptions: 'SAMEORIGIN', contentSecurityPolicy: "frame-ancestors 'self'" }) embed() { ... }
 */
export const SecurityHeaders = NameBinding<[SecurityHeadersOptions | false]>('SecurityHeaders');

const NAMES = {
  contentTypeOptions: 'x-content-type-options',
  referrerPolicy: 'referrer-policy',
  contentSecurityPolicy: 'content-security-policy',
  frameOptions: 'x-frame-options',
  crossOriginResourcePolicy: 'cross-origin-resource-policy',
  strictTransportSecurity: 'strict-transport-security',
} as const satisfies Record<keyof SecurityHeadersOptions, string>;

type Option = keyof SecurityHeadersOptions;

const DEFAULTS: Required<SecurityHeadersOptions> = {
  contentTypeOptions: 'nosniff',
  referrerPolicy: 'no-referrer',
  contentSecurityPolicy: "frame-ancestors 'none'",
  frameOptions: 'DENY',
  crossOriginResourcePolicy: 'same-origin',
  strictTransportSecurity: 'max-age=31536000; includeSubDomains',
};

/** One route's headers, resolved at start-up: `[name, value]` pairs, HSTS apart. */
interface Compiled {
  readonly always: ReadonlyArray<readonly [string, string]>;
  readonly hsts: string | undefined;
}

/** Checks `options` and merges them over `base`; `where` names the source in a message. */
function merge(base: Required<SecurityHeadersOptions>, options: unknown, where: string): Required<SecurityHeadersOptions> {
  if (typeof options !== 'object' || options === null) throw new TypeError(`${where}: options must be an object, or false`);
  const out: Record<string, string | false> = { ...base };
  for (const [name, value] of Object.entries(options)) {
    if (!(name in NAMES)) throw new TypeError(`${where}: unknown option ${name}; the options are ${Object.keys(NAMES).join(', ')}`);
    if (value === undefined) continue;
    // A control character (CR/LF above all) in a header value is response splitting (RFC 9110 §5.5).
    if (value !== false && (typeof value !== 'string' || value.trim() === '' || /[\x00-\x08\x0a-\x1f\x7f]/.test(value))) {
      throw new TypeError(`${where}: option ${name} must be a non-empty header value or false, got ${JSON.stringify(value)}`);
    }
    out[name] = value as string | false;
  }
  return out as unknown as Required<SecurityHeadersOptions>;
}

function compile(options: Required<SecurityHeadersOptions>): Compiled {
  const always: Array<readonly [string, string]> = [];
  for (const name of Object.keys(NAMES) as Option[]) {
    const value = options[name];
    if (value !== false && name !== 'strictTransportSecurity') always.push([NAMES[name], value]);
  }
  const hsts = options.strictTransportSecurity;
  return { always, hsts: hsts === false ? undefined : hsts };
}

const OFF: Compiled = { always: [], hsts: undefined };

/**
 * Security headers on every response, errors and 404s included, in the spirit of Helmet for an
 * API: `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`,
 * `Content-Security-Policy: frame-ancestors 'none'`, `X-Frame-Options: DENY`,
 * `Cross-Origin-Resource-Policy: same-origin`, and `Strict-Transport-Security` when the request
 * came over TLS (the socket is `encrypted`). Each is configurable (a value, or `false`) for the
 * application and, with `@SecurityHeaders(...)`, per route. A header the response already has is
 * left alone: the filter runs after every other response filter (priority 0; response filters run
 * highest first) and never overwrites, so a page that sets its own policy (the Swagger UI page of
 * `OpenApiFeature`) keeps it. The values are resolved at start-up; a request costs a few header
 * assignments.
 * @example
 * new Application({ resources: [Users], providers: [new SecurityHeadersFeature({ referrerPolicy: 'same-origin' })] });
 */
export class SecurityHeadersFeature implements Feature, DynamicFeature {
  readonly #options: Required<SecurityHeadersOptions>;
  readonly #filter: SecurityHeadersFilter;

  constructor(options: SecurityHeadersOptions = {}) {
    this.#options = merge(DEFAULTS, options, 'SecurityHeadersFeature');
    this.#filter = new SecurityHeadersFilter(compile(this.#options));
  }

  setup(context: FeatureContext): void {
    context.register(this.#filter, { priority: 0 });
  }

  configure(info: ResourceInfo): void {
    const own = info.getBinding(SecurityHeaders);
    if (own === undefined) return;
    const where = `@SecurityHeaders on ${info.resourceClass.name}.${info.methodName}`;
    const [options] = own;
    this.#filter.routes.set(info, options === false ? OFF : compile(merge(this.#options, options, where)));
  }
}

/** The global response filter {@link SecurityHeadersFeature} registers (not exported). */
@Priority(0)
class SecurityHeadersFilter implements ContainerResponseFilter {
  /** Routes with their own `@SecurityHeaders`, filled at start-up. */
  readonly routes = new Map<ResourceInfo, Compiled>();

  constructor(private readonly defaults: Compiled) {}

  filterResponse(req: ContainerRequestContext, res: ContainerResponseContext): void {
    const info = req.resourceInfo;
    const compiled = (info !== undefined && this.routes.size > 0 ? this.routes.get(info) : undefined) ?? this.defaults;
    const headers = res.headers;
    for (const [name, value] of compiled.always) if (headers[name] === undefined) headers[name] = value;
    if (compiled.hsts !== undefined && headers['strict-transport-security'] === undefined) {
      if ((req.raw.socket as { encrypted?: boolean } | null | undefined)?.encrypted === true)
        headers['strict-transport-security'] = compiled.hsts;
    }
  }
}
