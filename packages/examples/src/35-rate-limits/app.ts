import 'reflect-metadata';
import {
  Application,
  ContainerRequestContext,
  Context,
  FailedAuthLimiter,
  GET,
  NoRateLimit,
  NotAuthorizedError,
  Path,
  POST,
  Priorities,
  Priority,
  Produces,
  RateLimit,
  RateLimitFeature,
  RateLimitKeys,
  SecurityContext,
  type ContainerRequestFilter,
} from '@jaxrs-node/pipeline';

/** Failed logins: 3 per client address and per account a minute, then 429 before any check (a new one per app). */
let failures = new FailedAuthLimiter({ limit: 3, windowMs: 60_000 });

/**
 * `Authorization: Bearer <name>` authenticates as `<name>` (a stand-in for a real scheme), so the
 * rate-limit key can be the principal.
 */
@Priority(Priorities.AUTHENTICATION)
class DemoBearer implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    const name = /^Bearer ([a-z]+)$/.exec(ctx.getHeader('authorization') ?? '')?.[1];
    if (name !== undefined) ctx.securityContext = SecurityContext.of({ name }, ['USER'], 'Bearer');
  }
}

@Path('/')
class Api {
  /** Under the default window: 5 a minute per principal (else per address), shared with /quotes. */
  @GET('books') books(): string[] {
    return ['Dune', 'Emma'];
  }
  @GET('quotes') quotes(): string[] {
    return ['Less is more'];
  }
  /** Its own two windows: 2 in 10 seconds and 4 a minute, counted for this route alone. */
  @GET('search')
  @RateLimit({ limit: 2, windowMs: 10_000, name: 'burst' }, { limit: 4, windowMs: 60_000, name: 'minute' })
  search(): string[] {
    return [];
  }
  /** Never limited. */
  @GET('health') @NoRateLimit() @Produces('text/plain') health(): string {
    return 'UP';
  }
  /** `POST /login?user=..&password=..`: `secret` is the password; wrong guesses are limited. */
  @POST('login') @NoRateLimit() @Produces('text/plain') async login(@Context() ctx: ContainerRequestContext): Promise<string> {
    const user = ctx.query.get('user') ?? '';
    const password = ctx.query.get('password') ?? '';
    return failures.attempt(failures.keys(ctx.remoteAddress, user), () => {
      if (password !== 'secret') throw new NotAuthorizedError('Bearer realm="demo"', 'Wrong user or password');
      return user;
    });
  }
}

/** The API with rate limits per principal and route, and failed-login limits. */
export function createApp(): Application {
  failures = new FailedAuthLimiter({ limit: 3, windowMs: 60_000 });
  return new Application({
    resources: [Api],
    providers: [
      DemoBearer,
      new RateLimitFeature({
        key: RateLimitKeys.principal,
        default: { limit: 5, windowMs: 60_000 },
        headers: { legacy: 'X-Rate-Limit' },
      }),
    ],
  });
}
