import { inject, injectable } from 'tsyringe';
import {
  ApiTags,
  Consumes,
  ContainerRequestContext,
  Context,
  GET,
  Path,
  PathParam,
  POST,
  Produces,
  Response,
  UriInfo,
} from '@jaxrs-node/pipeline';
import { MultipartBody } from '@jaxrs-node/pipeline/multipart';
import { downloadHeaders, type FileRecord, type FileStore } from '../../domain/files/service.js';
import { UploadLimited } from '../bindings.js';
import { TOKENS } from '../di-tokens.js';

/**
 * Uploads (multipart, read part by part by the pipeline's multipart reader, streamed to
 * `DATA_DIR`) and downloads (a `FileBody`: attachment, nosniff, byte ranges). The reader checks the media type,
 * boundary and declared length before the method runs (415 / 400 / 413) and holds every part to
 * the upload limits while it streams (413 / 400, never a silently truncated file).
 */
@injectable()
@Path('/api/files')
@ApiTags('files')
export class FilesResource {
  constructor(@inject(TOKENS.files) private readonly files: FileStore) {}

  @POST('upload')
  @UploadLimited()
  @Consumes('multipart/form-data')
  @Produces('application/json')
  async upload(parts: MultipartBody, @Context() uri: UriInfo): Promise<Response<FileRecord>> {
    // On 413/400 the body may be partly unread: the pipeline then closes the connection.
    const record = await this.files.receive(parts);
    return Response.created(uri.baseUriBuilder().path(FilesResource).path(FilesResource, 'metadata').build(record.id))
      .entity(record)
      .build();
  }

  @GET('{id}')
  @Produces('application/json')
  metadata(@PathParam('id') id: string): FileRecord {
    return this.files.get(id);
  }

  /**
   * The file's bytes as a `FileBody`: the pipeline answers `Range` (206, multipart/byteranges, 416)
   * and `If-Range` (RFC 9110 §14), with the file's `ETag` and `Last-Modified`; `If-None-Match` /
   * `If-Modified-Since` give 304 (§13.2.2, evaluated before any Range).
   */
  @GET('{id}/download')
  async download(@PathParam('id') id: string, @Context() request: ContainerRequestContext): Promise<Response> {
    const { record, file } = await this.files.open(id);
    const headers = downloadHeaders({ record });
    const notModified = request.evaluatePreconditions({ tag: file.entityTag, lastModified: file.lastModified });
    if (notModified !== undefined) return notModified;
    const r = Response.ok(file);
    for (const [k, v] of Object.entries(headers)) r.header(k, v);
    return r.build();
  }
}
