/**
 * The resource both pipeline servers serve: `GET /api/users/{id}` with the id converted to a
 * number by the pipeline (a non-number is its 400), answering the shared user object.
 */
import 'reflect-metadata';
import { GET, Path, PathParam } from '@jaxrs-node/pipeline';
import { userOf, type User } from './common.js';

/** `GET /api/users/{id}`: a synchronous method, as most real resource methods are not. */
@Path('/api/users')
export class UserResource {
  @GET()
  @Path('{id}')
  get(@PathParam('id') id: number): User {
    return userOf(id);
  }
}
