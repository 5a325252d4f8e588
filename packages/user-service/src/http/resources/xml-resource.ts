import { inject, injectable } from 'tsyringe';
import { ApiTags, GET, Path, PathParam, Produces } from '@jaxrs-node/pipeline';
import type { UserService } from '../../domain/users/service.js';
import { toUserRepresentation } from '../../domain/users/representation.js';
import { XmlUserView } from '../providers/xml-user-writer.js';
import { TOKENS } from '../di-tokens.js';
import { Id } from './ids.js';

/** `GET /api/xml/users/{id}` with `Accept: application/xml`: written by XmlUserWriter. */
@injectable()
@Path('/api/xml/users')
@ApiTags('users')
export class XmlUsersResource {
  constructor(@inject(TOKENS.users) private readonly users: UserService) {}

  @GET('{id}')
  @Produces('application/xml', 'text/xml')
  get(@PathParam('id', { type: Id }) id: number): XmlUserView {
    return new XmlUserView(toUserRepresentation(this.users.requireRecord(id)));
  }
}
