import { inject, injectable } from 'tsyringe';
import { ApiTags, Consumes, Context, NotBlank, Path, POST, Produces, ContainerRequestContext } from '@jaxrs-node/pipeline';
import type { FailedAuthLimiter } from '@jaxrs-node/pipeline';
import { loginFailed } from '../../domain/auth/principal.js';
import type { BasicAuthenticator } from '../../domain/auth/credentials.js';
import type { TokenService } from '../../domain/auth/bearer-tokens.js';
import { RateLimited } from '../bindings.js';
import { TOKENS } from '../di-tokens.js';

/** The login body (`docs/api.md` rule 31). */
export class LoginRequest {
  @NotBlank() username!: string;
  @NotBlank() password!: string;
}

/** `POST /api/auth/login`: the admin account's credentials in, a signed bearer token out. */
/** The body of a successful login (`docs/api.md` rule 31). */
export interface TokenAnswer {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
}

@injectable()
@Path('/api/auth')
@Produces('application/json')
@RateLimited()
@ApiTags('auth')
export class AuthResource {
  constructor(
    @inject(TOKENS.basic) private readonly basic: BasicAuthenticator,
    @inject(TOKENS.tokens) private readonly tokens: TokenService,
    @inject(TOKENS.authFailures) private readonly failures: FailedAuthLimiter | null,
  ) {}

  @POST('login')
  @Consumes('application/json')
  async login(body: LoginRequest, @Context() ctx: ContainerRequestContext): Promise<TokenAnswer> {
    // Validated in the pipeline's VALIDATION slot: both fields present, strings, not blank.
    const { username, password } = body;
    const verify = async () => {
      const p = await this.basic.verifyLogin(username, password);
      if (p === null) throw loginFailed();
      return p;
    };
    // Failed logins count per client and per account, as every other scheme's (the library's FailedAuthLimiter).
    const client = ctx.remoteAddress ?? '';
    const principal =
      this.failures === null || this.basic.remembers(username, password, client)
        ? await verify()
        : await this.failures.attempt(this.failures.keys(ctx.remoteAddress, username), verify);
    this.basic.passed(username, password, client);
    return { accessToken: this.tokens.issue(principal), tokenType: 'Bearer', expiresIn: this.tokens.ttlSeconds };
  }
}
