/**
 * ETagFeature (RFC 9110 §8.8.3, §13.1.2, §15.4.5) over both transports: computed strong tags for
 * small GET/HEAD 200 responses, 304 on a matching If-None-Match, everything else untouched; and
 * with GzipFeature, the `-gzip` tag of the compressed variant (echoed in If-None-Match: 304; in
 * If-Match on a PUT checked with evaluatePreconditions: success).
 */
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  Application,
  CacheControl,
  Context,
  ContainerRequestContext,
  EntityTag,
  ETagFeature,
  GET,
  GzipFeature,
  Path,
  POST,
  PUT,
  Produces,
  Response,
} from '../../src/index.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

/** A relative Location is resolved against the base URI over the socket (Host: 127.0.0.1:port); in-process there is no Host. */
const local = (v: unknown): unknown => (typeof v === 'string' ? v.replace(/^http:\/\/127\.0\.0\.1:\d+(?=\/)/, '') : v);

const gunzipAsync = promisify(gunzip);
const MAX = 4096;
const big = 'x'.repeat(MAX + 1);
const items = Array.from({ length: 60 }, (_, i) => ({ id: i, name: `item ${i}` }));
let text = 'hello';
let version = 1;

@Path('/t')
class Tagged {
  @GET() @Path('/text') @Produces('text/plain') text(): string {
    return text;
  }
  @GET() @Path('/cached') @Produces('application/json') cached(): Response {
    return Response.ok({ a: 1 })
      .cacheControl(new CacheControl({ maxAge: 60 }))
      .contentLocation('/t/cached.json')
      .lastModified(new Date('2026-01-01T00:00:00Z'))
      .build();
  }
  @GET() @Path('/big') @Produces('text/plain') big(): string {
    return big;
  }
  @GET() @Path('/own') @Produces('text/plain') own(): Response {
    return Response.ok('mine').tag('own-tag').build();
  }
  @GET() @Path('/created') @Produces('text/plain') created(): Response {
    return Response.status(201).entity('made').build();
  }
  @POST() @Path('/text') @Produces('text/plain') post(): string {
    return text;
  }
  @GET() @Path('/stream') stream(): Response {
    return Response.ok(Readable.from(['ab', 'cd'], { objectMode: false }), 'application/octet-stream').build();
  }
  @GET() @Path('/stream-sized') streamSized(): Response {
    return Response.ok(Readable.from(['ab', 'cd'], { objectMode: false }), 'application/octet-stream')
      .header('content-length', 4)
      .build();
  }
  @GET() @Path('/items') @Produces('application/json') items(): unknown {
    return items;
  }
}

/** A resource that computes its own tag and checks preconditions (evaluatePreconditions). */
@Path('/doc')
class Doc {
  @GET() @Produces('application/json') get(@Context() ctx: ContainerRequestContext): Response {
    const tag = new EntityTag(`v${version}`);
    return ctx.evaluatePreconditions({ tag }) ?? Response.ok({ version, items }).tag(tag).build();
  }
  @PUT() @Produces('application/json') put(@Context() ctx: ContainerRequestContext): Response {
    const stop = ctx.evaluatePreconditions({ tag: new EntityTag(`v${version}`) });
    if (stop !== undefined) return stop;
    version++;
    return Response.ok({ version }).build();
  }
}

const quietApp = (providers: object[]): Application => new Application({ resources: [Tagged, Doc], providers, logger: () => undefined });

describe('ETagFeature options', () => {
  it('validates maxBytes and refuses unknown options with a TypeError naming ETagFeature', () => {
    expect(() => new ETagFeature({ maxBytes: -1 })).toThrow(/ETagFeature: option maxBytes/);
    expect(() => new ETagFeature({ maxBytes: 1.5 })).toThrow(TypeError);
    expect(() => new ETagFeature({ weak: true } as never)).toThrow(/ETagFeature: unknown option weak/);
    expect(() => new ETagFeature()).not.toThrow();
  });
});

describe.each(TRANSPORTS)('ETagFeature (%s)', (transport) => {
  const send = serveForSuite(transport, () => quietApp([new ETagFeature({ maxBytes: MAX })]));

  it('sets a strong tag that follows the bytes', async () => {
    text = 'hello';
    const a = await send('/t/text');
    const again = await send('/t/text');
    text = 'hello, world';
    const b = await send('/t/text');
    expect(a.status).toBe(200);
    expect(a.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(again.headers.etag).toBe(a.headers.etag);
    expect(b.headers.etag).not.toBe(a.headers.etag);
  });

  it('answers a matching If-None-Match (weak comparison, or *) with 304: no body, tag kept', async () => {
    text = 'hello';
    const tag = (await send('/t/text')).headers.etag as string;
    for (const inm of [tag, `W/${tag}`, `"nope", ${tag}`, '*']) {
      const r = await send({ url: '/t/text', headers: { 'if-none-match': inm } });
      expect(r.status).toBe(304);
      expect(r.headers.etag).toBe(tag);
      expect(r.headers['content-type']).toBeUndefined();
      expect(r.headers['content-length']).toBeUndefined();
      expect(r.body.length).toBe(0);
    }
    const stale = await send({ url: '/t/text', headers: { 'if-none-match': '"stale"' } });
    expect([stale.status, stale.text]).toEqual([200, 'hello']);
  });

  it('answers HEAD like GET, 304 included', async () => {
    text = 'hello';
    const tag = (await send('/t/text')).headers.etag as string;
    const head = await send({ method: 'HEAD', url: '/t/text' });
    expect([head.status, head.headers.etag]).toEqual([200, tag]);
    const match = await send({ method: 'HEAD', url: '/t/text', headers: { 'if-none-match': tag } });
    expect(match.status).toBe(304);
  });

  it('keeps Cache-Control, Content-Location and Last-Modified on its 304', async () => {
    const tag = (await send('/t/cached')).headers.etag as string;
    const r = await send({ url: '/t/cached', headers: { 'if-none-match': tag } });
    expect(r.status).toBe(304);
    expect(r.headers['cache-control']).toBe('max-age=60');
    expect(local(r.headers['content-location'])).toBe('/t/cached.json');
    expect(r.headers['last-modified']).toBe('Thu, 01 Jan 2026 00:00:00 GMT');
    expect(r.body.length).toBe(0);
  });

  it('leaves a body over maxBytes untagged and whole', async () => {
    const r = await send({ url: '/t/big', headers: { 'if-none-match': '*' } });
    expect(r.status).toBe(200);
    expect(r.headers.etag).toBeUndefined();
    expect(r.text).toBe(big);
  });

  it('leaves POST, non-200 statuses and a resource tag alone', async () => {
    const post = await send({ method: 'POST', url: '/t/text', headers: { 'if-none-match': '*' } });
    expect([post.status, post.headers.etag]).toEqual([200, undefined]);
    const created = await send({ url: '/t/created', headers: { 'if-none-match': '*' } });
    expect([created.status, created.headers.etag]).toEqual([201, undefined]);
    const own = await send({ url: '/t/own', headers: { 'if-none-match': '"own-tag"' } });
    expect([own.status, own.headers.etag, own.text]).toEqual([200, '"own-tag"', 'mine']);
  });

  it('leaves a stream of unknown length untagged; tags one with a declared length within maxBytes', async () => {
    const open = await send('/t/stream');
    expect([open.status, open.headers.etag, open.text]).toEqual([200, undefined, 'abcd']);
    const sized = await send('/t/stream-sized');
    expect([sized.status, sized.text, sized.headers['content-length']]).toEqual([200, 'abcd', '4']);
    expect(sized.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect((await send({ url: '/t/stream-sized', headers: { 'if-none-match': sized.headers.etag as string } })).status).toBe(304);
  });
});

describe.each(TRANSPORTS)('ETagFeature with GzipFeature (%s)', (transport) => {
  const send = serveForSuite(transport, () => quietApp([new GzipFeature(), new ETagFeature({ maxBytes: MAX })]));
  const gzip = { 'accept-encoding': 'gzip' };

  it('tags the identity bytes; the gzipped response carries the tag with -gzip', async () => {
    const identity = await send('/t/items');
    const zipped = await send({ url: '/t/items', headers: gzip });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse((await gunzipAsync(zipped.body)).toString('utf8'))).toEqual(items);
    const tag = identity.headers.etag as string;
    expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(zipped.headers.etag).toBe(`${tag.slice(0, -1)}-gzip"`);
  });

  it('echoing the gzipped tag in If-None-Match gives 304 with that tag and Vary, no body', async () => {
    const zipped = await send({ url: '/t/items', headers: gzip });
    const r = await send({ url: '/t/items', headers: { ...gzip, 'if-none-match': zipped.headers.etag as string } });
    expect(r.status).toBe(304);
    expect(r.headers.etag).toBe(zipped.headers.etag);
    expect(r.headers.vary).toBe('Accept-Encoding');
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.body.length).toBe(0);
    // The identity tag from a client that does not take gzip works as well.
    const identityTag = (await send('/t/items')).headers.etag as string;
    expect((await send({ url: '/t/items', headers: { 'if-none-match': identityTag } })).status).toBe(304);
  });

  it('echoing the gzipped tag in If-Match on a PUT checked with evaluatePreconditions succeeds; a stale one is 412', async () => {
    version = 1;
    const zipped = await send({ url: '/doc', headers: gzip });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.etag).toBe('"v1-gzip"');
    const stale = await send({ method: 'PUT', url: '/doc', headers: { 'if-match': '"v0-gzip"' } });
    expect(stale.status).toBe(412);
    const ok = await send({ method: 'PUT', url: '/doc', headers: { 'if-match': zipped.headers.etag as string } });
    expect([ok.status, ok.json()]).toEqual([200, { version: 2 }]);
  });

  it('a 304 from evaluatePreconditions for a client echoing the gzipped tag carries that tag and Vary', async () => {
    version = 1;
    const r = await send({ url: '/doc', headers: { ...gzip, 'if-none-match': '"v1-gzip"' } });
    expect(r.status).toBe(304);
    expect(r.headers.etag).toBe('"v1-gzip"');
    expect(r.headers.vary).toBe('Accept-Encoding');
    // The identity tag: the 304 still varies on Accept-Encoding, as the 200 did (RFC 9110 §15.4.5; issue 22).
    const identity = await send({ url: '/doc', headers: { 'if-none-match': '"v1"' } });
    expect([identity.status, identity.headers.etag, identity.headers.vary]).toEqual([304, '"v1"', 'Accept-Encoding']);
  });
});
