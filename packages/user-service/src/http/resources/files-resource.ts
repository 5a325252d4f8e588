// A value import on purpose: with `import type` the decorator metadata says `Function` and
// `@Context()` injects the pipeline's request context instead of the raw request stream.
import { IncomingMessage } from 'node:http';
import { inject, injectable } from 'tsyringe';
import { Consumes, Context, GET, Path, PathParam, POST, Produces, Response, UriInfo } from '@jaxrs-node/pipeline';
import { downloadHeaders, type FileStore } from '../../domain/files.js';
import { TOKENS } from '../tokens.js';

/**
 * Uploads (multipart, busboy, streamed to `DATA_DIR`) and downloads (streamed, attachment,
 * nosniff). The upload method takes the raw request: the pipeline reads no entity for it, so
 * the multipart stream goes straight to busboy with its limits (413 / 400 / 415, never a
 * silently truncated file).
 */
@injectable()
@Path('/api/files')
export class FilesResource {
  constructor(@inject(TOKENS.files) private readonly files: FileStore) {}

  @POST('upload')
  @Consumes('multipart/form-data')
  @Produces('application/json')
  async upload(@Context() req: IncomingMessage, @Context() uri: UriInfo): Promise<Response> {
    // On 413/400/415 the body may be partly unread: the pipeline then closes the connection.
    const record = await this.files.upload(req, req.headers);
    return Response.created(uri.baseUriBuilder().path(FilesResource).path(FilesResource, 'metadata').build(record.id))
      .entity(record)
      .build();
  }

  @GET('{id}')
  @Produces('application/json')
  metadata(@PathParam('id') id: string): unknown {
    return this.files.get(id);
  }

  @GET('{id}/download')
  async download(@PathParam('id') id: string): Promise<Response> {
    const file = await this.files.open(id);
    const r = Response.ok(file.stream);
    for (const [k, v] of Object.entries(downloadHeaders(file))) r.header(k, v);
    return r.build();
  }
}
