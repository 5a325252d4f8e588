import { describe, expect, it } from 'vitest';
import { parseMediaType, type MediaType } from '../../src/index.js';
import {
  MAX_CACHED_KEY_LENGTH,
  MAX_CACHED_MEDIA_TYPES,
  MAX_CACHED_TYPES,
  mediaTypeKey,
  ProviderCache,
} from '../../src/core/internal/provider-cache.js';
import { Response } from '../../src/core/http/response.js';
import { typeOf } from '../../src/core/internal/writers.js';
import { isStreamType } from '../../src/providers/type-tokens.js';

const mt = (s: string): MediaType => parseMediaType(s)!;

describe('mediaTypeKey', () => {
  it("keeps every parameter, so a charset-deciding provider is never handed another charset's choice", () => {
    expect(mediaTypeKey(mt('application/json; charset=utf-8'))).toBe('application/json; charset=utf-8');
    expect(mediaTypeKey(mt('application/json; charset=latin1'))).not.toBe(mediaTypeKey(mt('application/json; charset=utf-8')));
    expect(mediaTypeKey(mt('application/json'))).not.toBe(mediaTypeKey(mt('application/json; charset=utf-8')));
  });

  it('is equal for spellings that parse to equal media types, and only for those', () => {
    expect(mediaTypeKey(mt('Application/JSON;Charset=utf-8'))).toBe(mediaTypeKey(mt('application/json; charset=utf-8')));
    expect(mediaTypeKey(mt('text/plain; a="x y"'))).toBe('text/plain; a="x y"');
    expect(mediaTypeKey(mt('text/plain; q=0.5'))).not.toBe(mediaTypeKey(mt('text/plain')));
  });

  it('is the empty string for no media type, which no media type formats to', () => {
    expect(mediaTypeKey(undefined)).toBe('');
  });
});

describe('ProviderCache', () => {
  it('remembers a provider per (type, key), each type on its own', () => {
    const c = new ProviderCache<string>();
    c.set(String, 'text/plain', 'text');
    expect(c.get(String, 'text/plain')).toBe('text');
    expect(c.get(Object, 'text/plain')).toBeUndefined();
    expect(c.get(String, 'text/html')).toBeUndefined();
  });

  it(`stores at most ${MAX_CACHED_MEDIA_TYPES} keys per type and keeps the first ones (no eviction)`, () => {
    const c = new ProviderCache<number>();
    for (let i = 0; i < MAX_CACHED_MEDIA_TYPES * 4; i++) c.set(String, `text/plain; n=${i}`, i);
    expect(c.get(String, 'text/plain; n=0')).toBe(0);
    expect(c.get(String, `text/plain; n=${MAX_CACHED_MEDIA_TYPES - 1}`)).toBe(MAX_CACHED_MEDIA_TYPES - 1);
    expect(c.get(String, `text/plain; n=${MAX_CACHED_MEDIA_TYPES}`)).toBeUndefined();
    c.set(Object, 'text/plain; n=999', 7); // another type has its own quota
    expect(c.get(Object, 'text/plain; n=999')).toBe(7);
  });

  it(`never stores a key longer than ${MAX_CACHED_KEY_LENGTH} characters`, () => {
    const c = new ProviderCache<number>();
    const edge = `text/plain; p=${'x'.repeat(MAX_CACHED_KEY_LENGTH - 'text/plain; p='.length)}`;
    c.set(String, edge, 1);
    c.set(String, `${edge}x`, 2);
    expect([c.get(String, edge), c.get(String, `${edge}x`)]).toEqual([1, undefined]);
  });
});

describe('ProviderCache types', () => {
  it(`keeps at most ${MAX_CACHED_TYPES} entity types: later types are scanned, never stored`, () => {
    const c = new ProviderCache<string>();
    const types = Array.from({ length: MAX_CACHED_TYPES + 5 }, () => class {});
    for (const t of types) c.set(t, 'application/json', 'json');
    expect(types.filter((t) => c.get(t, 'application/json') === 'json')).toHaveLength(MAX_CACHED_TYPES);
    expect(c.get(types.at(-1)!, 'application/json')).toBeUndefined();
  });
});

describe('typeOf', () => {
  it("is the class of the entity from its prototype, never a client's own `constructor` property", () => {
    class User {}
    expect(typeOf(new Response(200, new User()))).toBe(User);
    expect(typeOf(new Response(200, { a: 1 }))).toBe(Object);
    // JSON from a client, echoed back: each of these used to be a new "type" in the writer caches.
    expect(typeOf(new Response(200, JSON.parse('{"constructor":{"n":1}}')))).toBe(Object);
    expect(typeOf(new Response(200, JSON.parse('{"constructor":"x"}')))).toBe(Object);
    // A client's key cannot hold a function, so it never claims a class: a class instance whose
    // data carries a `constructor` key is still typed by its prototype.
    expect(typeOf(new Response(200, Object.assign(new User(), JSON.parse('{"constructor":{}}'))))).toBe(User);
    // Only code can set an own `constructor` that is a function: the object is then typed as it says.
    expect(typeOf(new Response(200, Object.assign(new User(), { constructor: Object })))).toBe(Object);
    expect(typeOf(new Response(200, Object.create(null)))).toBe(Object);
    expect(typeOf(new Response(200, 'text'))).toBe(String);
    expect(typeOf(new Response(200, { a: 1 }, undefined, User))).toBe(User);
    // Generator objects keep their (non-function) token, which the stream writer recognises.
    expect(isStreamType(typeOf(new Response(200, (function* () {})())))).toBe(true);
    expect(isStreamType(typeOf(new Response(200, (async function* () {})())))).toBe(true);
  });
});
