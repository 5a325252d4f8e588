import { inject, injectable } from 'tsyringe';
import { Consumes, NotBlank, Path, POST, Produces } from '@jaxrs-node/pipeline';
import { loginFailed } from '../../domain/auth.js';
import type { BasicAuthenticator } from '../../domain/credentials.js';
import type { TokenService } from '../../domain/tokens.js';
import { RateLimited } from '../bindings.js';
import { TOKENS } from '../tokens.js';

/** The login body (SPEC "Login request"). */
export class LoginRequest {
  @NotBlank() username!: string;
  @NotBlank() password!: string;
}

/** `POST /api/auth/login`: the admin account's credentials in, a signed bearer token out. */
@injectable()
@Path('/api/auth')
@Produces('application/json')
@RateLimited()
export class AuthResource {
  constructor(
    @inject(TOKENS.basic) private readonly basic: BasicAuthenticator,
    @inject(TOKENS.tokens) private readonly tokens: TokenService,
  ) {}

  @POST('login')
  @Consumes('application/json')
  async login(body: LoginRequest): Promise<unknown> {
    // Validated in the pipeline's VALIDATION slot: both fields present, strings, not blank.
    const { username, password } = body;
    const principal = await this.basic.verifyLogin(username, password);
    if (principal === null) throw loginFailed();
    return { accessToken: this.tokens.issue(principal), tokenType: 'Bearer', expiresIn: this.tokens.ttlSeconds };
  }
}
