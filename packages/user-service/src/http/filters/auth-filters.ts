import { inject, injectable } from 'tsyringe';
import { Priorities, Priority, SecurityContext, type ContainerRequestContext, type ContainerRequestFilter } from '@jaxrs-node/pipeline';
import type { Principal } from '../../domain/auth/principal.js';
import type { FailedAuthLimiter } from '@jaxrs-node/pipeline';
import { requireApiKey, requireBasic, requireBearer } from '../../domain/auth/guards.js';
import { parseBasicCredentials, type ApiKeyVerifier, type BasicAuthenticator } from '../../domain/auth/credentials.js';
import type { TokenService } from '../../domain/auth/bearer-tokens.js';
import type { ExternalTokens } from '../../domain/auth/external-tokens.js';
import { ApiKeyAuth, BasicAuth, BearerAuth } from '../bindings.js';
import { TOKENS } from '../di-tokens.js';

function authenticate(ctx: ContainerRequestContext, p: Principal, scheme: string): void {
  ctx.securityContext = SecurityContext.of({ name: p.name }, p.roles, scheme);
}

/**
 * Runs `check` under the failed-authentication limit (the library's FailedAuthLimiter) when credentials were
 * presented; a request without any gets its challenge (401) without being counted, since real
 * clients send credentials only after that challenge (RFC 9110 §11.6.1).
 */
function limited<T>(
  guard: FailedAuthLimiter | null,
  ctx: ContainerRequestContext,
  presented: boolean,
  account: string | undefined,
  check: () => T | Promise<T>,
): T | Promise<T> {
  if (guard === null || !presented) return check();
  return guard.attempt(guard.keys(ctx.remoteAddress, account), check);
}

/** HTTP Basic (RFC 7617): missing or wrong credentials → 401 + `WWW-Authenticate: Basic realm=...`. */
@injectable()
@BasicAuth()
@Priority(Priorities.AUTHENTICATION)
export class BasicAuthFilter implements ContainerRequestFilter {
  constructor(
    @inject(TOKENS.basic) private readonly basic: BasicAuthenticator,
    @inject(TOKENS.authFailures) private readonly failures: FailedAuthLimiter | null,
  ) {}
  async filterRequest(ctx: ContainerRequestContext): Promise<void> {
    const header = ctx.getHeader('authorization');
    const credentials = parseBasicCredentials(header);
    // Credentials that passed recently from this client are let through even while it is over its limit.
    const client = ctx.remoteAddress ?? '';
    const remembered = credentials !== null && this.basic.remembers(credentials.username, credentials.password, client);
    const principal = await limited(this.failures, ctx, header !== undefined && !remembered, credentials?.username, () =>
      requireBasic(this.basic, header),
    );
    if (credentials !== null) this.basic.passed(credentials.username, credentials.password, client);
    authenticate(ctx, principal, 'Basic');
  }
}

/**
 * Bearer (RFC 6750): missing → 401 + challenge; invalid, tampered or expired → 401 `invalid_token`.
 * The service's own tokens, and an external issuer's JWTs when one is configured (503 when its
 * key set cannot be fetched).
 */
@injectable()
@BearerAuth()
@Priority(Priorities.AUTHENTICATION)
export class BearerAuthFilter implements ContainerRequestFilter {
  constructor(
    @inject(TOKENS.tokens) private readonly tokens: TokenService,
    @inject(TOKENS.authFailures) private readonly failures: FailedAuthLimiter | null,
    @inject(TOKENS.externalTokens) private readonly external: ExternalTokens | null,
  ) {}
  filterRequest(ctx: ContainerRequestContext): void | Promise<void> {
    const header = ctx.getHeader('authorization');
    if (this.failures === null || header === undefined) {
      const principal = requireBearer(this.tokens, header, this.external);
      if (principal instanceof Promise) return principal.then((p) => authenticate(ctx, p, 'Bearer'));
      authenticate(ctx, principal, 'Bearer');
      return;
    }
    return this.failures
      .attempt(this.failures.keys(ctx.remoteAddress), () => requireBearer(this.tokens, header, this.external))
      .then((p) => authenticate(ctx, p, 'Bearer'));
  }
}

/** `X-API-Key`: missing → 401 + `WWW-Authenticate: API-Key`; present but wrong → 403 `Forbidden`. */
@injectable()
@ApiKeyAuth()
@Priority(Priorities.AUTHENTICATION)
export class ApiKeyFilter implements ContainerRequestFilter {
  constructor(
    @inject(TOKENS.apiKeys) private readonly keys: ApiKeyVerifier,
    @inject(TOKENS.authFailures) private readonly failures: FailedAuthLimiter | null,
  ) {}
  filterRequest(ctx: ContainerRequestContext): void | Promise<void> {
    const key = ctx.headers['x-api-key'];
    if (this.failures === null || key === undefined) {
      authenticate(ctx, requireApiKey(this.keys, key), 'API-Key');
      return;
    }
    return this.failures
      .attempt(this.failures.keys(ctx.remoteAddress), () => requireApiKey(this.keys, key))
      .then((p) => authenticate(ctx, p, 'API-Key'));
  }
}
