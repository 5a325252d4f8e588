/**
 * Multipart uploads from the typed client (RFC 7578): a list of `EntityPart`s sent through
 * `ClientMultipartFeature` (the multipart entry's `MultipartWriter`, no busboy on the client side)
 * to a pipeline server reading it with `MultipartFeature`, over a loopback socket and in-process.
 * A 20 MB generated part is streamed: the server reads its first MiB while the client has not yet
 * generated the rest (the generator waits for the server), and checks it by size and hash.
 */
import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Application, Consumes, Path, POST } from '../../src/index.js';
import { ClientEntity, ClientMultipartFeature, createClient, EntityPart } from '../../src/client/index.js';
import { MultipartBody, MultipartFeature } from '../../src/features/multipart/index.js';
import { CLIENT_TRANSPORTS, serveForClients } from '../helpers/client-transports.js';
import { deferred, type Deferred } from '../helpers/deferred.js';

const MiB = 1024 * 1024;
const BIG = 20 * MiB;

interface Received {
  name: string;
  filename?: string;
  mediaType: string;
  size: number;
  sha256?: string;
  text?: string;
}

/** Resolved by the server once it has read the first MiB of a file part. */
let firstMiB: Deferred | undefined;

@Path('/uploads')
class Uploads {
  @POST()
  @Consumes('multipart/form-data')
  async upload(body: MultipartBody): Promise<{ parts: Received[] }> {
    const parts: Received[] = [];
    for await (const part of body) {
      const base = { name: part.name, filename: part.filename, mediaType: part.mediaType.essence };
      if (!part.isFile) {
        const text = await part.text();
        parts.push({ ...base, size: Buffer.byteLength(text), text });
        continue;
      }
      const hash = createHash('sha256');
      let size = 0;
      for await (const chunk of part.content) {
        hash.update(chunk as Buffer);
        size += (chunk as Buffer).length;
        if (size >= MiB) firstMiB?.resolve();
      }
      parts.push({ ...base, size, sha256: hash.digest('hex') });
    }
    return { parts };
  }
}

/** The same server method, seen by a client contract: a list of parts, sent as a form. */
@Path('/uploads')
abstract class UploadsApi {
  @POST()
  @Consumes('multipart/form-data')
  upload(_parts: EntityPart[]): { parts: Received[] } {
    throw new Error('contract');
  }
}

/**
 * 20 MB generated in 64 KiB chunks; after 2 MiB the generator waits until the server has read
 * 1 MiB of the part, so a client that buffered the body before sending would never get past it
 * (bounded: it gives up after 20 s with a message saying so).
 */
function generated(gate: Deferred): { stream: Readable; sha256: string } {
  const chunk = Buffer.alloc(64 * 1024);
  for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 31 + 7) & 0xff;
  const hash = createHash('sha256');
  for (let at = 0; at < BIG; at += chunk.length) hash.update(chunk);
  async function* gen(): AsyncGenerator<Buffer> {
    for (let at = 0; at < BIG; at += chunk.length) {
      if (at === 2 * MiB) {
        let timer: NodeJS.Timeout | undefined;
        const stuck = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('the server saw no part bytes: the client buffered the body')), 20_000);
        });
        try {
          await Promise.race([gate.promise, stuck]);
        } finally {
          clearTimeout(timer);
        }
      }
      yield chunk;
    }
  }
  return { stream: Readable.from(gen(), { objectMode: false }), sha256: hash.digest('hex') };
}

const app = (): Application =>
  new Application({
    resources: [Uploads],
    providers: [new MultipartFeature({ limits: { partSize: 32 * MiB, totalSize: 40 * MiB } })],
    logger: () => undefined,
  });

describe.each(CLIENT_TRANSPORTS)('client multipart uploads (%s)', (transport) => {
  const suite = serveForClients(transport, app);

  it('streams a 20 MB Readable part with a text field as multipart/form-data; the server checks size and hash', async () => {
    const client = suite.client({ providers: [new ClientMultipartFeature()] });
    firstMiB = deferred();
    const big = generated(firstMiB);
    const r = await client
      .target('uploads')
      .request('application/json')
      .post(
        ClientEntity.of(
          [EntityPart.of('file', big.stream, { filename: 'big.bin', mediaType: 'application/octet-stream' }), EntityPart.of('title', 'x')],
          'multipart/form-data',
        ),
      );
    expect(r.status).toBe(200);
    expect(r.request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=jaxrs-node-[0-9a-f]{32}$/);
    const body = await r.readEntity<{ parts: Received[] }>();
    expect(body.parts).toEqual([
      { name: 'file', filename: 'big.bin', mediaType: 'application/octet-stream', size: BIG, sha256: big.sha256 },
      { name: 'title', mediaType: 'text/plain', size: 1, text: 'x' },
    ]);
  });

  it('sends a part list without a Content-Type as a form, objects as JSON, and keeps a boundary the caller names', async () => {
    const client = suite.client({ providers: [new ClientMultipartFeature()] });
    const parts = [EntityPart.of('meta', { id: 7 }), EntityPart.of('note', 'h\u00e9', { filename: 'n.txt', mediaType: 'text/plain' })];
    const plain = await client.target('uploads').request().post(parts, Object);
    expect(plain).toMatchObject({
      parts: [
        { name: 'meta', mediaType: 'application/json', size: 8, text: '{"id":7}' },
        { name: 'note', filename: 'n.txt', mediaType: 'text/plain', size: 3 },
      ],
    });
    const named = await client
      .target('uploads')
      .request()
      .post(ClientEntity.of([EntityPart.of('a', 'b')], 'multipart/form-data; boundary=my-boundary'));
    expect(named.request.headers['content-type']).toBe('multipart/form-data; boundary=my-boundary');
    expect(await named.readEntity()).toEqual({ parts: [{ name: 'a', mediaType: 'text/plain', size: 1, text: 'b' }] });
  });

  it('a contract method with @Consumes(multipart/form-data) sends its list of parts', async () => {
    const client = suite.client({ providers: [new ClientMultipartFeature()] });
    const uploads = client.proxy(UploadsApi);
    const r = await uploads.upload([
      EntityPart.of('doc', Readable.from([Buffer.from('abc'), Buffer.from('def')]), { filename: 'd.bin' }),
      EntityPart.of('title', 'x'),
    ]);
    expect(r.parts).toEqual([
      {
        name: 'doc',
        filename: 'd.bin',
        mediaType: 'application/octet-stream',
        size: 6,
        sha256: createHash('sha256').update('abcdef').digest('hex'),
      },
      { name: 'title', mediaType: 'text/plain', size: 1, text: 'x' },
    ]);
  });

  it('leaves other arrays alone: a JSON array stays JSON', async () => {
    const client = suite.client({ providers: [new ClientMultipartFeature()] });
    const r = await client.target('uploads').request().post([1, 2]);
    expect(r.request.headers['content-type']).toBe('application/json');
    expect(r.status).toBe(415);
    r.close();
  });
});

describe('client multipart uploads: a contract client made with createClient', () => {
  const suite = serveForClients('in-process', app);
  it('works with the feature in the providers option', async () => {
    const uploads = createClient(UploadsApi, { application: suite.app(), providers: [new ClientMultipartFeature()] });
    const r = await uploads.upload([EntityPart.of('title', 'y')]);
    expect(r.parts).toEqual([{ name: 'title', mediaType: 'text/plain', size: 1, text: 'y' }]);
  });
});
