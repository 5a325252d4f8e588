import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { exceedsDepth, findUnsafeJson } from '../../../src/providers/json-safety.js';
import { JsonReader, parseJsonBody } from '../../../src/providers/json.js';
import { bytes, mt, readCtx, rejection } from './helpers.js';

const reader = new JsonReader();
const JSON_MT = mt('application/json');

function read(body: string | Buffer, mediaType = JSON_MT, limit = 1024 * 1024): Promise<unknown> {
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  return reader.readFrom(Object, mediaType, Readable.from([buf]), readCtx(limit, buf.length));
}

describe('JsonReader: selection', () => {
  it('reads application/json and every +json type, nothing else', () => {
    expect(reader.isReadable(Object, JSON_MT)).toBe(true);
    expect(reader.isReadable(Object, mt('application/json; charset=utf-8'))).toBe(true);
    expect(reader.isReadable(Object, mt('application/merge-patch+json'))).toBe(true);
    expect(reader.isReadable(Object, mt('text/plain'))).toBe(false);
    expect(reader.isReadable(Object, mt('application/jsonp'))).toBe(false);
    expect(reader.isReadable(Object, undefined)).toBe(false);
  });

  it('leaves raw types to their readers', () => {
    expect(reader.isReadable(Buffer, JSON_MT)).toBe(false);
    expect(reader.isReadable(Readable, JSON_MT)).toBe(false);
    expect(reader.isReadable(URLSearchParams, JSON_MT)).toBe(false);
    class Dto {}
    expect(reader.isReadable(Dto, JSON_MT)).toBe(true);
  });

  it('exposes static negotiation info', () => {
    expect(reader.name).toBe('JsonReader');
    expect(reader.consumes).toEqual(['application/json']);
  });
});

describe('JsonReader: values', () => {
  it('parses objects, arrays and scalars', async () => {
    expect(await read('{"a":1,"b":[true,null,"x"]}')).toEqual({ a: 1, b: [true, null, 'x'] });
    expect(await read('[1,2]')).toEqual([1, 2]);
    expect(await read('"s"')).toBe('s');
    expect(await read('null')).toBe(null);
  });

  it('keeps the last of duplicate keys', async () => {
    expect(await read('{"a":1,"a":2}')).toEqual({ a: 2 });
  });

  it('gives undefined for an empty body (the lifecycle applies "entity required")', async () => {
    expect(await read('')).toBeUndefined();
    expect(await read(Buffer.from([0xef, 0xbb, 0xbf]))).toBeUndefined();
  });

  it('treats a whitespace-only body as invalid JSON', async () => {
    expect((await rejection(read('  \n'))).status).toBe(400);
  });

  it('ignores a UTF-8 byte order mark', async () => {
    expect(await read(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]))).toEqual({ a: 1 });
  });

  it('reads +json types the same way', async () => {
    expect(await read('{"op":"add"}', mt('application/json-patch+json'))).toEqual({ op: 'add' });
  });
});

describe('JsonReader: rejections', () => {
  it('answers invalid JSON with 400 without echoing the input', async () => {
    const secret = 'x'.repeat(100_000);
    const err = await rejection(read(`{"a":${secret}`));
    expect(err.status).toBe(400);
    expect(err.code).toBe('PIPE_INVALID_JSON');
    expect(err.message).not.toContain('xxxx');
    expect(err.message.length).toBeLessThan(100);
    expect((await rejection(read('{"a":'))).message).toBe('Invalid JSON: unexpected end of input');
  });

  it('rejects __proto__ keys (400) and leaves Object.prototype untouched', async () => {
    for (const body of ['{"__proto__":{"polluted":1}}', '[{"x":{"__proto__":{"polluted":1}}}]', '{"\\u005f_proto__":{"polluted":1}}']) {
      const err = await rejection(read(body));
      expect(err.status).toBe(400);
      expect(err.code).toBe('PIPE_JSON_FORBIDDEN_KEY');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('rejects constructor.prototype anywhere (400) but allows a plain "constructor" field', async () => {
    const err = await rejection(read('{"a":{"constructor":{"prototype":{"x":1}}}}'));
    expect(err.status).toBe(400);
    expect(err.code).toBe('PIPE_JSON_FORBIDDEN_KEY');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(await read('{"constructor":"Ctor","c":{"constructor":{"name":"n"}}}')).toEqual({
      constructor: 'Ctor',
      c: { constructor: { name: 'n' } },
    });
  });

  it('rejects 100 000-deep nesting with 400, without a stack overflow', async () => {
    const depth = 100_000;
    for (const body of ['['.repeat(depth) + ']'.repeat(depth), '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)]) {
      const err = await rejection(read(body));
      expect(err.status).toBe(400);
      expect(err.code).toBe('PIPE_JSON_TOO_DEEP');
    }
  });

  it('allows exactly maxDepth levels and refuses one more', async () => {
    const nest = (n: number): string => '['.repeat(n) + '0' + ']'.repeat(n);
    let deepest: unknown = 0;
    for (let i = 0; i < 256; i++) deepest = [deepest];
    await expect(read(nest(256))).resolves.toEqual(deepest);
    expect((await rejection(read(nest(257)))).code).toBe('PIPE_JSON_TOO_DEEP');
    expect(
      (await rejection(new JsonReader({ maxDepth: 3 }).readFrom(Object, JSON_MT, bytes(nest(4) + ' '.repeat(10)), readCtx()))).code,
    ).toBe('PIPE_JSON_TOO_DEEP');
  });

  it('does not count brackets inside strings as nesting', async () => {
    const body = JSON.stringify({ s: '['.repeat(2000) + '\\"[' + '{'.repeat(2000) });
    expect(await read(body)).toEqual(JSON.parse(body));
  });

  it('rejects numbers that overflow to Infinity with 400', async () => {
    for (const body of ['1e400', '{"a":-1e400}', '[1,[2,1e999]]', '1' + '0'.repeat(400)]) {
      const err = await rejection(read(body));
      expect(err.status).toBe(400);
      expect(err.code).toBe('PIPE_JSON_NON_FINITE');
    }
    expect(await read('{"a":1e308,"b":5e-324}')).toEqual({ a: 1e308, b: 5e-324 });
  });

  it('accepts utf-8 (any case) and refuses other charsets with 415 before reading', async () => {
    expect(await read('{"é":"ü"}', mt('application/json; charset=UTF-8'))).toEqual({ é: 'ü' });
    const input = bytes('{}');
    const err = await rejection(reader.readFrom(Object, mt('application/json; charset=iso-8859-1'), input, readCtx()));
    expect(err.status).toBe(415);
    expect(err.code).toBe('PIPE_UNSUPPORTED_CHARSET');
    expect(input.readableFlowing).toBe(null);
  });

  it('rejects bytes that are not valid UTF-8 with 400', async () => {
    const err = await rejection(read(Buffer.from([0x22, 0xc3, 0x28, 0x22])));
    expect(err.status).toBe(400);
    expect(err.code).toBe('PIPE_INVALID_JSON');
  });

  it('refuses every kind of invalid UTF-8 and accepts valid text holding U+FFFD itself', () => {
    const invalid = [
      [0x80], // a continuation byte alone
      [0xc0, 0xaf], // an overlong '/'
      [0xe0, 0x80, 0xaf], // an overlong, three bytes
      [0xed, 0xa0, 0x80], // a UTF-16 surrogate (U+D800)
      [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
      [0xe2, 0x82], // a sequence cut short
      [0xff],
    ];
    for (const seq of invalid) {
      const body = Buffer.from([0x22, ...seq, 0x22]);
      expect(() => parseJsonBody(body), Buffer.from(seq).toString('hex')).toThrow('not valid UTF-8');
      // After a byte order mark too, and next to a real U+FFFD.
      const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('"\uFFFD'), Buffer.from(seq), Buffer.from('"')]);
      expect(() => parseJsonBody(withBom), Buffer.from(seq).toString('hex')).toThrow('not valid UTF-8');
    }
    expect(parseJsonBody(Buffer.from('{"s":"\uFFFD é 😀"}'))).toEqual({ s: '\uFFFD é 😀' });
    expect(parseJsonBody(Buffer.from('"\\ufffd"'))).toBe('\uFFFD');
  });

  it('enforces the body limit (413)', async () => {
    expect((await rejection(read('{"a":"0123456789"}', JSON_MT, 5))).status).toBe(413);
  });
});

describe('json-safety helpers', () => {
  it('walks a 100 000-deep parsed tree iteratively', () => {
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 100_000; i++) {
      const next = {};
      deep.a = next;
      deep = next;
    }
    deep.bad = Infinity;
    expect(findUnsafeJson(root)).toBe('PIPE_JSON_NON_FINITE');
    delete deep.bad;
    expect(findUnsafeJson(root)).toBeUndefined();
  });

  it('exceedsDepth counts bracket nesting outside strings', () => {
    const deeper = (s: string, max: number): boolean => exceedsDepth(Buffer.from(s), max);
    expect(deeper('[[[]]]', 2)).toBe(true);
    expect(deeper('[[[]]]', 3)).toBe(false);
    expect(deeper('[{"a":[]}]', 2)).toBe(true);
    expect(deeper('["[[[[[[[\\"[[["]', 2)).toBe(false);
    expect(deeper('["\\\\",[[[]]]]', 2)).toBe(true); // an escaped backslash ends the string
    expect(deeper('[{"é[[[[[[[": "ü{{{{{{"}]', 2)).toBe(false);
  });

  it('parseJsonBody is usable on its own', () => {
    expect(parseJsonBody(Buffer.from('{"a":[1]}'))).toEqual({ a: [1] });
  });
});
