import { inject, injectable } from 'tsyringe';
import { ApiTags, GET, Path, Produces } from '@jaxrs-node/pipeline';
import type { UserService } from '../../domain/users/service.js';
import { BearerAuth } from '../bindings.js';
import { TOKENS } from '../di-tokens.js';

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
