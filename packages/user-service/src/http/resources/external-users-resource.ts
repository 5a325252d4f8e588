import { inject, injectable } from 'tsyringe';
import { ApiTags, GET, Path, Produces } from '@jaxrs-node/pipeline';
import type { UserService } from '../../domain/users/service.js';
import { ApiKeyAuth } from '../bindings.js';
import { TOKENS } from '../di-tokens.js';

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
