import { ApiTags, GET, Path, Produces } from '@jaxrs-node/pipeline';
import { formatTimestamp } from '../../domain/users/model.js';
import { Enriched } from '../bindings.js';

/** The entity of `/api/custom-data`; `customField` is added by CustomFieldInterceptor. */
export class CustomData {
  constructor(
    readonly message: string,
    readonly generatedAt: string,
  ) {}
}

/** `GET /api/custom-data`: see CustomFieldInterceptor (a name-bound writer interceptor). */
@Path('/api/custom-data')
@Enriched()
@ApiTags('misc')
export class CustomDataResource {
  @GET()
  @Produces('application/json')
  get(): CustomData {
    return new CustomData('Custom data produced by the resource', formatTimestamp(new Date()));
  }
}
