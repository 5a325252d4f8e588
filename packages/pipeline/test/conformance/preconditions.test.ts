/**
 * Entity tags and conditional requests (Jakarta REST 3.1 §3.5.3, RFC 9110 §8.8.3 and §13.2.2),
 * through `ctx.evaluatePreconditions` in a resource, over both transports; parsing and formatting
 * in isolation.
 */
import { describe, expect, it } from 'vitest';
import { Application, Context, ContainerRequestContext, EntityTag, GET, Path, PUT, Response } from '../../src/index.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

const LAST_MODIFIED = new Date('2026-01-02T03:04:05Z');
let version = 7;

@Path('/doc')
class Doc {
  @GET() get(@Context() ctx: ContainerRequestContext): Response | object {
    const tag = new EntityTag(`v${version}`);
    return (
      ctx.evaluatePreconditions({ tag, lastModified: LAST_MODIFIED }) ?? Response.ok({ version }).header('etag', tag.toString()).build()
    );
  }
  @PUT() put(@Context() ctx: ContainerRequestContext): Response | object {
    const stop = ctx.evaluatePreconditions({ tag: new EntityTag(`v${version}`), lastModified: LAST_MODIFIED });
    if (stop !== undefined) return stop;
    version++;
    return { version };
  }
}

describe('EntityTag', () => {
  it('formats and parses strong and weak tags', () => {
    expect(new EntityTag('abc').toString()).toBe('"abc"');
    expect(new EntityTag('abc', true).toString()).toBe('W/"abc"');
    expect(EntityTag.parse('W/"x y"')).toBeUndefined();
    expect(EntityTag.parse(' W/"1-2" ')).toEqual(new EntityTag('1-2', true));
    expect(EntityTag.parse('abc')).toBeUndefined();
    expect(() => new EntityTag('a"b')).toThrow(TypeError);
  });

  it('parses If-Match / If-None-Match lists and *', () => {
    expect(EntityTag.parseList('*')).toBe('*');
    expect(EntityTag.parseList('"a", W/"b",  "c,d"')).toEqual([new EntityTag('a'), new EntityTag('b', true), new EntityTag('c,d')]);
  });

  it('compares strongly (both strong, same value) and weakly (same value)', () => {
    expect(new EntityTag('1').strongEquals(new EntityTag('1'))).toBe(true);
    expect(new EntityTag('1', true).strongEquals(new EntityTag('1', true))).toBe(false);
    expect(new EntityTag('1', true).weakEquals(new EntityTag('1'))).toBe(true);
  });
});

describe.each(TRANSPORTS)('evaluatePreconditions (%s)', (transport) => {
  const send = serveForSuite(transport, () => new Application({ resources: [Doc], logger: () => undefined }));

  it('GET with a matching If-None-Match (weak comparison) is 304 with ETag and Last-Modified, no body', async () => {
    version = 7;
    const r = await send({ url: '/doc', headers: { 'if-none-match': 'W/"v7", "other"' } });
    expect(r.status).toBe(304);
    expect(r.headers.etag).toBe('"v7"');
    expect(r.headers['last-modified']).toBe(LAST_MODIFIED.toUTCString());
    expect(r.text).toBe('');
  });

  it('GET with a stale If-None-Match is 200 with the current tag', async () => {
    version = 7;
    const r = await send({ url: '/doc', headers: { 'if-none-match': '"v6"' } });
    expect(r.status).toBe(200);
    expect(r.headers.etag).toBe('"v7"');
  });

  it('GET with If-Modified-Since not before Last-Modified is 304; before it, 200', async () => {
    expect((await send({ url: '/doc', headers: { 'if-modified-since': LAST_MODIFIED.toUTCString() } })).status).toBe(304);
    expect((await send({ url: '/doc', headers: { 'if-modified-since': 'Thu, 01 Jan 2026 00:00:00 GMT' } })).status).toBe(200);
    expect((await send({ url: '/doc', headers: { 'if-modified-since': 'not a date' } })).status).toBe(200);
  });

  it('PUT with a stale If-Match is 412 and changes nothing; with the current tag it proceeds', async () => {
    version = 7;
    expect((await send({ method: 'PUT', url: '/doc', headers: { 'if-match': '"v6"' } })).status).toBe(412);
    expect(version).toBe(7);
    expect((await send({ method: 'PUT', url: '/doc', headers: { 'if-match': 'W/"v7"' } })).status).toBe(412); // weak never matches If-Match
    const ok = await send({ method: 'PUT', url: '/doc', headers: { 'if-match': '"v7"' } });
    expect([ok.status, ok.json()]).toEqual([200, { version: 8 }]);
  });

  it('follows the RFC 9110 §13.2.2 order: If-Match decides before If-None-Match, and If-None-Match replaces If-Modified-Since', async () => {
    version = 7;
    expect((await send({ method: 'PUT', url: '/doc', headers: { 'if-match': '"v1"', 'if-none-match': '"zzz"' } })).status).toBe(412);
    // If-None-Match present (no match): If-Modified-Since is not looked at, so 200, not 304.
    const r = await send({ url: '/doc', headers: { 'if-none-match': '"zzz"', 'if-modified-since': LAST_MODIFIED.toUTCString() } });
    expect(r.status).toBe(200);
    // PUT with If-None-Match: * on an existing resource is 412.
    expect((await send({ method: 'PUT', url: '/doc', headers: { 'if-none-match': '*' } })).status).toBe(412);
    // If-Unmodified-Since before the last change is 412.
    expect((await send({ method: 'PUT', url: '/doc', headers: { 'if-unmodified-since': 'Thu, 01 Jan 2026 00:00:00 GMT' } })).status).toBe(
      412,
    );
  });
});
