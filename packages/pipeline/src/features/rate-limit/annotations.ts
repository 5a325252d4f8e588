import type { NameBindingDecorator } from '../../decorators/binding.js';
import { NameBinding } from '../../decorators/binding.js';
import { classMeta, methodMeta } from '../../core/model/metadata.js';

/** One window of a route's quota: at most `limit` requests per `windowMs` for each client key. */
export interface RateLimitWindow {
  /** Requests allowed per window, an integer >= 1. */
  readonly limit: number;
  /** Window length in ms, an integer >= 1 (the draft's headers show it in whole seconds, rounded up). */
  readonly windowMs: number;
  /**
   * The policy's name in the `RateLimit-Policy` and `RateLimit` fields: a token of letters, digits
   * and `-_.`; default `default` for the feature's default windows, `w<seconds>` for a route's.
   * Names are unique per route.
   */
  readonly name?: string;
}

/**
 * Limits the method (or every method of the class) to these windows per client key, counted for
 * this route alone; repeat it (or pass several windows) for several windows, e.g. a burst and a
 * sustained rate: a request is admitted only when every window admits it. A method's
 * `@RateLimit` replaces its class's, and both replace {@link RateLimitFeature}'s default. Enforced
 * by {@link RateLimitFeature}; values are checked by `build()` (`PIPE_RATE_LIMIT_INVALID`).
 * @example
 * \@POST() \@Path('/login') \@RateLimit({ limit: 5, windowMs: 1_000 }, { limit: 30, windowMs: 60_000 }) login() { ... }
 */
export const RateLimit: NameBindingDecorator<RateLimitWindow[]> = Object.defineProperty(
  (...windows: RateLimitWindow[]) =>
    (target: object, propertyKey?: string | symbol): void => {
      const bindings =
        propertyKey === undefined
          ? classMeta(target).bindings
          : methodMeta((target as { constructor: object }).constructor, String(propertyKey)).bindings;
      const key = RateLimit as unknown as NameBindingDecorator;
      // Decorators apply bottom-up: prepend, so the windows keep their source order.
      bindings.set(key, [...windows, ...(bindings.get(key) ?? [])]);
    },
  'bindingName',
  { value: 'RateLimit' },
) as NameBindingDecorator<RateLimitWindow[]>;

/**
 * Exempts the method (or class) from {@link RateLimitFeature}'s default windows, e.g. a health
 * probe. A `@RateLimit` on the same method still applies.
 * @example
 * \@GET() \@Path('/health') \@NoRateLimit() health() { ... }
 */
export const NoRateLimit = NameBinding('NoRateLimit');
