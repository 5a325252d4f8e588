/**
 * ResponseBuilder's header methods and the redirect statics (Jakarta REST 3.1 §3.5.1; RFC 9110,
 * RFC 9111, RFC 6265) over both transports, and 304 responses (RFC 9110 §15.4.5): no body and no
 * Content-Type/Content-Length reach the client, the validator and cache headers do.
 */
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Application, CacheControl, EntityTag, GET, NewCookie, Path, PathParam, Produces, Response } from '../../src/index.js';
import { rawRoundTrip, splitResponse } from '../helpers/raw-socket.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

/** A relative Location is resolved against the base URI over the socket (Host: 127.0.0.1:port); in-process there is no Host. */
const local = (v: unknown): unknown => (typeof v === 'string' ? v.replace(/^http:\/\/127\.0\.0\.1:\d+(?=\/)/, '') : v);

const WHEN = new Date('2026-03-04T05:06:07Z');
const LATER = new Date('2026-03-05T05:06:07Z');

@Path('/b')
class Builders {
  @GET() @Path('/tag') tag(): Response {
    return Response.ok('x', 'text/plain').tag(new EntityTag('v1', true)).build();
  }
  @GET() @Path('/tag-string') tagString(): Response {
    return Response.ok('x', 'text/plain').tag('v2').build();
  }
  @GET() @Path('/last-modified') lastModified(): Response {
    return Response.ok('x', 'text/plain').lastModified(WHEN).build();
  }
  @GET() @Path('/cache-control') cacheControl(): Response {
    return Response.ok('x', 'text/plain')
      .cacheControl(new CacheControl({ maxAge: 60, private: ['Set-Cookie'], staleWhileRevalidate: 10 }))
      .build();
  }
  @GET() @Path('/expires') expires(): Response {
    return Response.ok('x', 'text/plain').expires(LATER).build();
  }
  @GET() @Path('/allow') allow(): Response {
    return Response.ok('x', 'text/plain').allow('GET', 'HEAD', 'GET', 'OPTIONS').build();
  }
  @GET() @Path('/content-location') contentLocation(): Response {
    return Response.ok('x', 'text/plain').contentLocation('/b/content-location.txt').build();
  }
  @GET() @Path('/cookies') cookies(): Response {
    return Response.ok('x', 'text/plain')
      .cookie(new NewCookie('sid', 'abc', { path: '/', httpOnly: true, secure: true, sameSite: 'Strict', maxAge: 60 }))
      .cookie('legacy=1; Path=/')
      .build();
  }
  @GET() @Path('/language') language(): Response {
    return Response.ok('x', 'text/plain').language('de-CH').build();
  }
  @GET() @Path('/encoding') encoding(): Response {
    return Response.ok(new Uint8Array([1, 2, 3]), 'application/octet-stream')
      .encoding('br')
      .build();
  }
  @GET() @Path('/redirect/{kind}') redirect(@PathParam('kind') kind: string): Response {
    if (kind === 'see-other') return Response.seeOther('/b/target').build();
    if (kind === 'temporary') return Response.temporaryRedirect('/b/target?x=1').build();
    return Response.permanentRedirect('https://example.com/b/target').build();
  }
  @GET() @Path('/not-modified') notModified(): Response {
    return Response.notModified(new EntityTag('nm1'))
      .cacheControl(new CacheControl({ maxAge: 30, public: true }))
      .contentLocation('/b/doc.json')
      .expires(LATER)
      .lastModified(WHEN)
      .header('vary', 'Accept')
      .type('application/json')
      .header('content-length', '42')
      .build();
  }
  @GET() @Path('/not-modified-entity') @Produces('application/json') notModifiedEntity(): Response {
    return Response.status(304)
      .entity({ ignored: true })
      .tag('nm2')
      .cacheControl(new CacheControl({ noCache: true }))
      .build();
  }
}

describe('ResponseBuilder (unit)', () => {
  it('validates what it writes into headers', () => {
    expect(() => Response.ok().tag('a"b')).toThrow(TypeError);
    expect(() => Response.ok().lastModified(new Date('nope'))).toThrow(/lastModified/);
    expect(() => Response.ok().expires(new Date(Number.NaN))).toThrow(/expires/);
    expect(() => Response.ok().allow('GE T')).toThrow(/allow/);
    expect(() => Response.seeOther('/x\r\nSet-Cookie: a=b')).toThrow(/location/);
    expect(() => Response.ok().contentLocation('/x\n')).toThrow(/contentLocation/);
    expect(() => Response.ok().cookie('a=b\r\nX: y')).toThrow(/cookie/);
  });

  it('refuses every control character but HTAB in a header value, at any position, and keeps the rest (RFC 9110 §5.5)', () => {
    const refused = [0x00, 0x08, 0x0a, 0x0d, 0x1f, 0x7f];
    for (const c of refused) {
      const ch = String.fromCharCode(c);
      for (const v of [`${ch}/x`, `/a${ch}b`, `/x${ch}`]) expect(() => Response.created(v), `U+${c.toString(16)}`).toThrow(/location/);
    }
    for (const v of ['/a\tb', '/a b', '/~!*', '/é', '/\u0080', '/a\u00ff', '']) {
      expect(Response.created(v).build().headers.location).toBe(v);
    }
  });

  it('keeps a tag given in header form and removes headers given undefined', () => {
    expect(Response.ok().tag('W/"w"').build().getHeader('etag')).toBe('W/"w"');
    const r = Response.ok()
      .tag('v')
      .lastModified(WHEN)
      .cacheControl(new CacheControl({ noStore: true }))
      .build();
    const cleared = Response.fromResponse(r).tag(undefined).lastModified(undefined).cacheControl(undefined).build();
    expect([cleared.getHeader('etag'), cleared.getHeader('last-modified'), cleared.getHeader('cache-control')]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe.each(TRANSPORTS)('ResponseBuilder headers (%s)', (transport) => {
  let app: Application | undefined;
  const send = serveForSuite(transport, () => (app = new Application({ resources: [Builders], logger: () => undefined })));

  it.each<[string, string, string]>([
    ['/b/tag', 'etag', 'W/"v1"'],
    ['/b/tag-string', 'etag', '"v2"'],
    ['/b/last-modified', 'last-modified', 'Wed, 04 Mar 2026 05:06:07 GMT'],
    ['/b/cache-control', 'cache-control', 'private="Set-Cookie", max-age=60, stale-while-revalidate=10'],
    ['/b/expires', 'expires', 'Thu, 05 Mar 2026 05:06:07 GMT'],
    ['/b/allow', 'allow', 'GET, HEAD, OPTIONS'],
    ['/b/content-location', 'content-location', '/b/content-location.txt'],
    ['/b/language', 'content-language', 'de-CH'],
    ['/b/encoding', 'content-encoding', 'br'],
  ])('GET %s sets %s', async (url, header, value) => {
    const r = await send(url);
    expect(r.status).toBe(200);
    expect(local(r.headers[header])).toBe(value);
  });

  it('cookie() adds one Set-Cookie per NewCookie or string', async () => {
    const r = await send('/b/cookies');
    expect(r.headers['set-cookie']).toEqual(['sid=abc; Path=/; Max-Age=60; Secure; HttpOnly; SameSite=Strict', 'legacy=1; Path=/']);
  });

  it.each<[string, number, string]>([
    ['see-other', 303, '/b/target'],
    ['temporary', 307, '/b/target?x=1'],
    ['permanent', 308, 'https://example.com/b/target'],
  ])('the %s redirect is %i with Location', async (kind, status, location) => {
    const r = await send(`/b/redirect/${kind}`);
    expect(r.status).toBe(status);
    expect(local(r.headers.location)).toBe(location);
  });

  it('Response.notModified: 304 keeps ETag, Cache-Control, Content-Location, Expires, Last-Modified, Vary; no Content-Type/Length, no body', async () => {
    const r = await send('/b/not-modified');
    expect(r.status).toBe(304);
    expect(r.headers.etag).toBe('"nm1"');
    expect(r.headers['cache-control']).toBe('public, max-age=30');
    expect(local(r.headers['content-location'])).toBe('/b/doc.json');
    expect(r.headers.expires).toBe('Thu, 05 Mar 2026 05:06:07 GMT');
    expect(r.headers['last-modified']).toBe('Wed, 04 Mar 2026 05:06:07 GMT');
    expect(r.headers.vary).toBe('Accept');
    expect(r.headers['content-type']).toBeUndefined();
    expect(r.headers['content-length']).toBeUndefined();
    expect(r.body.length).toBe(0);
  });

  it('a 304 with an entity sends no body and no Content-Type/Length, and keeps its headers', async () => {
    const r = await send('/b/not-modified-entity');
    expect(r.status).toBe(304);
    expect(r.headers.etag).toBe('"nm2"');
    expect(r.headers['cache-control']).toBe('no-cache');
    expect(r.headers['content-type']).toBeUndefined();
    expect(r.headers['content-length']).toBeUndefined();
    expect(r.body.length).toBe(0);
  });

  it.runIf(transport === 'socket')('a 304 with an entity puts no body bytes on the wire', async () => {
    const port = (app!.server!.address() as AddressInfo).port;
    const raw = splitResponse(await rawRoundTrip(port, 'GET /b/not-modified-entity HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    expect(raw.status).toBe(304);
    expect(raw.headers.etag).toBe('"nm2"');
    expect(raw.headers['content-type']).toBeUndefined();
    expect(raw.body).toBe('');
  });
});
