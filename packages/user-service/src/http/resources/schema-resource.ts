import { ApiTags, GET, Path, Produces } from '@jaxrs-node/pipeline';
import { USER_JSON_SCHEMA } from '../../domain/users/schema.js';

/** `GET /api/schema/user`: the JSON Schema every user representation validates against. */
@Path('/api/schema/user')
@ApiTags('misc')
export class SchemaResource {
  @GET()
  @Produces('application/schema+json', 'application/json')
  get(): unknown {
    return USER_JSON_SCHEMA;
  }
}
