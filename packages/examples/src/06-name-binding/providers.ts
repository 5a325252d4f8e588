/** The providers of example 6: a name-bound timing filter and a bearer-token authentication filter. */
import {
  NameBinding,
  NotAuthorizedError,
  Priorities,
  Priority,
  SecurityContext,
  type ContainerRequestContext,
  type ContainerRequestFilter,
  type ContainerResponseContext,
  type ContainerResponseFilter,
} from '@jaxrs-node/pipeline';

/**
 * A binding decorator. On a provider class it BINDS the provider; on a resource class or method
 * it APPLIES the bound providers there. Methods without it pay nothing: the chains are built once
 * at start-up.
 */
export const Timed = NameBinding('Timed');

const STARTED = 'example.timed.start';

/**
 * Adds `Server-Timing: app;dur=<ms>` (W3C Server Timing) to `@Timed()` methods only. One class
 * can be both a request and a response filter; the start time is a request property, because
 * the single filter instance serves concurrent requests.
 */
@Timed()
@Priority(Priorities.USER)
export class ServerTimingFilter implements ContainerRequestFilter, ContainerResponseFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    ctx.setProperty(STARTED, process.hrtime.bigint());
  }

  filterResponse(req: ContainerRequestContext, res: ContainerResponseContext): void {
    const start = req.getProperty(STARTED) as bigint | undefined;
    // Undefined when an earlier filter aborted (e.g. 401): then nothing was timed.
    if (start === undefined) return;
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    res.addHeader('Server-Timing', `app;dur=${ms.toFixed(2)}`);
  }
}

/** Who a token stands for. */
export interface Account {
  name: string;
  roles: string[];
}

/** Demo tokens; a real service verifies a signed token or asks an identity provider. */
export const DEMO_TOKENS: Readonly<Record<string, Account>> = {
  'alice-token': { name: 'alice', roles: ['ADMIN', 'USER'] },
  'bob-token': { name: 'bob', roles: ['USER'] },
};

export const CHALLENGE = 'Bearer realm="examples"';

/**
 * Authentication only: it says WHO is calling (`ctx.securityContext`), never whether they may.
 * No `Authorization` header: anonymous, and `RolesAllowedFeature` decides (401 where a role is
 * required, nothing elsewhere). A token we do not know: 401 at once (RFC 6750 `invalid_token`).
 */
@Priority(Priorities.AUTHENTICATION)
export class BearerAuthFilter implements ContainerRequestFilter {
  constructor(private readonly tokens: Readonly<Record<string, Account>> = DEMO_TOKENS) {}

  filterRequest(ctx: ContainerRequestContext): void {
    const header = ctx.getHeader('authorization');
    if (header === undefined) return;
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const account = match === null ? undefined : Object.hasOwn(this.tokens, match[1]!) ? this.tokens[match[1]!] : undefined;
    if (account === undefined) throw new NotAuthorizedError(`${CHALLENGE}, error="invalid_token"`, 'Invalid or expired token');
    ctx.securityContext = SecurityContext.of({ name: account.name }, account.roles, 'Bearer');
  }
}
