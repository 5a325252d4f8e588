import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough, Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createGunzip, gunzip } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { findClassMeta } from '../../../src/core/model/metadata.js';
import { parseMediaType } from '../../../src/core/http/media-type.js';
import { Priorities } from '../../../src/core/util/priorities.js';
import type { Body, FeatureContext, WriterInterceptorContext } from '../../../src/core/context/contracts.js';
import { ContainerRequestContext } from '../../../src/core/context/request-context.js';
import { Response, type OutgoingHeaders } from '../../../src/core/http/response.js';
import { GzipFeature, GzipReaderInterceptor, GzipTagFilter, GzipWriterInterceptor } from '../../../src/features/content-coding/index.js';
import { isCompressibleMediaType } from '../../../src/features/content-coding/gzip-writer-interceptor.js';

const gunzipAsync = promisify(gunzip);

interface FakeWrite {
  body: Body | undefined;
  contentType?: string;
  acceptEncoding?: string;
  method?: string;
  status?: number;
  headers?: OutgoingHeaders;
}

/** A WriterInterceptorContext whose proceed() plays the MessageBodyWriter: it sets `ctx.body`. */
function writeCtx(f: FakeWrite): WriterInterceptorContext & { proceeded: number } {
  const reqHeaders = f.acceptEncoding === undefined ? {} : { 'accept-encoding': f.acceptEncoding };
  const fakeReq = { headers: reqHeaders } as unknown as IncomingMessage;
  const request = new ContainerRequestContext(fakeReq, {} as ServerResponse, f.method ?? 'GET', '/x', '', false);
  const response = new Response(f.status ?? 200, 'entity', { ...f.headers });
  const props = new Map<string, unknown>();
  const ctx = {
    request,
    response,
    entity: response.entity,
    type: String,
    mediaType: parseMediaType(f.contentType ?? 'application/json')!,
    get headers() {
      return response.headers;
    },
    body: undefined as Body | undefined,
    proceeded: 0,
    async proceed() {
      ctx.proceeded++;
      ctx.body = f.body;
    },
    getProperty: (n: string) => props.get(n),
    setProperty: (n: string, v: unknown) => {
      props.set(n, v);
    },
  };
  return ctx;
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

const big = JSON.stringify({ items: Array.from({ length: 100 }, (_, i) => ({ id: i, name: `user ${i}` })) });

describe('GzipWriterInterceptor', () => {
  it('runs at ENTITY_CODER', () => {
    expect(findClassMeta(GzipWriterInterceptor)?.priority).toBe(Priorities.ENTITY_CODER);
  });

  it('compresses a string body above the threshold into one Buffer that gunzips to the original', async () => {
    const ctx = writeCtx({ body: big, acceptEncoding: 'gzip, deflate, br', headers: { 'content-length': Buffer.byteLength(big) } });
    await new GzipWriterInterceptor().aroundWriteTo(ctx);
    expect(ctx.proceeded).toBe(1);
    expect(ctx.headers['content-encoding']).toBe('gzip');
    expect(ctx.headers['content-length']).toBeUndefined();
    expect(ctx.headers.vary).toBe('Accept-Encoding');
    expect(Buffer.isBuffer(ctx.body)).toBe(true);
    expect((await gunzipAsync(ctx.body as Buffer)).toString('utf8')).toBe(big);
    expect((ctx.body as Buffer).length).toBeLessThan(Buffer.byteLength(big));
  });

  it('compresses Uint8Array bodies too', async () => {
    const bytes = new Uint8Array(Buffer.from(big));
    const ctx = writeCtx({ body: bytes, acceptEncoding: 'gzip' });
    await new GzipWriterInterceptor().aroundWriteTo(ctx);
    expect(ctx.headers['content-encoding']).toBe('gzip');
    expect(Buffer.compare(await gunzipAsync(ctx.body as Buffer), Buffer.from(bytes))).toBe(0);
  });

  it.each<[string | undefined, boolean]>([
    [undefined, false],
    ['identity', false],
    ['gzip;q=0', false],
    ['*;q=0', false],
    ['*', true],
    ['x-gzip', true],
    ['gzip;q=0.5, identity', false],
  ])('Accept-Encoding %j -> compressed: %s, Vary always', async (acceptEncoding, compressed) => {
    const ctx = writeCtx({ body: big, acceptEncoding });
    await new GzipWriterInterceptor().aroundWriteTo(ctx);
    expect(ctx.headers['content-encoding']).toBe(compressed ? 'gzip' : undefined);
    expect(ctx.body instanceof Buffer).toBe(compressed);
    if (!compressed) expect(ctx.body).toBe(big);
    expect(ctx.headers.vary).toBe('Accept-Encoding');
  });

  describe('threshold (bytes, not characters)', () => {
    it.each<[string, Body, boolean]>([
      ['1023 ASCII bytes', 'a'.repeat(1023), false],
      ['1024 ASCII bytes', 'a'.repeat(1024), true],
      ['341 x € = 1023 UTF-8 bytes', '€'.repeat(341), false],
      ['342 x € = 1026 UTF-8 bytes (342 chars)', '€'.repeat(342), true],
      ['1023-byte Buffer', Buffer.alloc(1023, 0x61), false],
      ['1024-byte Buffer', Buffer.alloc(1024, 0x61), true],
    ])('%s -> compressed: %s, Vary either way', async (_name, body, compressed) => {
      const ctx = writeCtx({ body, acceptEncoding: 'gzip' });
      await new GzipWriterInterceptor().aroundWriteTo(ctx);
      expect(ctx.headers['content-encoding']).toBe(compressed ? 'gzip' : undefined);
      expect(ctx.headers.vary).toBe('Accept-Encoding');
      if (!compressed) expect(ctx.body).toBe(body);
    });

    it('honours a custom threshold, including 0', async () => {
      const small = writeCtx({ body: 'hi', acceptEncoding: 'gzip' });
      await new GzipWriterInterceptor({ threshold: 0 }).aroundWriteTo(small);
      expect((await gunzipAsync(small.body as Buffer)).toString()).toBe('hi');
      const below = writeCtx({ body: 'x'.repeat(4999), acceptEncoding: 'gzip' });
      await new GzipWriterInterceptor({ threshold: 5000 }).aroundWriteTo(below);
      expect(below.headers['content-encoding']).toBeUndefined();
    });
  });

  it.each(['image/png', 'application/octet-stream', 'application/zip', 'video/mp4', 'text/event-stream'])(
    'leaves %s alone, without Vary',
    async (contentType) => {
      const ctx = writeCtx({ body: big, contentType, acceptEncoding: 'gzip' });
      await new GzipWriterInterceptor().aroundWriteTo(ctx);
      expect(ctx.body).toBe(big);
      expect(ctx.headers['content-encoding']).toBeUndefined();
      expect(ctx.headers.vary).toBeUndefined();
    },
  );

  it.each([
    'text/plain',
    'text/html',
    'text/csv',
    'application/json',
    'application/problem+json',
    'application/vnd.api+json',
    'application/xml',
    'image/svg+xml',
    'application/javascript',
  ])('default media types: %s is compressible', (mt) => {
    expect(isCompressibleMediaType(parseMediaType(mt)!)).toBe(true);
  });

  it('uses a custom media type predicate', async () => {
    const onlyCsv = new GzipWriterInterceptor({ mediaTypes: (mt) => mt.essence === 'text/csv' });
    const json = writeCtx({ body: big, acceptEncoding: 'gzip' });
    await onlyCsv.aroundWriteTo(json);
    expect(json.headers['content-encoding']).toBeUndefined();
    const csv = writeCtx({ body: big, contentType: 'text/csv', acceptEncoding: 'gzip' });
    await onlyCsv.aroundWriteTo(csv);
    expect(csv.headers['content-encoding']).toBe('gzip');
  });

  it('does not touch a body that already has a Content-Encoding, and adds no Vary', async () => {
    const ctx = writeCtx({ body: big, acceptEncoding: 'gzip', headers: { 'content-encoding': 'br' } });
    await new GzipWriterInterceptor().aroundWriteTo(ctx);
    expect(ctx.headers['content-encoding']).toBe('br');
    expect(ctx.body).toBe(big);
    expect(ctx.headers.vary).toBeUndefined();
  });

  it('treats Content-Encoding: identity as no coding', async () => {
    const ctx = writeCtx({ body: big, acceptEncoding: 'gzip', headers: { 'content-encoding': 'identity' } });
    await new GzipWriterInterceptor().aroundWriteTo(ctx);
    expect(ctx.headers['content-encoding']).toBe('gzip');
  });

  it.each([204, 304, 206])('leaves status %i alone', async (status) => {
    const ctx = writeCtx({ body: big, acceptEncoding: 'gzip', status });
    await new GzipWriterInterceptor().aroundWriteTo(ctx);
    expect(ctx.body).toBe(big);
    expect(ctx.headers['content-encoding']).toBeUndefined();
  });

  it('leaves a Content-Range response alone', async () => {
    const ctx = writeCtx({ body: big, acceptEncoding: 'gzip', headers: { 'content-range': 'bytes 0-9/100' } });
    await new GzipWriterInterceptor().aroundWriteTo(ctx);
    expect(ctx.headers['content-encoding']).toBeUndefined();
  });

  it('does nothing when the writer produced no body', async () => {
    const ctx = writeCtx({ body: undefined, acceptEncoding: 'gzip' });
    await new GzipWriterInterceptor().aroundWriteTo(ctx);
    expect(ctx.body).toBeUndefined();
    expect(ctx.headers).toEqual({});
  });

  it('appends to an existing Vary instead of replacing it, once', async () => {
    const ctx = writeCtx({ body: big, acceptEncoding: 'gzip', headers: { vary: 'Origin' } });
    await new GzipWriterInterceptor().aroundWriteTo(ctx);
    expect(ctx.headers.vary).toBe('Origin, Accept-Encoding');
    const again = writeCtx({ body: big, acceptEncoding: 'gzip', headers: { vary: 'origin, accept-encoding' } });
    await new GzipWriterInterceptor().aroundWriteTo(again);
    expect(again.headers.vary).toBe('origin, accept-encoding');
  });

  it('gives the compressed variant its own tag: -gzip inside the quotes, strong stays strong, weak stays weak', async () => {
    const strong = writeCtx({ body: big, acceptEncoding: 'gzip', headers: { etag: '"v1"' } });
    await new GzipWriterInterceptor().aroundWriteTo(strong);
    expect(strong.headers.etag).toBe('"v1-gzip"');
    const weak = writeCtx({ body: big, acceptEncoding: 'gzip', headers: { etag: 'W/"v1"' } });
    await new GzipWriterInterceptor().aroundWriteTo(weak);
    expect(weak.headers.etag).toBe('W/"v1-gzip"');
    const odd = writeCtx({ body: big, acceptEncoding: 'gzip', headers: { etag: 'not-a-tag' } });
    await new GzipWriterInterceptor().aroundWriteTo(odd);
    expect(odd.headers.etag).toBe('not-a-tag');
  });

  it('keeps the identity tag when the body is not compressed (client refuses gzip, or too small)', async () => {
    const refused = writeCtx({ body: big, acceptEncoding: 'identity', headers: { etag: '"v1"' } });
    await new GzipWriterInterceptor().aroundWriteTo(refused);
    expect(refused.headers.etag).toBe('"v1"');
    const small = writeCtx({ body: 'tiny', acceptEncoding: 'gzip', headers: { etag: '"v1"' } });
    await new GzipWriterInterceptor().aroundWriteTo(small);
    expect(small.headers.etag).toBe('"v1"');
  });

  it('a 304 still carrying the body it stands for gets the gzip tag and Vary, but no coding', async () => {
    const ctx = writeCtx({ body: big, acceptEncoding: 'gzip', status: 304, headers: { etag: '"v1"' } });
    await new GzipWriterInterceptor().aroundWriteTo(ctx);
    expect(ctx.headers.etag).toBe('"v1-gzip"');
    expect(ctx.headers.vary).toBe('Accept-Encoding');
    expect(ctx.headers['content-encoding']).toBeUndefined();
    expect(ctx.body).toBe(big);
  });

  it('sets the same headers for HEAD as for GET', async () => {
    const ctx = writeCtx({ body: big, acceptEncoding: 'gzip', method: 'HEAD', headers: { 'content-length': 5000 } });
    await new GzipWriterInterceptor().aroundWriteTo(ctx);
    expect(ctx.headers['content-encoding']).toBe('gzip');
    expect(ctx.headers.vary).toBe('Accept-Encoding');
    expect(ctx.headers['content-length']).toBeUndefined();
  });

  it('honours the compression level', async () => {
    const fast = writeCtx({ body: big, acceptEncoding: 'gzip' });
    const none = writeCtx({ body: big, acceptEncoding: 'gzip' });
    await new GzipWriterInterceptor({ level: 9 }).aroundWriteTo(fast);
    await new GzipWriterInterceptor({ level: 0 }).aroundWriteTo(none);
    expect((fast.body as Buffer).length).toBeLessThan((none.body as Buffer).length);
    expect((await gunzipAsync(none.body as Buffer)).toString()).toBe(big);
  });

  it('rejects invalid options when constructed', () => {
    expect(() => new GzipWriterInterceptor({ threshold: -1 })).toThrow(RangeError);
    expect(() => new GzipWriterInterceptor({ threshold: 1.5 })).toThrow(RangeError);
    expect(() => new GzipWriterInterceptor({ level: 10 })).toThrow(RangeError);
    expect(() => new GzipWriterInterceptor({ level: -2 })).toThrow(RangeError);
  });

  describe('stream bodies', () => {
    it('always compresses a stream (size unknown); the output gunzips to the original', async () => {
      const parts = Array.from({ length: 50 }, (_, i) => Buffer.from(`chunk ${i} `.repeat(20)));
      const ctx = writeCtx({
        body: Readable.from(parts),
        contentType: 'text/plain',
        acceptEncoding: 'gzip',
        headers: { 'content-length': 1 },
      });
      await new GzipWriterInterceptor({ threshold: 1 << 30 }).aroundWriteTo(ctx);
      expect(ctx.headers['content-encoding']).toBe('gzip');
      expect(ctx.headers['content-length']).toBeUndefined();
      expect(ctx.body).toBeInstanceOf(Readable);
      const out = await collect((ctx.body as Readable).pipe(createGunzip()));
      expect(out.equals(Buffer.concat(parts))).toBe(true);
    });

    it('passes a source error on to the compressed stream', async () => {
      const source = new PassThrough();
      const ctx = writeCtx({ body: source, acceptEncoding: 'gzip' });
      await new GzipWriterInterceptor().aroundWriteTo(ctx);
      const out = ctx.body as Readable;
      out.resume();
      source.write('partial');
      source.destroy(new Error('upstream failed'));
      await expect(finished(out)).rejects.toThrow('upstream failed');
    });

    it('destroys the source when the consumer goes away', async () => {
      const source = new PassThrough();
      const ctx = writeCtx({ body: source, acceptEncoding: 'gzip' });
      await new GzipWriterInterceptor().aroundWriteTo(ctx);
      (ctx.body as Readable).destroy();
      await finished(source).catch(() => undefined);
      expect(source.destroyed).toBe(true);
    });

    it('leaves a stream alone when the client refuses gzip', async () => {
      const source = Readable.from([Buffer.from('x')]);
      const ctx = writeCtx({ body: source, acceptEncoding: 'identity' });
      await new GzipWriterInterceptor().aroundWriteTo(ctx);
      expect(ctx.body).toBe(source);
      expect(ctx.headers.vary).toBe('Accept-Encoding');
    });
  });
});

describe('GzipFeature', () => {
  it('registers the writer and the reader interceptor with the options passed through', async () => {
    const registered: object[] = [];
    const context: FeatureContext = {
      register(provider) {
        registered.push(provider);
        return this;
      },
    };
    new GzipFeature({ threshold: 0, maxDecodedBytes: 10 }).setup(context);
    expect(registered).toHaveLength(3);
    expect(registered.some((p) => p instanceof GzipTagFilter)).toBe(true);
    const writer = registered.find((p) => p instanceof GzipWriterInterceptor) as GzipWriterInterceptor;
    expect(registered.some((p) => p instanceof GzipReaderInterceptor)).toBe(true);
    const ctx = writeCtx({ body: 'tiny', acceptEncoding: 'gzip' });
    await writer.aroundWriteTo(ctx);
    expect(ctx.headers['content-encoding']).toBe('gzip');
  });

  it('validates options when constructed', () => {
    expect(() => new GzipFeature({ maxDecodedBytes: -1 })).toThrow(RangeError);
    expect(() => new GzipFeature({ level: 42 })).toThrow(RangeError);
  });
});

describe('GzipTagFilter', () => {
  const request = (headers: Record<string, string>): ContainerRequestContext =>
    new ContainerRequestContext({ headers } as unknown as IncomingMessage, {} as ServerResponse, 'GET', '/x', '', false);

  it('is a pre-matching filter', () => {
    expect(findClassMeta(GzipTagFilter)?.preMatching).toBe(true);
  });

  it('removes the -gzip suffix from the tags of If-Match and If-None-Match, weak or strong, and keeps the rest', () => {
    const ctx = request({ 'if-match': '"a-gzip", "b"', 'if-none-match': 'W/"c-gzip", "d-gzip-gzip", "e-gzipped"' });
    new GzipTagFilter().filterRequest(ctx);
    expect(ctx.getHeader('if-match')).toBe('"a", "b"');
    expect(ctx.getHeader('if-none-match')).toBe('W/"c", "d-gzip", "e-gzipped"');
  });

  it('leaves requests without suffixed tags, and *, untouched', () => {
    const raw = { 'if-none-match': '*', 'if-match': '"plain"' };
    const ctx = request(raw);
    new GzipTagFilter().filterRequest(ctx);
    expect(ctx.headers).toBe(ctx.raw.headers);
  });

  it('gives an entity-less 304 the gzip tag and Vary when the client echoed the gzip variant', () => {
    const echoed = request({ 'if-none-match': '"v1-gzip"' });
    const r = new Response(304, undefined, { etag: '"v1"' });
    new GzipTagFilter().filterResponse(echoed, r);
    expect([r.headers.etag, r.headers.vary]).toEqual(['"v1-gzip"', 'Accept-Encoding']);
    // The identity tag: the tag stays, and Vary too, as on the 200 (RFC 9110 §15.4.5; issue 22).
    const identity = new Response(304, undefined, { etag: '"v1"' });
    new GzipTagFilter().filterResponse(request({ 'if-none-match': '"v1"' }), identity);
    expect([identity.headers.etag, identity.headers.vary]).toEqual(['"v1"', 'Accept-Encoding']);
    const ok = new Response(200, undefined, { etag: '"v1"' });
    new GzipTagFilter().filterResponse(echoed, ok);
    expect([ok.headers.etag, ok.headers.vary]).toEqual(['"v1"', undefined]);
  });

  it('gives an entity-less 304 Vary: Accept-Encoding unless its type is known not to be compressible', () => {
    const vary = (produced: string | undefined, headers: Record<string, string> = {}, filter = new GzipTagFilter()): unknown => {
      const ctx = request({ 'if-none-match': '"v1"' });
      ctx.responseMediaType = produced === undefined ? undefined : parseMediaType(produced);
      const r = new Response(304, undefined, { etag: '"v1"', ...headers });
      filter.filterResponse(ctx, r);
      return r.headers.vary;
    };
    expect(vary('application/json')).toBe('Accept-Encoding');
    expect(vary('text/csv', { vary: 'Accept' })).toBe('Accept, Accept-Encoding');
    expect(vary(undefined)).toBe('Accept-Encoding'); // unknown: a missing Vary is the unsafe mistake
    expect(vary('*/*')).toBe('Accept-Encoding');
    expect(vary('image/png')).toBeUndefined();
    expect(vary('application/json', { 'content-type': 'application/octet-stream' })).toBeUndefined();
    // The writer's own choice of types (GzipFeature passes its `mediaTypes`).
    const onlyText = new GzipTagFilter({ mediaTypes: (mt) => mt.type === 'text' });
    expect(vary('application/json', {}, onlyText)).toBeUndefined();
    expect(vary('text/plain', {}, onlyText)).toBe('Accept-Encoding');
  });
});
