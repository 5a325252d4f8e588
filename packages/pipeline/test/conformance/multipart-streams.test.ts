// Multipart bodies as streams: a 20 MB part read with backpressure on the socket (the method holds
// the part; the request is paused, far from all of it read), written back with MultipartWriter
// (multipart/form-data and multipart/mixed, objects through the application's writers, read back
// with readMultipart), and bad input on raw sockets: the connection after a limit, after a
// truncated body, and when the client goes away (RFC 7578, RFC 2046 §5.1).
import { createHash } from 'node:crypto';
import { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Application,
  Context,
  GET,
  type MediaType,
  type MessageBodyWriter,
  Path,
  POST,
  Produces,
  type TypeToken,
} from '../../src/index.js';
import { EntityPart, MultipartBody, MultipartFeature, readMultipart } from '../../src/features/multipart/index.js';
import { deferred, type Deferred } from '../helpers/deferred.js';
import { BOUNDARY, bytes, fieldPart, filePart, multipart, MULTIPART_TYPE } from '../helpers/multipart-bodies.js';
import { rawConnect, splitResponse } from '../helpers/raw-socket.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

const BIG = 20 * 1024 * 1024;
const MiB = 1024 * 1024;

/** A test's hold on the method that reads the big part: it stops after 1 MiB until released. */
let hold: { reached: Deferred<IncomingMessage>; release: Deferred } | undefined;
/** What the method reading a body the client abandons saw. */
let abandoned: Deferred<unknown> | undefined;

class Rows {
  constructor(readonly rows: string[][]) {}
}
class CsvWriter implements MessageBodyWriter<Rows> {
  isWriteable(type: TypeToken, mediaType: MediaType): boolean {
    return type === Rows && mediaType.essence === 'text/csv';
  }
  writeTo(entity: Rows): string {
    return entity.rows.map((r) => r.join(',')).join('\n');
  }
}
class Opaque {}

@Path('/s')
class Streams {
  @POST('big')
  @Produces('application/json')
  async big(body: MultipartBody, @Context() req: IncomingMessage): Promise<unknown> {
    const part = (await body.next())!;
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of part.content) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (hold !== undefined && size >= MiB) {
        const h = hold;
        hold = undefined;
        h.reached.resolve(req);
        await h.release.promise;
      }
    }
    const title = await body.next();
    return { name: part.name, size, sha256: hash.digest('hex'), title: await title?.text(), end: (await body.next()) === undefined };
  }

  @POST('abandoned')
  async abandon(body: MultipartBody): Promise<void> {
    try {
      await body.drain();
      abandoned?.resolve('completed');
    } catch (e) {
      abandoned?.resolve(e);
      throw e;
    }
  }

  /** Echoes the request's parts as multipart/form-data. */
  @POST('echo')
  @Produces('multipart/form-data')
  async echo(body: MultipartBody): Promise<EntityPart[]> {
    const out: EntityPart[] = [];
    for await (const p of body) out.push(EntityPart.of(p.name, await p.buffer(), { filename: p.filename, mediaType: p.mediaType }));
    return out;
  }

  @GET('mixed')
  @Produces('multipart/mixed')
  mixed(): EntityPart[] {
    return [
      EntityPart.of('meta', { id: 7, tags: ['a'] }),
      EntityPart.of(
        'rows',
        new Rows([
          ['a', 'b'],
          ['1', '2'],
        ]),
        { mediaType: 'text/csv', filename: 'rows.csv' },
      ),
      EntityPart.of('note', 'h\u00e9', { headers: { 'x-part': 'n' } }),
      EntityPart.of('stream', Readable.from([Buffer.from('chunk1'), Buffer.from('chunk2')]), { filename: 'c "q".bin' }),
    ];
  }

  @GET('no-writer')
  @Produces('multipart/form-data')
  noWriter(): EntityPart[] {
    return [EntityPart.of('x', new Opaque(), { mediaType: 'image/png' })];
  }

  @GET('array')
  array(): number[] {
    return [1, 2];
  }
}

const build = (): Application =>
  new Application({
    resources: [Streams],
    providers: [new MultipartFeature({ limits: { partSize: 32 * MiB, totalSize: 40 * MiB } }), new CsvWriter()],
    logger: () => undefined,
  });

/** The big body: a 20 MB file part then a title field, generated while sent. */
function bigBody(): { stream: Readable; sha256: string } {
  const chunk = bytes(64 * 1024, 7);
  const hash = createHash('sha256');
  for (let at = 0; at < BIG; at += chunk.length) hash.update(chunk);
  async function* gen(): AsyncGenerator<Buffer> {
    yield Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="big"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    );
    for (let at = 0; at < BIG; at += chunk.length) yield chunk;
    yield Buffer.from(`\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="title"\r\n\r\nbig one\r\n--${BOUNDARY}--\r\n`);
  }
  return { stream: Readable.from(gen()), sha256: hash.digest('hex') };
}

describe.each(TRANSPORTS)('multipart streams (%s)', (transport) => {
  const send = serveForSuite(transport, build);

  // Over a socket: the backpressure test below sends the same body with undici.
  it.skipIf(transport === 'socket')('reads a 20 MB part as a stream, then the field after it', async () => {
    const { stream, sha256 } = bigBody();
    const r = await send({ method: 'POST', url: '/s/big', headers: { 'content-type': MULTIPART_TYPE }, body: stream as never });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ name: 'big', size: BIG, sha256, title: 'big one', end: true });
  });

  it('writes parts as multipart/form-data that readMultipart reads back', async () => {
    const sent = multipart([fieldPart('title', 'T\u00e9'), filePart('doc', bytes(70_000), 'd\u00e9.bin', 'application/pdf')]);
    const r = await send({ method: 'POST', url: '/s/echo', headers: { 'content-type': MULTIPART_TYPE }, body: sent });
    expect(r.status).toBe(200);
    const contentType = String(r.headers['content-type']);
    expect(contentType).toMatch(/^multipart\/form-data; boundary=jaxrs-node-[0-9a-f]{32}$/);
    const parts = [];
    for await (const p of readMultipart(Readable.from([r.body]), { 'content-type': contentType })) {
      parts.push({ name: p.name, filename: p.filename, type: p.mediaType.essence, bytes: await p.buffer() });
    }
    expect(parts).toEqual([
      { name: 'title', filename: undefined, type: 'text/plain', bytes: Buffer.from('T\u00e9') },
      { name: 'doc', filename: 'd\u00e9.bin', type: 'application/pdf', bytes: bytes(70_000) },
    ]);
  });

  it('writes multipart/mixed: objects by the application writers, text, escaped filenames, extra headers', async () => {
    const r = await send('/s/mixed');
    expect(r.status).toBe(200);
    const boundary = /boundary=([^;]+)$/.exec(String(r.headers['content-type']))![1]!;
    expect(String(r.headers['content-type'])).toBe(`multipart/mixed; boundary=${boundary}`);
    const sections = r.text.split(`--${boundary}`);
    expect(sections[0]).toBe('');
    expect(sections.at(-1)).toBe('--\r\n');
    expect(sections.slice(1, -1)).toEqual([
      '\r\nContent-Disposition: inline; name="meta"\r\nContent-Type: application/json\r\n\r\n{"id":7,"tags":["a"]}\r\n',
      '\r\nContent-Disposition: attachment; name="rows"; filename="rows.csv"\r\nContent-Type: text/csv\r\n\r\na,b\n1,2\r\n',
      '\r\nContent-Disposition: inline; name="note"\r\nContent-Type: text/plain; charset=utf-8\r\nx-part: n\r\n\r\nh\u00e9\r\n',
      '\r\nContent-Disposition: attachment; name="stream"; filename="c %22q%22.bin"\r\nContent-Type: application/octet-stream\r\n\r\nchunk1chunk2\r\n',
    ]);
  });

  it('answers 500 PIPE_NO_WRITER before any byte for a part value no writer takes; arrays stay JSON', async () => {
    const r = await send('/s/no-writer');
    expect(r.status).toBe(500);
    expect(r.json()).toMatchObject({ code: 'PIPE_NO_WRITER' });
    const a = await send('/s/array');
    expect(a.headers['content-type']).toBe('application/json');
    expect(a.json()).toEqual([1, 2]);
  });
});

describe('multipart on the wire', () => {
  let app: Application;
  let port: number;
  beforeAll(async () => {
    app = build();
    ({ port } = await app.listen(0, '127.0.0.1'));
  });
  afterAll(async () => {
    await app.close(2000);
  });

  it('pauses the request while the method holds a part: the socket is read only as far as the part is', async () => {
    hold = { reached: deferred<IncomingMessage>(), release: deferred() };
    const { release, reached } = hold;
    const { stream, sha256 } = bigBody();
    const response = request(`http://127.0.0.1:${port}/s/big`, {
      method: 'POST',
      headers: { 'content-type': MULTIPART_TYPE },
      body: stream,
    });
    const req = await reached.promise;
    // Every stage between the socket and the part fills up, then the request stops flowing.
    const deadline = Date.now() + 5000;
    while (req.readableFlowing !== false && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    expect(req.readableFlowing).toBe(false);
    const read = req.socket.bytesRead;
    expect(read).toBeLessThan(BIG / 2);
    release.resolve();
    const r = await response;
    expect(r.statusCode).toBe(200);
    expect(await r.body.json()).toMatchObject({ size: BIG, sha256 });
  });

  it('answers a part over the limit sent chunked with 413 and closes the connection', async () => {
    const c = await rawConnect(port);
    c.socket.write(`POST /s/abandoned HTTP/1.1\r\nHost: x\r\nContent-Type: ${MULTIPART_TYPE}\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const head = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"; filename="f"\r\n\r\n`);
    c.socket.write(`${head.length.toString(16)}\r\n${head.toString('latin1')}\r\n`, 'latin1');
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    for (let i = 0; i < 34; i++) c.socket.write(`${chunk.length.toString(16)}\r\n${chunk.toString('latin1')}\r\n`, 'latin1');
    const res = splitResponse(await c.untilClosed(5000));
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(res.body)).toMatchObject({ code: 'PIPE_MULTIPART_PART_TOO_LARGE' });
  });

  it('answers a truncated body with 400 and keeps the connection: the body was read to its end', async () => {
    const c = await rawConnect(port);
    const body = multipart([filePart('f', 'abc')], { close: false });
    const req = (b: Buffer, close: boolean): string =>
      `POST /s/abandoned HTTP/1.1\r\nHost: x\r\nContent-Type: ${MULTIPART_TYPE}\r\nContent-Length: ${b.length}\r\n${close ? 'Connection: close\r\n' : ''}\r\n${b.toString('latin1')}`;
    c.socket.write(req(body, false), 'latin1');
    const [first] = await c.responses(1);
    expect(first!.status).toBe(400);
    expect(first!.headers.connection).not.toBe('close');
    c.socket.write(req(multipart([fieldPart('a', '1')]), true), 'latin1');
    const all = await c.untilClosed();
    expect(all.match(/HTTP\/1\.1 (\d+)/g)).toEqual(['HTTP/1.1 400', 'HTTP/1.1 204']);
  });

  it('fails the reading method with PIPE_CLIENT_ABORTED when the client goes away, and serves on', async () => {
    abandoned = deferred<unknown>();
    const c = await rawConnect(port);
    const part = multipart([filePart('f', bytes(100_000))], { close: false });
    c.socket.write(
      `POST /s/abandoned HTTP/1.1\r\nHost: x\r\nContent-Type: ${MULTIPART_TYPE}\r\nContent-Length: ${part.length + 1000}\r\n\r\n`,
    );
    c.socket.write(part);
    c.socket.destroy();
    expect(await abandoned.promise).toMatchObject({ status: 400, code: 'PIPE_CLIENT_ABORTED' });
    const again = await request(`http://127.0.0.1:${port}/s/array`);
    expect(await again.body.json()).toEqual([1, 2]);
  });
});
