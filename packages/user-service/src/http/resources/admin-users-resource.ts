import { inject, injectable } from 'tsyringe';
import { ApiTags, GET, Path, Produces } from '@jaxrs-node/pipeline';
import type { UserService } from '../../domain/users/service.js';
import { BasicAuth } from '../bindings.js';
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
