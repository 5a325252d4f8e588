import { inject, injectable } from 'tsyringe';
import { Priorities, Priority, SecurityContext, type ContainerRequestContext, type ContainerRequestFilter } from '@jaxrs-node/pipeline';
import type { Principal } from '../../domain/auth.js';
import { requireApiKey, requireBasic, requireBearer } from '../../domain/auth-guards.js';
import type { ApiKeyVerifier, BasicAuthenticator } from '../../domain/credentials.js';
import type { TokenService } from '../../domain/tokens.js';
import { ApiKeyAuth, BasicAuth, BearerAuth } from '../bindings.js';
import { TOKENS } from '../tokens.js';

function authenticate(ctx: ContainerRequestContext, p: Principal, scheme: string): void {
  ctx.securityContext = SecurityContext.of({ name: p.name }, p.roles, scheme);
}

/** HTTP Basic (RFC 7617): missing or wrong credentials → 401 + `WWW-Authenticate: Basic realm=...`. */
@injectable()
@BasicAuth()
@Priority(Priorities.AUTHENTICATION)
export class BasicAuthFilter implements ContainerRequestFilter {
  constructor(@inject(TOKENS.basic) private readonly basic: BasicAuthenticator) {}
  async filterRequest(ctx: ContainerRequestContext): Promise<void> {
    authenticate(ctx, await requireBasic(this.basic, ctx.getHeader('authorization')), 'Basic');
  }
}

/** Bearer (RFC 6750): missing → 401 + challenge; invalid, tampered or expired → 401 `invalid_token`. */
@injectable()
@BearerAuth()
@Priority(Priorities.AUTHENTICATION)
export class BearerAuthFilter implements ContainerRequestFilter {
  constructor(@inject(TOKENS.tokens) private readonly tokens: TokenService) {}
  filterRequest(ctx: ContainerRequestContext): void {
    authenticate(ctx, requireBearer(this.tokens, ctx.getHeader('authorization')), 'Bearer');
  }
}

/** `X-API-Key`: missing → 401 + `WWW-Authenticate: API-Key`; present but wrong → 403 `Forbidden`. */
@injectable()
@ApiKeyAuth()
@Priority(Priorities.AUTHENTICATION)
export class ApiKeyFilter implements ContainerRequestFilter {
  constructor(@inject(TOKENS.apiKeys) private readonly keys: ApiKeyVerifier) {}
  filterRequest(ctx: ContainerRequestContext): void {
    authenticate(ctx, requireApiKey(this.keys, ctx.headers['x-api-key']), 'API-Key');
  }
}
