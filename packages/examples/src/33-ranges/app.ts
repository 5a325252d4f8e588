/**
 * Example 33, range requests (RFC 9110 §14): a resource returns a `FileBody` or a `BytesBody` and
 * the pipeline answers byte ranges, with no range code in the resource:
 *
 *   curl -i -r 0-99 localhost:3000/media/sample.bin          → 206, Content-Range: bytes 0-99/1048576
 *   curl -i -r 0-9,4096-4105 localhost:3000/media/sample.bin → 206 multipart/byteranges, two parts
 *   curl -i -r 2000000- localhost:3000/media/sample.bin      → 416, Content-Range: bytes *\/1048576
 *   curl -r 0-65535 -o s.bin localhost:3000/media/sample.bin && curl -C - -o s.bin localhost:3000/media/sample.bin
 *                                                            → the second call fetches only the rest
 *   curl -i -H 'Range: bytes=0-4' -H 'If-Range: "old"' localhost:3000/media/notes → 200, all of it
 *
 * The media folder is made at start-up in the OS temp directory (a 1 MiB sample file), so the
 * example runs anywhere; give `createApp` a folder of your own to serve that instead.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Application, BytesBody, FileBody, GET, NotFoundError, Path, PathParam, Produces, Response } from '@jaxrs-node/pipeline';

/** The sample file's bytes: 1 MiB of a pattern a test can check anywhere in it. */
export function sampleBytes(): Buffer {
  const bytes = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + (i >> 8)) & 0xff;
  return bytes;
}

export const NOTES = 'Range requests: 206 Partial Content, 416 Range Not Satisfiable.\n';

/** A folder with `sample.bin` in it, under the OS temp directory. */
export function sampleFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'example-ranges-'));
  writeFileSync(join(dir, 'sample.bin'), sampleBytes());
  return dir;
}

export function createApp(folder: string = sampleFolder()): Application {
  @Path('/media')
  class Media {
    // The name is checked by the template: letters, digits and dashes, then `.bin`; no `/`, no `..`.
    @GET('{name: [a-z0-9-]+\\.bin}')
    async file(@PathParam('name') name: string): Promise<Response> {
      let file: FileBody;
      try {
        file = await FileBody.fromPath(join(folder, name));
      } catch {
        throw new NotFoundError(`No file ${name}`);
      }
      return Response.ok(file, 'application/octet-stream').header('content-disposition', `attachment; filename="${name}"`).build();
    }

    // Bytes in memory: a strong tag from the bytes lets If-Range match.
    @GET('notes')
    @Produces('text/plain')
    notes(): BytesBody {
      return new BytesBody(Buffer.from(NOTES), { entityTag: true });
    }
  }
  return new Application({ resources: [Media] });
}
