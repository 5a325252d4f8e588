/**
 * Example 24, multipart entities (Jakarta REST 3.1 §4.2 `EntityPart`, RFC 7578) with
 * `@jaxrs-node/pipeline/multipart` (it needs busboy installed next to the pipeline):
 *
 *   curl -i -F title=Holiday -F file=@photo.jpg localhost:3000/files          → 201, streamed to the upload dir
 *   curl -i -F caption=Me -F image=@me.png localhost:3000/avatars             → 200, parts by name
 *   curl -i localhost:3000/files/1/bundle                                    → multipart/mixed: metadata + file
 *   curl -i -F file=@big.iso localhost:3000/files                            → 413 above 5 MiB, nothing kept
 *
 * `Files.upload` takes the whole body and reads the parts in order as they arrive: the file part
 * goes straight to disk with backpressure, never held in memory. `Avatars.set` names its parts
 * with `@FormParam`: the body is read before the method runs (text fields converted, the image
 * part kept, in memory up to 64 KiB, else in a temporary file removed after the response).
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  Application,
  BadRequestError,
  Consumes,
  Context,
  FormParam,
  GET,
  NotFoundError,
  Path,
  PathParam,
  POST,
  Produces,
  Response,
  UriInfo,
} from '@jaxrs-node/pipeline';
import { EntityPart, MultipartBody, MultipartFeature } from '@jaxrs-node/pipeline/multipart';

/** One stored upload. */
export interface Upload {
  id: number;
  title: string;
  filename: string;
  type: string;
  size: number;
}

/** Uploads kept in `dir` under server-made names; the client's filename is metadata only. */
export class UploadStore {
  private readonly uploads = new Map<number, Upload & { path: string }>();

  constructor(readonly dir: string) {}

  /** Streams `part` to a new file; on any failure the file is removed. */
  async save(part: EntityPart, title: string): Promise<Upload> {
    const path = join(this.dir, randomUUID());
    try {
      const size = await part.pipeTo(createWriteStream(path, { flags: 'wx', mode: 0o600 }));
      const upload = { id: this.uploads.size + 1, title, filename: part.safeFilename ?? 'upload', type: part.mediaType.essence, size };
      this.uploads.set(upload.id, { ...upload, path });
      return upload;
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
  }

  find(id: number): Upload & { path: string } {
    const upload = this.uploads.get(id);
    if (upload === undefined) throw new NotFoundError(`No upload ${id}`);
    return upload;
  }
}

export function filesResource(store: UploadStore) {
  @Path('/files')
  class Files {
    /** The parts in order: `title` must come before `file` (browsers send fields in form order). */
    @POST()
    @Consumes('multipart/form-data')
    @Produces('application/json')
    async upload(body: MultipartBody, @Context() uri: UriInfo): Promise<Response> {
      let title = '';
      let saved: Upload | undefined;
      for await (const part of body) {
        if (part.name === 'title' && !part.isFile) title = await part.text();
        else if (part.name === 'file' && part.isFile && saved === undefined) saved = await store.save(part, title);
        // any other part is drained when the next one is asked for
      }
      if (saved === undefined) throw new BadRequestError('A "file" part is required');
      return Response.created(uri.baseUriBuilder().path('files/{id}').build(saved.id)).entity(saved).build();
    }

    /** The upload's metadata and its bytes in one multipart/mixed response, streamed from disk. */
    @GET('{id}/bundle')
    @Produces('multipart/mixed')
    bundle(@PathParam('id') id: number): EntityPart[] {
      const { path, ...meta } = store.find(id);
      return [
        EntityPart.of('meta', meta),
        EntityPart.of('file', createReadStream(path), { filename: meta.filename, mediaType: meta.type }),
      ];
    }
  }
  return Files;
}

@Path('/avatars')
export class Avatars {
  /** Named parts: `caption` converted like any form parameter, `image` kept whole for the method. */
  @POST()
  @Produces('application/json')
  async set(@FormParam('caption') caption: string, @FormParam('image') image: EntityPart): Promise<unknown> {
    if (image === undefined) throw new BadRequestError('An "image" part is required');
    if (image.mediaType.type !== 'image') throw new BadRequestError(`"image" must be an image, not ${image.mediaType.essence}`);
    const bytes = await image.buffer();
    return { caption: caption ?? null, filename: image.safeFilename ?? null, type: image.mediaType.essence, bytes: bytes.length };
  }
}

/** The example's application; uploads go to `dir`. */
export function createApp(dir: string): Application {
  const store = new UploadStore(dir);
  return new Application({
    resources: [filesResource(store), Avatars],
    providers: [new MultipartFeature({ limits: { partSize: 5 * 1024 * 1024, totalSize: 6 * 1024 * 1024 } })],
  });
}
