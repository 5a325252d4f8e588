import { inject, injectable } from 'tsyringe';
import { ApiTags, GET, Path, Produces } from '@jaxrs-node/pipeline';
import type { UserService } from '../../domain/users/service.js';
import { ApiKeyAuth, BasicAuth, BearerAuth } from '../bindings.js';
import { TOKENS } from '../di-tokens.js';

/** `GET /api/admin/users`: HTTP Basic with the admin account (401 + `WWW-Authenticate: Basic`). */
@injectable()
@Path('/api/admin/users')
@Produces('application/json')
@BasicAuth()
@ApiTags('authenticated')
export class AdminUsersResource {
  constructor(@inject(TOKENS.users) private readonly users: UserService) {}
  @GET() list(): unknown {
    return this.users.list();
  }
}

/** `GET /api/protected/users`: a bearer token from `/api/auth/login`. */
@injectable()
@Path('/api/protected/users')
@Produces('application/json')
@BearerAuth()
@ApiTags('authenticated')
export class ProtectedUsersResource {
  constructor(@inject(TOKENS.users) private readonly users: UserService) {}
  @GET() list(): unknown {
    return this.users.list();
  }
}

/** `/api/external/**`: the only area that requires `X-API-Key` (401 missing, 403 wrong). */
@injectable()
@Path('/api/external/users')
@Produces('application/json')
@ApiKeyAuth()
@ApiTags('authenticated')
export class ExternalUsersResource {
  constructor(@inject(TOKENS.users) private readonly users: UserService) {}
  @GET() list(): unknown {
    return this.users.list();
  }
}
