import { inject, injectable } from 'tsyringe';
import { BadRequestError, Consumes, Path, POST, Produces } from '@jaxrs-node/pipeline';
import { loginFailed } from '../../domain/auth.js';
import type { BasicAuthenticator } from '../../domain/credentials.js';
import type { TokenService } from '../../domain/tokens.js';
import type { AppConfig } from '../../domain/config.js';
import { RateLimited } from '../bindings.js';
import { TOKENS } from '../tokens.js';

/** `POST /api/auth/login`: the admin account's credentials in, a signed bearer token out. */
@injectable()
@Path('/api/auth')
@Produces('application/json')
@RateLimited()
export class AuthResource {
  constructor(
    @inject(TOKENS.basic) private readonly basic: BasicAuthenticator,
    @inject(TOKENS.tokens) private readonly tokens: TokenService,
    @inject(TOKENS.config) private readonly config: AppConfig,
  ) {}

  @POST('login')
  @Consumes('application/json')
  async login(body: unknown): Promise<unknown> {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new BadRequestError('Body must be a JSON object');
    const { username, password } = body as { username?: unknown; password?: unknown };
    const violations = [];
    if (typeof username !== 'string' || username === '') violations.push({ field: 'username', message: 'must be a non-empty string' });
    if (typeof password !== 'string' || password === '') violations.push({ field: 'password', message: 'must be a non-empty string' });
    if (violations.length > 0) throw new BadRequestError('Validation failed', { details: violations });
    const principal = await this.basic.verifyLogin(username, password);
    if (principal === null) throw loginFailed();
    return { accessToken: this.tokens.issue(principal), tokenType: 'Bearer', expiresIn: this.config.tokenTtlSeconds };
  }
}
