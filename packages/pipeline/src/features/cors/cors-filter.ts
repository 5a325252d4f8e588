import { Priorities } from '../../core/util/priorities.js';
import type { ContainerRequestFilter, ContainerResponseContext, ContainerResponseFilter } from '../../core/context/contracts.js';
import type { ContainerRequestContext } from '../../core/context/request-context.js';
import { Response, type OutgoingHeaders } from '../../core/http/response.js';
import { PreMatching, Priority } from '../../decorators/provider.js';
import { appendVary } from '../../core/http/vary.js';

/**
 * Options of {@link CorsFilter}. The defaults suit a public API without credentials (any origin, no
 * credentials); a browser-facing API should give an explicit `allowOrigin` list, and list
 * `Authorization` in `allowHeaders` when it sets `allowCredentials`.
 */
export interface CorsOptions {
  /** `'*'` (default), one origin, a list, or a predicate. Anything but `'*'` echoes the allowed request `Origin`. */
  allowOrigin?: string | readonly string[] | ((origin: string) => boolean);
  /** Default `['GET', 'POST', 'PUT', 'DELETE']`. */
  allowMethods?: readonly string[];
  /** Default `['X-API-Key', 'Content-Type']`. */
  allowHeaders?: readonly string[];
  /** Response headers scripts may read (`Access-Control-Expose-Headers`). */
  exposeHeaders?: readonly string[];
  /** Sends `Access-Control-Allow-Credentials: true`; needs an explicit origin (never `'*'`). */
  allowCredentials?: boolean;
  /** Seconds a browser may cache a preflight answer (`Access-Control-Max-Age`). */
  maxAge?: number;
}

/**
 * CORS (Fetch standard §3.2) as one provider: a `@PreMatching` request filter that answers
 * preflights, and a response filter that decorates every response.
 *
 * - Responses: with the default `allowOrigin: '*'`, every response gets
 *   `Access-Control-Allow-Origin: *`, `-Allow-Methods: GET, POST, PUT, DELETE` and
 *   `-Allow-Headers: X-API-Key, Content-Type`, unconditionally (a public API: any page may call it). With an
 *   origin list or predicate, the request `Origin` is echoed only when allowed (nothing is added
 *   otherwise) and `Vary: Origin` is always added, since the answer depends on it.
 * - Preflight (OPTIONS with `Origin` and `Access-Control-Request-Method`): aborted before matching
 *   with 204 plus the allow headers and `Access-Control-Max-Age`. Decision: a disallowed origin
 *   gets 204 WITHOUT CORS headers, not 403, and a method or header outside the lists gets the
 *   normal 204 with the lists. The browser enforces both (the preflight fails on missing or
 *   non-matching headers), so a 403 would add nothing but a second code path and a policy oracle;
 *   it is what the `cors` middleware of Express and most servers do.
 * - Any other OPTIONS passes through to the pipeline's automatic OPTIONS (`Allow`).
 *
 * Header values are computed once in the constructor; the per-response work is a few
 * property writes.
 *
 * @example
 * app.register(new CorsFilter({ allowOrigin: ['https://app.example'], allowCredentials: true, maxAge: 600 }));
 */
@PreMatching()
@Priority(Priorities.HEADER_DECORATOR)
export class CorsFilter implements ContainerRequestFilter, ContainerResponseFilter {
  /** undefined when any origin is allowed (`*`). */
  private readonly isAllowed: ((origin: string) => boolean) | undefined;
  private readonly methods: string | undefined;
  private readonly headers: string | undefined;
  private readonly expose: string | undefined;
  private readonly credentials: boolean;
  private readonly maxAge: string | undefined;

  constructor(options: CorsOptions = {}) {
    const { allowOrigin = '*', allowCredentials = false, maxAge } = options;
    this.isAllowed = originPredicate(allowOrigin);
    if (allowCredentials && this.isAllowed === undefined) {
      // Browsers reject `*` together with credentials (Fetch §3.2.5): fail at start-up instead.
      throw new TypeError('CORS allowCredentials needs an explicit allowOrigin list or predicate, not "*"');
    }
    if (maxAge !== undefined && (!Number.isSafeInteger(maxAge) || maxAge < 0)) {
      throw new RangeError(`CORS maxAge must be a non-negative integer of seconds, got ${maxAge}`);
    }
    this.methods = joinList(options.allowMethods ?? ['GET', 'POST', 'PUT', 'DELETE']);
    this.headers = joinList(options.allowHeaders ?? ['X-API-Key', 'Content-Type']);
    this.expose = joinList(options.exposeHeaders ?? []);
    this.credentials = allowCredentials;
    this.maxAge = maxAge === undefined ? undefined : String(maxAge);
  }

  filterRequest(ctx: ContainerRequestContext): void {
    if (ctx.method !== 'OPTIONS') return;
    const origin = ctx.getHeader('origin');
    if (origin === undefined || ctx.getHeader('access-control-request-method') === undefined) return;
    const response = new Response(204);
    const h = response.headers;
    if (this.allowOrigin(h, origin)) {
      if (this.methods !== undefined) h['access-control-allow-methods'] = this.methods;
      if (this.headers !== undefined) h['access-control-allow-headers'] = this.headers;
      if (this.maxAge !== undefined) h['access-control-max-age'] = this.maxAge;
    }
    ctx.abortWith(response);
  }

  filterResponse(request: ContainerRequestContext, response: ContainerResponseContext): void {
    const h = response.headers;
    if (!this.allowOrigin(h, request.getHeader('origin'))) return;
    if (this.methods !== undefined) h['access-control-allow-methods'] = this.methods;
    if (this.headers !== undefined) h['access-control-allow-headers'] = this.headers;
    if (this.expose !== undefined) h['access-control-expose-headers'] = this.expose;
  }

  /** Sets `Access-Control-Allow-Origin` (and credentials, Vary) when `origin` is allowed. */
  private allowOrigin(h: OutgoingHeaders, origin: string | undefined): boolean {
    if (this.isAllowed === undefined) {
      h['access-control-allow-origin'] = '*';
      return true;
    }
    appendVary(h, 'Origin');
    if (origin === undefined || !this.isAllowed(origin)) return false;
    h['access-control-allow-origin'] = origin;
    if (this.credentials) h['access-control-allow-credentials'] = 'true';
    return true;
  }
}

/** undefined for "any origin"; otherwise a membership test (origins compare case-insensitively: scheme and host are). */
function originPredicate(allow: NonNullable<CorsOptions['allowOrigin']>): ((origin: string) => boolean) | undefined {
  if (typeof allow === 'function') return allow;
  if (allow === '*') return undefined;
  const list = typeof allow === 'string' ? [allow] : allow;
  const allowed = new Set<string>();
  for (const o of list) {
    if (o === '*') throw new TypeError('CORS allowOrigin: use "*" alone, not inside a list');
    // An origin is scheme://host[:port] with no path (RFC 6454 §6.2); a trailing slash never matches.
    if (!/^(?:[a-z][a-z0-9+.-]*:\/\/[^/\s]+|null)$/i.test(o)) {
      throw new TypeError(`CORS allowOrigin: ${JSON.stringify(o)} is not an origin (scheme://host[:port])`);
    }
    allowed.add(o.toLowerCase());
  }
  return (origin) => allowed.has(origin.toLowerCase());
}

/** `'A, B'`, or undefined for an empty list (the header is then omitted). */
function joinList(list: readonly string[]): string | undefined {
  return list.length === 0 ? undefined : list.join(', ');
}
