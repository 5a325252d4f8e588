import type {
  ContainerRequestFilter,
  ContainerResponseContext,
  ContainerResponseFilter,
  DynamicFeature,
  FeatureContext,
} from '../../core/context/contracts.js';
import type { ContainerRequestContext } from '../../core/context/request-context.js';
import type { NameBindingDecorator, ResourceInfo } from '../../core/context/resource-info.js';
import { TooManyRequestsError } from '../../core/http/errors.js';
import { Priorities } from '../../core/util/priorities.js';
import { requireBindingProvider } from '../../core/internal/extensions.js';
import { NoRateLimit, RateLimit, type RateLimitWindow } from './annotations.js';
import { RateLimitConfigurationError } from './errors.js';
import type { RateLimitKey } from './keys.js';
import type { RateLimitDecision } from './sliding-window.js';
import { MemoryRateLimitStore, type RateLimitPolicy, type RateLimitStore } from './store.js';

/** Which rate-limit headers the responses of a limited route carry. */
export interface RateLimitHeadersOptions {
  /**
   * `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers-09 §3, §4: Structured
   * Field lists, e.g. `"default";q=600;w=60` and `"default";r=599;t=42`); default true.
   */
  readonly draft?: boolean;
  /**
   * Also the pre-draft `<prefix>-Limit`, `-Remaining` and `-Reset` (of the window with the fewest
   * requests left): `'X-Rate-Limit'` (the reference server's names) or `'X-RateLimit'` (GitHub's);
   * default false.
   */
  readonly legacy?: 'X-Rate-Limit' | 'X-RateLimit' | false;
}

/** Options of {@link RateLimitFeature}. */
export interface RateLimitFeatureOptions {
  /** Whose quota a request counts against; required as soon as any route is limited. See `RateLimitKeys`. */
  readonly key?: RateLimitKey;
  /**
   * Windows every route gets unless it has its own `@RateLimit` or `@NoRateLimit` (or, with
   * `binding`, only the routes carrying that binding). Their counts are shared by all those routes.
   */
  readonly default?: RateLimitWindow | readonly RateLimitWindow[];
  /** Apply the default windows only to routes carrying this name binding (e.g. your `@RateLimited()`). */
  readonly binding?: NameBindingDecorator<never>;
  /** Where the counts live; default a {@link MemoryRateLimitStore} of 10 000 keys per policy. */
  readonly store?: RateLimitStore;
  /** The headers of limited routes' responses; default the draft's two, no legacy names. */
  readonly headers?: RateLimitHeadersOptions;
  /** The filter's priority; default `Priorities.AUTHORIZATION`, after authentication filters, so the key can be the principal. */
  readonly priority?: number;
  /** The 429's message (the error body's `message`); default `Rate limit exceeded, retry later`. */
  readonly message?: string;
}

const OPTIONS: ReadonlySet<string> = new Set(['key', 'default', 'binding', 'store', 'headers', 'priority', 'message']);
const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const DECISIONS = 'jaxrs-node.rateLimit.decisions';

/** The header names and fixed values of one route, computed at start-up. */
interface RouteHeaders {
  /** `RateLimit-Policy`: the same on every response of the route. */
  readonly policy: string | undefined;
  readonly draft: boolean;
  /** Lower-case legacy names: limit, remaining, reset. */
  readonly legacy: readonly [string, string, string] | undefined;
}

/**
 * Rate limits per client key and route (the "rate limits as a feature"; RFC 6585 §4).
 * A route is limited by its `@RateLimit` windows, else by the `default` windows (on every route,
 * or with `binding` on the routes carrying it), unless it has `@NoRateLimit`. Each window is a
 * sliding-window counter (the current fixed window plus the previous one weighted by its overlap)
 * in the `store`. A request is admitted when every window of its route admits it, and only then
 * counted; otherwise it is answered 429 with `Retry-After` (whole seconds >= 1 until a request
 * would be admitted), code `PIPE_RATE_LIMITED`, in the application's error body. Every response
 * of a limited route, 429s included, carries `RateLimit-Policy` and `RateLimit` (and the legacy
 * names when asked). Routes without a window get no filter: nothing runs for them.
 *
 * `build()` refuses a window whose `limit` or `windowMs` is not a positive integer or whose name
 * is not a token or repeats (`PIPE_RATE_LIMIT_INVALID`), and a limited route without `key`
 * (`PIPE_RATE_LIMIT_NO_KEY`).
 * @example
 * new Application({
 *   resources: [Users],
 *   providers: [new RateLimitFeature({ key: RateLimitKeys.principal, default: { limit: 600, windowMs: 60_000 } })],
 * });
 */
export class RateLimitFeature implements DynamicFeature {
  readonly #key: RateLimitKey | undefined;
  readonly #defaults: readonly RateLimitPolicy[];
  readonly #binding: NameBindingDecorator<never> | undefined;
  readonly #store: RateLimitStore;
  readonly #draft: boolean;
  readonly #legacy: readonly [string, string, string] | undefined;
  readonly #priority: number;
  readonly #message: string;
  #defaultHeaders: RouteHeaders | undefined;

  constructor(options: RateLimitFeatureOptions = {}) {
    if (typeof options !== 'object' || options === null) throw new TypeError('RateLimitFeature: options must be an object');
    for (const name of Object.keys(options)) {
      if (!OPTIONS.has(name)) throw new TypeError(`RateLimitFeature: unknown option ${name}; the options are ${[...OPTIONS].join(', ')}`);
    }
    const { key, binding, store = new MemoryRateLimitStore(), headers = {}, priority = Priorities.AUTHORIZATION } = options;
    if (key !== undefined && typeof key !== 'function')
      throw new TypeError('RateLimitFeature: option key must be a function of the request');
    if (typeof store?.take !== 'function' || typeof store.peek !== 'function') {
      throw new TypeError('RateLimitFeature: option store must implement RateLimitStore (take and peek)');
    }
    if (!Number.isFinite(priority)) throw new TypeError('RateLimitFeature: option priority must be a number');
    const windows = options.default === undefined ? [] : Array.isArray(options.default) ? options.default : [options.default];
    this.#key = key;
    this.#defaults = policies(windows as readonly RateLimitWindow[], 'default', 'RateLimitFeature option default');
    this.#binding = binding;
    this.#store = store;
    this.#draft = headers.draft ?? true;
    const legacy = headers.legacy ?? false;
    if (legacy !== false && legacy !== 'X-Rate-Limit' && legacy !== 'X-RateLimit') {
      throw new TypeError(`RateLimitFeature: option headers.legacy must be 'X-Rate-Limit', 'X-RateLimit' or false, got ${String(legacy)}`);
    }
    const prefix = legacy === false ? undefined : legacy.toLowerCase();
    this.#legacy = prefix === undefined ? undefined : [`${prefix}-limit`, `${prefix}-remaining`, `${prefix}-reset`];
    this.#priority = priority;
    this.#message = options.message ?? 'Rate limit exceeded, retry later';
  }

  configure(info: ResourceInfo, context: FeatureContext): void {
    const where = `${info.resourceClass.name}.${info.methodName}`;
    const own = info.getBinding(RateLimit);
    let route: readonly RateLimitPolicy[];
    let headers: RouteHeaders;
    if (own !== undefined) {
      if (own.length === 0) {
        throw new RateLimitConfigurationError(
          'PIPE_RATE_LIMIT_INVALID',
          `@RateLimit on ${where} has no window: give one, e.g. @RateLimit({ limit: 100, windowMs: 60_000 }), or use @NoRateLimit()`,
        );
      }
      route = policies(own, `${where} ${info.httpMethod}`, `@RateLimit on ${where}`);
      headers = this.#headers(route);
    } else if (
      this.#defaults.length > 0 &&
      !info.hasBinding(NoRateLimit) &&
      (this.#binding === undefined || info.hasBinding(this.#binding))
    ) {
      route = this.#defaults;
      headers = this.#defaultHeaders ??= this.#headers(route);
    } else return;
    if (route.length === 0) return;
    const key = this.#key;
    if (key === undefined) {
      throw new RateLimitConfigurationError(
        'PIPE_RATE_LIMIT_NO_KEY',
        `${where} is rate limited but RateLimitFeature has no key: pass { key: RateLimitKeys.principal } (or address, apiKey(), your own function)`,
      );
    }
    context.register(new RateLimitFilter(key, route, this.#store, headers, this.#message), { priority: this.#priority });
  }

  #headers(route: readonly RateLimitPolicy[]): RouteHeaders {
    // RateLimit-Policy's items are the policies' names with q (quota) and w (window, seconds): draft-09 §3.1.
    const policy = this.#draft ? route.map((p) => `"${p.name}";q=${p.limit};w=${Math.ceil(p.windowMs / 1000)}`).join(', ') : undefined;
    return { policy, draft: this.#draft, legacy: this.#legacy };
  }
}

/** The windows as policies, checked; throws `PIPE_RATE_LIMIT_INVALID` naming `where`. */
function policies(windows: readonly RateLimitWindow[], scope: string, where: string): readonly RateLimitPolicy[] {
  const names = new Set<string>();
  return Object.freeze(
    windows.map((w, i): RateLimitPolicy => {
      const bad = (what: string): never => {
        throw new RateLimitConfigurationError('PIPE_RATE_LIMIT_INVALID', `${where}: window ${i + 1} ${what}`);
      };
      if (typeof w !== 'object' || w === null) bad('must be an object like { limit: 100, windowMs: 60_000 }');
      if (!Number.isSafeInteger(w.limit) || w.limit < 1) bad(`has limit ${String(w.limit)}: it must be an integer >= 1`);
      if (!Number.isSafeInteger(w.windowMs) || w.windowMs < 1) bad(`has windowMs ${String(w.windowMs)}: it must be an integer >= 1 (ms)`);
      const name = w.name ?? (scope === 'default' && windows.length === 1 ? 'default' : `w${Math.ceil(w.windowMs / 1000)}`);
      if (typeof name !== 'string' || !NAME.test(name)) bad(`has name ${JSON.stringify(name)}: use letters, digits and -_. (at most 64)`);
      if (names.has(name)) bad(`repeats the name ${JSON.stringify(name)}: give each window of a route its own name`);
      names.add(name);
      return Object.freeze({ id: `${scope}#${name}`, name, limit: w.limit, windowMs: w.windowMs });
    }),
  );
}

/** The per-route filter {@link RateLimitFeature} registers (not exported). */
class RateLimitFilter implements ContainerRequestFilter, ContainerResponseFilter {
  constructor(
    private readonly key: RateLimitKey,
    private readonly policies: readonly RateLimitPolicy[],
    private readonly store: RateLimitStore,
    private readonly headers: RouteHeaders,
    private readonly message: string,
  ) {}

  filterRequest(ctx: ContainerRequestContext): void | Promise<void> {
    const key = this.key(ctx);
    const policies = this.policies;
    if (policies.length === 1) {
      const decision = this.store.take(key, policies[0]!);
      if (decision instanceof Promise) return decision.then((d) => this.apply(ctx, [d]));
      return this.apply(ctx, [decision]);
    }
    return this.several(ctx, key);
  }

  /**
   * Several windows: every one is asked first without counting, so a request one window refuses
   * does not use up another's quota; then each counts it.
   */
  private async several(ctx: ContainerRequestContext, key: string): Promise<void> {
    const store = this.store;
    const peeked = await Promise.all(this.policies.map(async (p) => store.peek(key, p)));
    if (peeked.some((d) => !d.allowed)) {
      // Nothing is counted: a window that would have admitted it still has its peeked request left.
      return this.apply(
        ctx,
        peeked.map((d) => (d.allowed ? { ...d, remaining: d.remaining + 1 } : d)),
      );
    }
    const taken = await Promise.all(this.policies.map(async (p) => store.take(key, p)));
    this.apply(ctx, taken);
  }

  private apply(ctx: ContainerRequestContext, decisions: readonly RateLimitDecision[]): void {
    ctx.setProperty(DECISIONS, decisions);
    let retryAfter = 0;
    for (const d of decisions) if (!d.allowed) retryAfter = Math.max(retryAfter, d.retryAfterSeconds);
    if (retryAfter > 0) throw new TooManyRequestsError(retryAfter, this.message, { code: 'PIPE_RATE_LIMITED' });
  }

  filterResponse(req: ContainerRequestContext, res: ContainerResponseContext): void {
    const decisions = req.getProperty(DECISIONS) as readonly RateLimitDecision[] | undefined;
    if (decisions === undefined) return;
    const { policy, draft, legacy } = this.headers;
    if (policy !== undefined) res.headers['ratelimit-policy'] = policy;
    if (draft) {
      // RateLimit's items: r (remaining quota) and t (seconds until it is restored), draft-09 §4.1.
      res.headers.ratelimit = decisions.map((d, i) => `"${this.policies[i]!.name}";r=${d.remaining};t=${resetOf(d)}`).join(', ');
    }
    if (legacy !== undefined) {
      let tightest = decisions[0]!;
      for (const d of decisions) if (!d.allowed || d.remaining < tightest.remaining) tightest = d;
      res.headers[legacy[0]] = tightest.limit;
      res.headers[legacy[1]] = tightest.remaining;
      res.headers[legacy[2]] = resetOf(tightest);
    }
  }
}

/** Seconds until the window resets; once refused, the sliding window frees a slot only after Retry-After, so never earlier. */
function resetOf(d: RateLimitDecision): number {
  return d.allowed ? d.resetSeconds : Math.max(d.resetSeconds, d.retryAfterSeconds);
}

// @RateLimit without RateLimitFeature limits nothing: reported at build() (a warning, even with
// other DynamicFeatures registered), since leaving the feature out is how limits are turned off.
requireBindingProvider({
  binding: RateLimit,
  actedOnBy: RateLimitFeature,
  fix: 'register new RateLimitFeature({ key: RateLimitKeys.principal }) in providers to enforce it, or remove the decorator',
  severity: 'warning',
});
