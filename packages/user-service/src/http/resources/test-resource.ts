import { ApiTags, GET, Path, Produces } from '@jaxrs-node/pipeline';

/** `GET /test`: plain text. */
@Path('/test')
@ApiTags('misc')
export class TestResource {
  @GET() @Produces('text/plain') text(): string {
    return 'Test endpoint OK';
  }
}
