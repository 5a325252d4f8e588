// multipart/form-data through MultipartFeature over both transports (Jakarta REST 3.1 §4.2
// EntityPart, RFC 7578): the parts in order as a MultipartBody, parts and text fields by name with
// @FormParam (converted like urlencoded fields), a @BeanParam of both, filenames (RFC 8187
// filename*, hostile paths), the limits (413 each, never a cut part), malformed and truncated
// bodies (400), a gzip-encoded body, and which filters and interceptors see the body.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  Application,
  BeanParam,
  Consumes,
  type ContainerRequestContext,
  type ContainerRequestFilter,
  Entity,
  FormParam,
  GzipFeature,
  Int,
  Path,
  POST,
  Produces,
  type ReaderInterceptor,
  type ReaderInterceptorContext,
} from '../../src/index.js';
import { EntityPart, MultipartBody, MultipartFeature, MultipartForm } from '../../src/features/multipart/index.js';
import { BOUNDARY, bytes, fieldPart, filePart, multipart, MULTIPART_TYPE, type Part } from '../helpers/multipart-bodies.js';
import { serveForSuite, TRANSPORTS, type Send } from '../helpers/transports.js';

const LIMITS = { partSize: 1024, fieldSize: 64, parts: 6, headerSize: 512, totalSize: 8192 };

/** What a test learns of a part. */
async function describePart(part: EntityPart): Promise<Record<string, unknown>> {
  return {
    name: part.name,
    filename: part.filename ?? null,
    safeFilename: part.safeFilename ?? null,
    mediaType: part.mediaType.essence,
    charset: part.mediaType.params.charset ?? null,
    isFile: part.isFile,
    text: await part.text(),
  };
}

class UploadForm {
  @FormParam('title') title!: string;
  @FormParam('count', { type: Int }) count!: number;
  @FormParam('file') file!: EntityPart;
  @FormParam('tag', { elementType: String }) tags!: string[];
}

/** Records what the reader interceptors and request filters saw. */
const seen: string[] = [];

class SeeingInterceptor implements ReaderInterceptor {
  async aroundReadFrom(ctx: ReaderInterceptorContext): Promise<unknown> {
    seen.push(`interceptor:${ctx.mediaType?.essence}:${ctx.type === MultipartBody ? 'MultipartBody' : (ctx.type as Function).name}`);
    return ctx.proceed();
  }
}
class SeeingFilter implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    seen.push(`filter:${ctx.mediaType?.essence}`);
  }
}

@Path('/mp')
class Uploads {
  @POST('parts')
  @Consumes('multipart/form-data')
  @Produces('application/json')
  async parts(body: MultipartBody): Promise<unknown> {
    const out = [];
    for await (const part of body) out.push(await describePart(part));
    return out;
  }

  @POST('headers')
  @Produces('application/json')
  async headers(body: MultipartBody): Promise<unknown> {
    const part = await body.next();
    await body.drain();
    return part?.headers;
  }

  /** Reads only the second part: the first is drained by next(). */
  @POST('second')
  @Produces('application/json')
  async second(body: MultipartBody): Promise<unknown> {
    await body.next();
    const second = await body.next();
    const third = await body.next();
    return { second: second && (await second.text()), third: third?.name ?? null };
  }

  @POST('named')
  @Produces('application/json')
  async named(@FormParam('file') file: EntityPart, @FormParam('title') title: string, @FormParam('n') n: number): Promise<unknown> {
    return { file: file && (await describePart(file)), title: title ?? null, n: n ?? null, nType: typeof n };
  }

  @POST('bean')
  @Produces('application/json')
  async bean(@BeanParam() form: UploadForm): Promise<unknown> {
    return {
      title: form.title,
      count: form.count,
      tags: form.tags,
      file: await describePart(form.file),
    };
  }

  @POST('form')
  @Produces('application/json')
  form(@Entity(URLSearchParams) form: URLSearchParams): unknown {
    return { isMultipartForm: form instanceof MultipartForm, entries: [...form.entries()] };
  }
}

const build = (): Application =>
  new Application({
    resources: [Uploads],
    providers: [new MultipartFeature({ limits: LIMITS }), new GzipFeature(), SeeingInterceptor, SeeingFilter],
    logger: (e) => console.error('LOGGED', e),
  });

const post = (send: Send, url: string, body: Buffer, headers: Record<string, string> = {}) =>
  send({ method: 'POST', url, headers: { 'content-type': MULTIPART_TYPE, ...headers }, body });

describe.each(TRANSPORTS)('multipart/form-data (%s)', (transport) => {
  const send = serveForSuite(transport, build);

  it('hands out the parts in order, text fields and files, with their media types', async () => {
    const body = multipart([
      fieldPart('title', 'Holiday'),
      filePart('photo', 'JPEG bytes', 'beach.jpg', 'image/jpeg'),
      fieldPart('note', 'caf\u00e9', ['Content-Type: text/plain; charset=utf-8']),
    ]);
    const r = await post(send, '/mp/parts', body);
    expect(r.status).toBe(200);
    expect(r.json()).toEqual([
      { name: 'title', filename: null, safeFilename: null, mediaType: 'text/plain', charset: null, isFile: false, text: 'Holiday' },
      {
        name: 'photo',
        filename: 'beach.jpg',
        safeFilename: 'beach.jpg',
        mediaType: 'image/jpeg',
        charset: null,
        isFile: true,
        text: 'JPEG bytes',
      },
      { name: 'note', filename: null, safeFilename: null, mediaType: 'text/plain', charset: 'utf-8', isFile: false, text: 'caf\u00e9' },
    ]);
  });

  it('keeps every header of a part', async () => {
    const part: Part = {
      headers: [
        'Content-Disposition: form-data; name="doc"; filename="d.bin"',
        'Content-Type: application/octet-stream',
        'X-Checksum: abc123',
      ],
      body: 'x',
    };
    const r = await post(send, '/mp/headers', multipart([part]));
    expect(r.json()).toEqual({
      'content-disposition': 'form-data; name="doc"; filename="d.bin"',
      'content-type': 'application/octet-stream',
      'x-checksum': 'abc123',
    });
  });

  it('drains a part nobody read when the next one is asked for', async () => {
    const body = multipart([filePart('first', bytes(600)), fieldPart('second', 'two'), fieldPart('third', '3')]);
    const r = await post(send, '/mp/second', body);
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ second: 'two', third: 'third' });
  });

  it('gives @FormParam a part by name and text fields converted like form parameters', async () => {
    const body = multipart([fieldPart('n', '42'), filePart('file', 'hello', 'h.txt'), fieldPart('title', 'T'), fieldPart('other', 'x')]);
    const r = await post(send, '/mp/named', body);
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({
      file: { name: 'file', filename: 'h.txt', safeFilename: 'h.txt', mediaType: 'text/plain', charset: null, isFile: true, text: 'hello' },
      title: 'T',
      n: 42,
      nType: 'number',
    });
  });

  it('answers 400 PIPE_PARAM_CONVERSION for a field that does not convert, and absent parts are undefined', async () => {
    const bad = await post(send, '/mp/named', multipart([fieldPart('n', 'forty')]));
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'PIPE_PARAM_CONVERSION' });
    const none = await post(send, '/mp/named', multipart([fieldPart('title', 'only')]));
    expect(none.json()).toEqual({ title: 'only', n: null, nType: 'undefined' });
  });

  it('fills a @BeanParam of text fields, a repeated field and a file part', async () => {
    const body = multipart([
      fieldPart('title', 'Report'),
      fieldPart('tag', 'a'),
      filePart('file', 'data', 'r.csv', 'text/csv'),
      fieldPart('tag', 'b'),
      fieldPart('count', '3'),
    ]);
    const r = await post(send, '/mp/bean', body);
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({
      title: 'Report',
      count: 3,
      tags: ['a', 'b'],
      file: { name: 'file', filename: 'r.csv', mediaType: 'text/csv', text: 'data' },
    });
  });

  it('reads an entity typed URLSearchParams as the form of text fields', async () => {
    const r = await post(send, '/mp/form', multipart([fieldPart('a', '1'), filePart('f', 'skipped'), fieldPart('b', '2')]));
    expect(r.json()).toEqual({
      isMultipartForm: true,
      entries: [
        ['a', '1'],
        ['b', '2'],
      ],
    });
  });

  it('decodes filename* (RFC 8187) and raw UTF-8, and makes hostile filenames safe', async () => {
    const parts: Part[] = [
      { headers: [`Content-Disposition: form-data; name="a"; filename*=UTF-8''%E2%82%AC%20rates.txt`], body: '1' },
      filePart('b', '2', 'r\u00e9sum\u00e9.pdf'),
      filePart('c', '3', '../../etc/passwd'),
      filePart('d', '4', '..\\..\\boot.ini'),
      filePart('e', '5', '..'),
    ];
    const seenNames: unknown[] = [];
    for (const part of parts) {
      const r = await post(send, '/mp/parts', multipart([part]));
      const [p] = r.json() as Array<{ filename: string; safeFilename: string | null }>;
      seenNames.push([p!.filename, p!.safeFilename]);
    }
    expect(seenNames).toEqual([
      ['\u20ac rates.txt', '\u20ac rates.txt'],
      ['r\u00e9sum\u00e9.pdf', 'r\u00e9sum\u00e9.pdf'],
      ['../../etc/passwd', 'passwd'],
      ['..\\..\\boot.ini', 'boot.ini'],
      ['..', null],
    ]);
  });

  it('accepts a part of exactly partSize and a field of exactly fieldSize', async () => {
    const r = await post(
      send,
      '/mp/parts',
      multipart([
        filePart('f', bytes(LIMITS.partSize), 'f', 'text/plain; charset=iso-8859-1'),
        fieldPart('t', 'x'.repeat(LIMITS.fieldSize)),
      ]),
    );
    expect(r.status).toBe(200);
    expect((r.json() as Array<{ text: string }>).map((p) => p.text.length)).toEqual([LIMITS.partSize, LIMITS.fieldSize]);
  });

  it.each([
    ['a file part over partSize', [filePart('f', bytes(LIMITS.partSize + 1))], 'PIPE_MULTIPART_PART_TOO_LARGE'],
    ['a field over fieldSize', [fieldPart('t', 'x'.repeat(LIMITS.fieldSize + 1))], 'PIPE_MULTIPART_FIELD_TOO_LARGE'],
    [
      'more parts than allowed',
      Array.from({ length: LIMITS.parts + 1 }, (_, i) => fieldPart(`f${i}`, 'v')),
      'PIPE_MULTIPART_TOO_MANY_PARTS',
    ],
    [
      'a header block over headerSize',
      [fieldPart('h', 'v', [`X-Pad: ${'p'.repeat(LIMITS.headerSize)}`])],
      'PIPE_MULTIPART_HEADER_TOO_LARGE',
    ],
    [
      'a body over totalSize',
      [
        filePart('a', bytes(1000)),
        filePart('b', bytes(1000)),
        filePart('c', bytes(1000)),
        filePart('d', bytes(1000)),
        fieldPart('e', 'x'.repeat(60)),
      ].slice(0, 4),
      undefined,
    ],
  ] as Array<[string, Part[], string | undefined]>)('answers 413 for %s', async (_what, parts, code) => {
    const body = code === undefined ? Buffer.concat([multipart(parts, { close: false }), bytes(LIMITS.totalSize)]) : multipart(parts);
    const r = await post(send, '/mp/parts', body);
    expect(r.status).toBe(413);
    expect(r.json()).toMatchObject({ code: code ?? 'PIPE_BODY_TOO_LARGE' });
  });

  it('answers 413 from the declared Content-Length alone when it exceeds totalSize', async () => {
    const r = await post(send, '/mp/parts', Buffer.alloc(LIMITS.totalSize + 1, 0x61));
    expect(r.status).toBe(413);
    expect(r.json()).toMatchObject({ code: 'PIPE_BODY_TOO_LARGE' });
  });

  it.each([
    ['no boundary', 'multipart/form-data', 'PIPE_MULTIPART_BOUNDARY'],
    ['an empty boundary', 'multipart/form-data; boundary=""', 'PIPE_MULTIPART_BOUNDARY'],
    ['a boundary of 71 characters', `multipart/form-data; boundary=${'b'.repeat(71)}`, 'PIPE_MULTIPART_BOUNDARY'],
    ['a boundary the body does not use', 'multipart/form-data; boundary=other', 'PIPE_MULTIPART_MALFORMED'],
  ])('answers 400 for %s', async (_what, contentType, code) => {
    const r = await post(send, '/mp/parts', multipart([fieldPart('a', '1')]), { 'content-type': contentType });
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ code });
  });

  it('answers 400 for a body cut before its closing delimiter, and for a malformed part header', async () => {
    const cut = await post(send, '/mp/parts', multipart([filePart('f', bytes(500))], { close: false }));
    expect(cut.status).toBe(400);
    expect(cut.json()).toMatchObject({ code: 'PIPE_MULTIPART_MALFORMED' });
    const bad = Buffer.from(`--${BOUNDARY}\r\nno colon here\r\n\r\nx\r\n--${BOUNDARY}--\r\n`);
    const header = await post(send, '/mp/parts', bad);
    expect(header.status).toBe(400);
    expect(header.json()).toMatchObject({ code: 'PIPE_MULTIPART_MALFORMED' });
  });

  it('reads a gzip-encoded multipart body through the reader interceptors', async () => {
    const body = multipart([fieldPart('title', 'zipped'), filePart('f', 'inside')]);
    const r = await post(send, '/mp/parts', gzipSync(body), { 'content-encoding': 'gzip' });
    expect(r.status).toBe(200);
    expect((r.json() as Array<{ text: string }>).map((p) => p.text)).toEqual(['zipped', 'inside']);
  });

  it('runs request filters, then the reader interceptors around the reader, for both kinds of method', async () => {
    seen.length = 0;
    await post(send, '/mp/parts', multipart([fieldPart('a', '1')]));
    await post(send, '/mp/named', multipart([fieldPart('title', 't')]));
    expect(seen).toEqual([
      'filter:multipart/form-data',
      'interceptor:multipart/form-data:MultipartBody',
      'filter:multipart/form-data',
      'interceptor:multipart/form-data:URLSearchParams',
    ]);
  });
});
