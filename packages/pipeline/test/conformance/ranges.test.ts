/**
 * Range requests (RFC 9110 §14) on rangeable entities (FileBody, BytesBody, a custom
 * RangeableEntity), over both transports: 200 with Accept-Ranges, 206 single and
 * multipart/byteranges, suffix and open ranges, coalescing, 416, If-Range (§13.1.5), HEAD, and the
 * answers that ignore a Range (other methods, streams, a coded answer, malformed headers).
 */
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  Application,
  buildOpenApi,
  BytesBody,
  EntityTag,
  FileBody,
  GET,
  GzipFeature,
  parseContentRange,
  Path,
  POST,
  Produces,
  RangeableEntity,
  Response,
  type ByteReader,
} from '../../src/index.js';
import { serveForSuite, TRANSPORTS, type TestResponse } from '../helpers/transports.js';

const DATA = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 7) % 251));
const TEXT = Buffer.from('0123456789abcdefghij'.repeat(200));
const OLD = new Date('2026-01-02T03:04:05Z');
const dir = mkdtempSync(join(tmpdir(), 'ranges-'));
const FILE = join(dir, 'data.bin');
const TEXT_FILE = join(dir, 'text.txt');
writeFileSync(FILE, DATA);
writeFileSync(TEXT_FILE, TEXT);
utimesSync(FILE, OLD, OLD);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every slice the pipeline asked of the counting entity, and whether its reader was closed. */
const slices: Array<[number, number]> = [];
let closed = 0;

/** A custom store: proves the pipeline reads only the selected bytes, and closes the reader. */
class CountingEntity extends RangeableEntity {
  readonly length = DATA.length;
  readonly lastModified = undefined;
  readonly entityTag = new EntityTag('counting');
  open(): Promise<ByteReader> {
    return Promise.resolve({
      slice: (start: number, end: number) => {
        slices.push([start, end]);
        return Readable.from([DATA.subarray(start, end)]);
      },
      close: () => {
        closed++;
      },
    });
  }
}

@Path('/r')
class Files {
  @GET('file') file(): Promise<FileBody> {
    return FileBody.fromPath(FILE);
  }
  @GET('bytes') bytes(): BytesBody {
    return new BytesBody(DATA, { entityTag: true, lastModified: OLD });
  }
  @GET('weak') weak(): BytesBody {
    return new BytesBody(DATA, { entityTag: new EntityTag('w', true) });
  }
  @GET('text') @Produces('text/plain') async text(): Promise<FileBody> {
    return FileBody.fromPath(TEXT_FILE);
  }
  @GET('typed') async typed(): Promise<Response> {
    return Response.ok(await FileBody.fromPath(FILE), 'application/pdf')
      .header('etag', '"own"')
      .build();
  }
  @GET('counting') counting(): CountingEntity {
    return new CountingEntity();
  }
  @GET('empty') empty(): BytesBody {
    return new BytesBody(new Uint8Array(0));
  }
  @GET('stream') stream(): Readable {
    return Readable.from([DATA]);
  }
  @POST('file') post(): Promise<FileBody> {
    return FileBody.fromPath(FILE);
  }
  @GET('created') async created(): Promise<Response> {
    return Response.status(201)
      .entity(await FileBody.fromPath(FILE))
      .build();
  }
}

/** The parts of a multipart/byteranges body: each part's headers and bytes. */
function multipartParts(r: TestResponse): Array<{ headers: Record<string, string>; body: Buffer }> {
  const type = String(r.headers['content-type']);
  const boundary = /boundary=([^;]+)/.exec(type)![1]!;
  const parts: Array<{ headers: Record<string, string>; body: Buffer }> = [];
  const body = r.body;
  const delimiter = Buffer.from(`--${boundary}`);
  let at = body.indexOf(delimiter);
  expect(at).toBe(0);
  for (;;) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString() === '--') {
      expect(body.subarray(at).toString()).toBe('--\r\n');
      return parts;
    }
    const headEnd = body.indexOf('\r\n\r\n', at);
    const headers: Record<string, string> = {};
    for (const line of body
      .subarray(at + 2, headEnd)
      .toString()
      .split('\r\n')) {
      const i = line.indexOf(':');
      headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
    }
    const next = body.indexOf(delimiter, headEnd + 4);
    parts.push({ headers, body: body.subarray(headEnd + 4, next - 2) });
    expect(body.subarray(next - 2, next).toString()).toBe('\r\n');
    at = next;
  }
}

describe.each(TRANSPORTS)('range requests (%s)', (transport) => {
  const send = serveForSuite(transport, () => new Application({ resources: [Files], logger: () => undefined }));
  const get = (url: string, headers: Record<string, string> = {}) => send({ url, headers });

  it('without Range: 200, the whole entity, Accept-Ranges: bytes, Content-Length and the validators', async () => {
    for (const url of ['/r/file', '/r/bytes']) {
      const r = await get(url);
      expect(r.status).toBe(200);
      expect(r.headers['accept-ranges']).toBe('bytes');
      expect(r.headers['content-length']).toBe('1000');
      expect(r.headers['content-type']).toBe('application/octet-stream');
      expect(r.headers['last-modified']).toBe(OLD.toUTCString());
      expect(String(r.headers.etag)).toMatch(/^"[^"]+"$/);
      expect(r.body.equals(DATA)).toBe(true);
    }
  });

  it('one range: 206 with Content-Range and only those bytes', async () => {
    for (const url of ['/r/file', '/r/bytes']) {
      const r = await get(url, { range: 'bytes=0-99' });
      expect(r.status).toBe(206);
      expect(r.headers['content-range']).toBe('bytes 0-99/1000');
      expect(r.headers['content-length']).toBe('100');
      expect(r.headers['accept-ranges']).toBe('bytes');
      expect(r.body.equals(DATA.subarray(0, 100))).toBe(true);
    }
  });

  it.each([
    ['bytes=500-', 500, 999],
    ['bytes=-100', 900, 999],
    ['bytes=-5000', 0, 999],
    ['bytes=990-5000', 990, 999],
    ['BYTES=10-19', 10, 19],
    ['bytes=999-999', 999, 999],
    ['bytes= 1-2 ,', 1, 2],
  ])('%s is bytes %i-%i', async (range, start, end) => {
    const r = await get('/r/file', { range });
    expect(r.status).toBe(206);
    expect(r.headers['content-range']).toBe(`bytes ${start}-${end}/1000`);
    expect(r.body.equals(DATA.subarray(start, end + 1))).toBe(true);
  });

  it('several ranges: 206 multipart/byteranges, the parts in the order asked, each with its Content-Type and Content-Range', async () => {
    const r = await get('/r/typed', { range: 'bytes=500-509,0-9,-10' });
    expect(r.status).toBe(206);
    expect(r.headers['content-type']).toMatch(/^multipart\/byteranges; boundary=[0-9a-f]{24}$/);
    expect(r.headers['content-range']).toBeUndefined();
    expect(Number(r.headers['content-length'])).toBe(r.body.length);
    const parts = multipartParts(r);
    expect(parts.map((p) => p.headers)).toEqual([
      { 'content-type': 'application/pdf', 'content-range': 'bytes 500-509/1000' },
      { 'content-type': 'application/pdf', 'content-range': 'bytes 0-9/1000' },
      { 'content-type': 'application/pdf', 'content-range': 'bytes 990-999/1000' },
    ]);
    expect(parts.map((p) => p.body)).toEqual([DATA.subarray(500, 510), DATA.subarray(0, 10), DATA.subarray(990, 1000)]);
  });

  it('overlapping ranges and ranges less than 80 bytes apart are coalesced into one', async () => {
    const overlapping = await get('/r/file', { range: 'bytes=0-99,50-149' });
    expect(overlapping.status).toBe(206);
    expect(overlapping.headers['content-range']).toBe('bytes 0-149/1000');
    const close = await get('/r/file', { range: 'bytes=0-9,50-59,200-209' });
    expect(close.headers['content-type']).toMatch(/^multipart\/byteranges/);
    expect(multipartParts(close).map((p) => p.headers['content-range'])).toEqual(['bytes 0-59/1000', 'bytes 200-209/1000']);
  });

  it('reads only the selected bytes from the entity, and closes its reader', async () => {
    slices.length = 0;
    closed = 0;
    const one = await get('/r/counting', { range: 'bytes=100-199' });
    expect(one.body.equals(DATA.subarray(100, 200))).toBe(true);
    const several = await get('/r/counting', { range: 'bytes=0-9,500-509' });
    expect(multipartParts(several)).toHaveLength(2);
    expect(slices).toEqual([
      [100, 200],
      [0, 10],
      [500, 510],
    ]);
    // The reader is closed when the body stream closes, which may come just after the last byte.
    await vi.waitFor(() => expect(closed).toBe(2), { timeout: 2000 });
  });

  it('unsatisfiable: 416 with Content-Range: bytes */length and the error body', async () => {
    for (const range of ['bytes=1000-', 'bytes=5000-6000', 'bytes=-0', 'bytes=1000-1001,2000-']) {
      const r = await get('/r/file', { range });
      expect(r.status).toBe(416);
      expect(r.headers['content-range']).toBe('bytes */1000');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.json()).toMatchObject({ status: 416, code: 'PIPE_RANGE_NOT_SATISFIABLE' });
    }
  });

  it('a malformed Range, another unit, or more than 100 ranges is ignored: 200 with the whole entity', async () => {
    const many = Array.from({ length: 101 }, (_, i) => `${i * 9}-${i * 9}`).join(',');
    for (const range of ['bytes=abc', 'bytes=5-1', 'items=0-1', 'bytes=', 'bytes=1-2;3', 'bytes 0-1', 'bytes=--1', many]) {
      const r = await get('/r/file', { range });
      expect(r.status, range.slice(0, 20)).toBe(200);
      expect(r.headers['content-range']).toBeUndefined();
      expect(r.body.equals(DATA)).toBe(true);
    }
  });

  it('ranges that overlap out of order and add up to more than the whole are answered whole (200)', async () => {
    // 0-599 and 700-999 stay apart; 100-899 overlaps the second: 600 + 900 bytes for a 1000-byte entity.
    const r = await get('/r/file', { range: 'bytes=0-599,700-999,100-899' });
    expect(r.status).toBe(200);
    expect(r.body.equals(DATA)).toBe(true);
  });

  it('If-Range with the current strong tag: 206; with another tag or a weak one: 200 with the whole entity', async () => {
    const { headers } = await get('/r/bytes');
    const tag = String(headers.etag);
    expect((await get('/r/bytes', { range: 'bytes=0-9', 'if-range': tag })).status).toBe(206);
    for (const other of ['"other"', `W/${tag}`]) {
      const r = await get('/r/bytes', { range: 'bytes=0-9', 'if-range': other });
      expect(r.status).toBe(200);
      expect(r.body.equals(DATA)).toBe(true);
    }
    // The entity's tag is weak: If-Range can never match it (strong comparison).
    expect((await get('/r/weak', { range: 'bytes=0-9', 'if-range': 'W/"w"' })).status).toBe(200);
    // The response's own ETag is the one compared.
    expect((await get('/r/typed', { range: 'bytes=0-9', 'if-range': '"own"' })).status).toBe(206);
  });

  it('If-Range with the exact Last-Modified date: 206; another date or garbage: 200', async () => {
    const date = OLD.toUTCString();
    for (const url of ['/r/file', '/r/bytes']) {
      expect((await get(url, { range: 'bytes=0-9', 'if-range': date })).status).toBe(206);
      expect((await get(url, { range: 'bytes=0-9', 'if-range': new Date(OLD.getTime() + 1000).toUTCString() })).status).toBe(200);
      expect((await get(url, { range: 'bytes=0-9', 'if-range': 'yesterday' })).status).toBe(200);
    }
    // Without a Range, If-Range is ignored.
    expect((await get('/r/file', { 'if-range': '"nope"' })).status).toBe(200);
  });

  it('HEAD: 200 with Accept-Ranges and the full Content-Length, no body, a Range ignored (ranges are defined for GET)', async () => {
    for (const headers of [{}, { range: 'bytes=0-9' }] as Array<Record<string, string>>) {
      const r = await send({ method: 'HEAD', url: '/r/file', headers });
      expect(r.status).toBe(200);
      expect(r.headers['accept-ranges']).toBe('bytes');
      expect(r.headers['content-length']).toBe('1000');
      expect(r.body.length).toBe(0);
    }
  });

  it('a Range on another method, another status or a stream is ignored: the whole answer, without Accept-Ranges', async () => {
    const post = await send({ method: 'POST', url: '/r/file', headers: { range: 'bytes=0-9' } });
    expect(post.status).toBe(200);
    expect(post.headers['accept-ranges']).toBeUndefined();
    expect(post.body.equals(DATA)).toBe(true);
    const created = await get('/r/created', { range: 'bytes=0-9' });
    expect(created.status).toBe(201);
    expect(created.headers['content-length']).toBe('1000');
    expect(created.body.equals(DATA)).toBe(true);
    const stream = await get('/r/stream', { range: 'bytes=0-9' });
    expect(stream.status).toBe(200);
    expect(stream.headers['accept-ranges']).toBeUndefined();
    expect(stream.body.equals(DATA)).toBe(true);
  });

  it('an empty entity: 200 empty; an int-range is 416 bytes */0, a suffix range is ignored', async () => {
    const whole = await get('/r/empty');
    expect(whole.status).toBe(200);
    expect(whole.headers['content-length']).toBe('0');
    const r = await get('/r/empty', { range: 'bytes=0-' });
    expect(r.status).toBe(416);
    expect(r.headers['content-range']).toBe('bytes */0');
    expect((await get('/r/empty', { range: 'bytes=-5' })).status).toBe(200);
  });

  it('a single range keeps the entity Content-Type', async () => {
    const r = await get('/r/text', { range: 'bytes=10-19' });
    expect(r.status).toBe(206);
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.text).toBe('abcdefghij');
  });
});

describe.each(TRANSPORTS)('ranges and content codings (%s)', (transport) => {
  const send = serveForSuite(
    transport,
    () => new Application({ resources: [Files], providers: [new GzipFeature()], logger: () => undefined }),
  );

  it('a coded answer ignores the Range: 200 gzip of the whole, without Accept-Ranges', async () => {
    const r = await send({ url: '/r/text', headers: { range: 'bytes=0-9', 'accept-encoding': 'gzip' } });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(r.headers['accept-ranges']).toBeUndefined();
    expect(r.headers['content-range']).toBeUndefined();
    expect(gunzipSync(r.body).equals(TEXT)).toBe(true);
  });

  it('without Accept-Encoding the same route serves the range (206, identity)', async () => {
    const r = await send({ url: '/r/text', headers: { range: 'bytes=0-9' } });
    expect(r.status).toBe(206);
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.text).toBe('0123456789');
  });
});

describe('OpenAPI', () => {
  it('documents a method returning a rangeable entity as bytes (application/octet-stream), not as a JSON object', () => {
    const doc = buildOpenApi(new Application({ resources: [Files] }), { info: { title: 'files', version: '1' } });
    const content = (doc.paths['/r/bytes'] as { get: { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> } })
      .get.responses['200']!.content!;
    expect(Object.keys(content)).toEqual(['application/octet-stream']);
    expect(JSON.stringify(doc)).not.toContain('BytesBody');
  });
});

describe('parseContentRange', () => {
  it('reads a range, an unsatisfied length, and refuses what is not a byte range', () => {
    expect(parseContentRange('bytes 0-99/1000')).toEqual({ start: 0, end: 99, length: 1000 });
    expect(parseContentRange('bytes 0-99/*')).toEqual({ start: 0, end: 99, length: undefined });
    expect(parseContentRange('bytes */1000')).toEqual({ start: undefined, end: undefined, length: 1000 });
    for (const bad of ['bytes */*', 'bytes 9-1/10', 'bytes 0-10/10', 'items 0-1/2', 'bytes=0-1/2', '']) {
      expect(parseContentRange(bad)).toBeUndefined();
    }
  });
});
