import { describe, expect, it } from 'vitest';
import {
  APPLICATION_JSON,
  APPLICATION_OCTET_STREAM,
  APPLICATION_XML,
  MAX_ACCEPT_ENTRIES,
  MEDIA_TYPE_CACHE_SIZE,
  TEXT_PLAIN,
  WILDCARD,
  mediaTypeString,
  parseAccept,
  parseMediaType,
  specificity,
  type MediaType,
} from '../../src/core/http/media-type.js';
import { compareNegotiations, consumes, isCompatible, negotiate, negotiateDetailed } from '../../src/core/http/negotiation.js';

function mt(value: string): MediaType {
  const m = parseMediaType(value);
  if (m === undefined) throw new Error(`test setup: unparsable ${value}`);
  return m;
}
const list = (...values: string[]): MediaType[] => values.map(mt);
const essences = (ms: readonly MediaType[]): string[] => ms.map((m) => m.essence);
const chosen = (accept: string | undefined, ...produces: string[]): string | undefined => {
  const m = negotiate(parseAccept(accept), list(...produces));
  return m === undefined ? undefined : mediaTypeString(m);
};

describe('parseMediaType', () => {
  it('answers a repeated value as the first time, also right after another value or an invalid one', () => {
    const json = parseMediaType('application/json');
    const seq = ['application/json', 'application/json', 'text/plain; charset=utf-8', 'not a type', 'not a type', 'application/json'];
    const got = seq.map((v) => parseMediaType(v));
    expect(got[0]).toBe(json);
    expect(got[1]).toBe(json);
    expect(got[2]?.essence).toBe('text/plain');
    expect(got[2]?.params).toEqual({ charset: 'utf-8' });
    expect(got[3]).toBeUndefined();
    expect(got[4]).toBeUndefined();
    expect(got[5]).toBe(json);
    expect(json?.essence).toBe('application/json');
  });

  it('lower-cases type, subtype and parameter names, keeps values, unquotes quoted-strings', () => {
    const m = mt('Application/Vnd.API+JSON ; Charset="UTF-8"; foo=Bar;x="a\\"b"');
    expect(m.type).toBe('application');
    expect(m.subtype).toBe('vnd.api+json');
    expect(m.essence).toBe('application/vnd.api+json');
    expect(m.params).toEqual({ charset: 'UTF-8', foo: 'Bar', x: 'a"b' });
    expect(m.q).toBe(1);
  });

  it('reads q and qs as the weight and keeps them out of params; qs may exceed 1', () => {
    expect(mt('text/html;qs=0.5')).toMatchObject({ q: 0.5, params: {} });
    expect(mt('application/json;qs=2').q).toBe(2);
    expect(mt('text/plain;q=0.3').q).toBe(0.3);
  });

  it.each([
    '',
    'json',
    'text/',
    '/plain',
    'text /plain',
    'text/ plain',
    'text/plain;',
    'text/plain; charset',
    'text/plain; =x',
    'text/plain; a="unterminated',
    '*/json',
    'text/plain, text/html',
    'text/pl@in',
    'text/plain;qs=abc',
  ])('rejects %j', (value) => {
    // 'text/plain;' has an empty parameter, which RFC 9110 allows: accepted below.
    if (value === 'text/plain;') expect(parseMediaType(value)?.essence).toBe('text/plain');
    else expect(parseMediaType(value)).toBeUndefined();
  });

  it('accepts wildcards, empty parameters and whitespace around parameters', () => {
    expect(mt('*/*')).toMatchObject({ type: '*', subtype: '*' });
    expect(mt('text/*')).toMatchObject({ type: 'text', subtype: '*' });
    expect(mt('text/plain ;; charset = utf-8 ').params).toEqual({ charset: 'utf-8' });
  });

  it('ignores a __proto__ parameter instead of touching the prototype', () => {
    const m = mt('text/plain; __proto__=x; a=b');
    expect(m.params).toEqual({ a: 'b' });
    expect(Object.getPrototypeOf(m.params)).toBe(Object.prototype);
  });

  it('returns the same frozen object for the same string (cache)', () => {
    const a = parseMediaType('application/json; charset=utf-8');
    expect(parseMediaType('application/json; charset=utf-8')).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.isFrozen(a?.params)).toBe(true);
  });
});

describe('mediaTypeString / specificity / isCompatible', () => {
  it('formats essence plus parameters, quoting non-token values, never q', () => {
    expect(mediaTypeString(APPLICATION_JSON)).toBe('application/json');
    expect(mediaTypeString(mt('text/plain;q=0.5;charset=utf-8'))).toBe('text/plain; charset=utf-8');
    expect(mediaTypeString(mt('text/plain; a="x y"; b="q\\"t"'))).toBe('text/plain; a="x y"; b="q\\"t"');
  });

  it('ranks */* < type/* < type/subtype', () => {
    expect([WILDCARD, mt('text/*'), TEXT_PLAIN].map(specificity)).toEqual([0, 1, 2]);
  });

  it('treats wildcards on either side as compatible and ignores parameters', () => {
    expect(isCompatible(WILDCARD, TEXT_PLAIN)).toBe(true);
    expect(isCompatible(TEXT_PLAIN, mt('text/*'))).toBe(true);
    expect(isCompatible(mt('text/*'), mt('text/*'))).toBe(true);
    expect(isCompatible(mt('text/plain;charset=a'), mt('text/plain;charset=b'))).toBe(true);
    expect(isCompatible(mt('text/*'), APPLICATION_JSON)).toBe(false);
    expect(isCompatible(TEXT_PLAIN, mt('text/html'))).toBe(false);
  });
});

describe('parseAccept', () => {
  it('treats a missing, empty or blank header as */*', () => {
    for (const h of [undefined, '', '   ']) expect(parseAccept(h)).toEqual([WILDCARD]);
  });

  it('sorts by q desc, then specificity desc, then parameter count desc, stable otherwise', () => {
    const r = parseAccept('*/*;q=0.8, text/*, application/xml;q=0.9, text/html;level=1, text/html, application/json');
    expect(r.map((m) => `${mediaTypeString(m)} ${m.q}`)).toEqual([
      'text/html; level=1 1',
      'text/html 1',
      'application/json 1',
      'text/* 1',
      'application/xml 0.9',
      '*/* 0.8',
    ]);
  });

  it('parses a real browser header', () => {
    const r = parseAccept('text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8');
    expect(essences(r)).toEqual(['text/html', 'application/xhtml+xml', 'image/avif', 'image/webp', 'application/xml', '*/*']);
  });

  it('keeps q=0 entries (they exclude) and ignores accept-ext parameters after q', () => {
    const r = parseAccept('text/plain;q=0, text/html;q=0.5;ext=1');
    expect(r.map((m) => [m.essence, m.q])).toEqual([
      ['text/html', 0.5],
      ['text/plain', 0],
    ]);
    expect(r[0]?.params).toEqual({});
  });

  it('skips invalid entries, including bad q values, but keeps the valid ones', () => {
    const r = parseAccept('garbage, text/html;q=2, application/json, text/plain;q=abc, ,image/png;q=0.5, text/x;q=0.1234, a/b c');
    expect(essences(r)).toEqual(['application/json', 'image/png']);
  });

  it('does not split on commas inside quoted parameter values', () => {
    const r = parseAccept('text/plain; x="a, b", application/json;q=0.5');
    expect(r.map((m) => [m.essence, m.params])).toEqual([
      ['text/plain', { x: 'a, b' }],
      ['application/json', {}],
    ]);
  });

  it('understands the legacy Java default (bare * and q=.2)', () => {
    const r = parseAccept('text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2');
    expect(essences(r)).toEqual(['text/html', 'image/gif', 'image/jpeg', '*/*', '*/*']);
    expect(r[3]?.q).toBe(0.2);
  });

  it('is case-insensitive for type, subtype and the q parameter name', () => {
    expect(parseAccept('TEXT/HTML;Q=0.5').map((m) => [m.essence, m.q])).toEqual([['text/html', 0.5]]);
  });

  it('falls back to */* when no entry is valid', () => {
    expect(parseAccept('json, html')).toEqual([WILDCARD]);
  });

  it('caches: the same header returns the same frozen list, equal to a fresh parse', () => {
    const h = 'application/json, text/plain;q=0.5';
    const a = parseAccept(h);
    expect(parseAccept(h)).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    // A string built at run time (a different string object) hits the same entry.
    expect(parseAccept(['application/json', 'text/plain;q=0.5'].join(', '))).toBe(a);
    for (let i = 0; i < MEDIA_TYPE_CACHE_SIZE + 10; i++) parseAccept(`x/y${i}`); // evicts h
    const b = parseAccept(h);
    expect(b).not.toBe(a);
    expect(b).toEqual(a);
  });

  it(`keeps at most ${MAX_ACCEPT_ENTRIES} entries of a huge header`, () => {
    const h = Array.from({ length: 1000 }, (_, i) => `a/t${i}`).join(',');
    expect(parseAccept(h)).toHaveLength(MAX_ACCEPT_ENTRIES);
  });
});

describe('negotiate (JAX-RS 3.8)', () => {
  it('*/* (or no Accept) with a concrete @Produces gives that type; first @Produces wins ties', () => {
    expect(chosen('*/*', 'application/json')).toBe('application/json');
    expect(chosen(undefined, 'application/json', 'application/xml')).toBe('application/json');
    expect(negotiate(parseAccept(undefined), [])).toBe(APPLICATION_OCTET_STREAM);
  });

  it('orders by client q first', () => {
    expect(chosen('application/json;q=0.5, application/xml', 'application/json', 'application/xml')).toBe('application/xml');
  });

  it('breaks q ties with the server qs', () => {
    expect(chosen('*/*', 'application/xml;qs=0.5', 'application/json;qs=0.9')).toBe('application/json');
    expect(chosen('application/xml;q=0.6, application/json;q=0.5', 'application/xml;qs=0.1', 'application/json')).toBe('application/xml');
  });

  it('prefers the type the client named over one it only reached through a wildcard', () => {
    expect(chosen('application/json, */*', 'text/plain', 'application/json')).toBe('application/json');
  });

  it('lets the most specific Accept range decide q (RFC 9110 §12.5.1)', () => {
    expect(chosen('text/*;q=0, text/plain', 'text/html', 'text/plain')).toBe('text/plain');
    expect(chosen('text/*;q=0, text/plain', 'text/html')).toBeUndefined();
    expect(chosen('*/*;q=0.1, text/html', 'application/json', 'text/html')).toBe('text/html');
    expect(chosen('text/*, text/plain;q=0', 'text/plain', 'text/html')).toBe('text/html');
    expect(chosen('*/*, application/json;q=0', 'application/json')).toBeUndefined();
  });

  it('matches Accept parameters only against types that carry them', () => {
    expect(chosen('text/html;level=1;q=0, text/html', 'text/html')).toBe('text/html');
    expect(chosen('text/html;level=1;q=0, text/html', 'text/html;level=1')).toBeUndefined();
    expect(chosen('text/plain;charset=UTF-8;q=0, */*', 'text/plain;charset=utf-8')).toBeUndefined();
  });

  it('resolves a wildcard @Produces to the concrete Accept type', () => {
    expect(chosen('application/json;q=0.5, text/*', '*/*')).toBe('application/json');
    expect(chosen('text/html', 'text/*')).toBe('text/html');
    expect(chosen('text/html', 'text/*;charset=utf-8')).toBe('text/html; charset=utf-8');
  });

  it('uses application/octet-stream only when nothing concrete and the wildcard is */* or application/*', () => {
    expect(chosen('*/*', '*/*')).toBe('application/octet-stream');
    expect(chosen('application/*', '*/*')).toBe('application/octet-stream');
    expect(chosen('*/*', 'application/*')).toBe('application/octet-stream');
    expect(chosen('*/*', 'text/*')).toBeUndefined(); // §3.8 step 9: text/* cannot be resolved
    expect(chosen('*/*, application/*;q=0', '*/*')).toBeUndefined(); // the client refused octet-stream
    expect(chosen('*/*', '*/*', 'application/json')).toBe('application/json');
  });

  it('returns undefined (406) when nothing is acceptable', () => {
    expect(chosen('application/xml', 'application/json')).toBeUndefined();
    expect(chosen('text/*', 'application/json', 'image/png')).toBeUndefined();
    expect(chosen('application/json;q=0', 'application/json')).toBeUndefined();
  });

  it('returns a @Produces object for a concrete entry (no allocation)', () => {
    const produces = [APPLICATION_JSON, APPLICATION_XML];
    expect(negotiate(parseAccept('application/xml'), produces)).toBe(APPLICATION_XML);
  });

  it('negotiateDetailed reports q, qs and distance for method ranking', () => {
    const accept = parseAccept('application/json;q=0.5, */*;q=0.1');
    const json = negotiateDetailed(accept, list('application/json;qs=0.8'));
    const xml = negotiateDetailed(accept, list('application/xml'));
    expect(json).toMatchObject({ q: 0.5, qs: 0.8, distance: 0 });
    expect(xml).toMatchObject({ q: 0.1, qs: 1, distance: 2 });
    expect(compareNegotiations(json!, xml!)).toBeLessThan(0);
    expect(compareNegotiations(xml!, json!)).toBeGreaterThan(0);
    expect(negotiateDetailed(accept, list('text/*'))).toBeUndefined();
  });
});

describe('consumes', () => {
  it('accepts anything when the list is empty', () => {
    expect(consumes(mt('image/png'), [])).toBe(true);
  });

  it('matches exact, wildcard and parameterised types, ignoring parameters on both sides', () => {
    expect(consumes(mt('application/json; charset=utf-8'), [APPLICATION_JSON])).toBe(true);
    expect(consumes(APPLICATION_JSON, list('application/json;charset=utf-8'))).toBe(true);
    expect(consumes(mt('text/csv'), list('application/json', 'text/*'))).toBe(true);
    expect(consumes(mt('image/png'), list('*/*'))).toBe(true);
  });

  it('rejects incompatible types', () => {
    expect(consumes(TEXT_PLAIN, list('application/json', 'application/*'))).toBe(false);
    expect(consumes(mt('application/jsonx'), [APPLICATION_JSON])).toBe(false);
  });
});
