import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FormReader } from '../../../src/providers/form.js';
import { bytes, mt, readCtx, rejection } from './helpers.js';

const FORM = mt('application/x-www-form-urlencoded');
const reader = new FormReader();
const read = (body: string, type: unknown = Object, mediaType = FORM, limit?: number): Promise<unknown> =>
  reader.readFrom(type as object, mediaType, bytes(body), readCtx(limit));

describe('FormReader', () => {
  it('reads urlencoded forms for URLSearchParams and untyped parameters', () => {
    expect(reader.isReadable(URLSearchParams, FORM)).toBe(true);
    expect(reader.isReadable(Object, mt('application/x-www-form-urlencoded; charset=utf-8'))).toBe(true);
    expect(reader.isReadable(String, FORM)).toBe(false);
    expect(reader.isReadable(Object, mt('application/json'))).toBe(false);
    expect(reader.isReadable(Object, undefined)).toBe(false);
    expect(reader.consumes).toEqual(['application/x-www-form-urlencoded']);
    expect(reader.name).toBe('FormReader');
  });

  it('keeps repeated keys, in order, as URLSearchParams', async () => {
    const params = (await read('a=1&b=2&a=3', URLSearchParams)) as URLSearchParams;
    expect(params).toBeInstanceOf(URLSearchParams);
    expect(params.getAll('a')).toEqual(['1', '3']);
    expect(params.get('b')).toBe('2');
  });

  it('builds a null-prototype record with arrays for repeated keys', async () => {
    const rec = (await read('a=1&b=x+y&a=3&a=%C3%A9&c=')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(rec)).toBe(null);
    expect({ ...rec }).toEqual({ a: ['1', '3', 'é'], b: 'x y', c: '' });
  });

  it('treats __proto__ and constructor as ordinary fields', async () => {
    const rec = (await read('__proto__=x&constructor=y&polluted=1')) as Record<string, unknown>;
    expect(rec.__proto__).toBe('x');
    expect(rec.constructor).toBe('y');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads an empty body as an empty form', async () => {
    const rec = await reader.readFrom(Object, FORM, Readable.from([]), readCtx());
    expect(Object.keys(rec)).toEqual([]);
  });

  it('caps the field count (413 above 1000; empty segments do not count)', async () => {
    const fields = (n: number): string => Array.from({ length: n }, (_, i) => `f${i}=${i}`).join('&');
    expect(Object.keys((await read(fields(1000))) as object)).toHaveLength(1000);
    expect(Object.keys((await read(`${fields(1000)}&&&`)) as object)).toHaveLength(1000);
    const err = await rejection(read(fields(1001)));
    expect(err.status).toBe(413);
    expect(err.code).toBe('PIPE_FORM_TOO_MANY_FIELDS');
    expect((await rejection(new FormReader({ maxFields: 2 }).readFrom(Object, FORM, bytes('a=1&b=2&c=3'), readCtx()))).status).toBe(413);
  });

  it('enforces the body limit and refuses non-UTF-8 charsets', async () => {
    expect((await rejection(read('a=0123456789', Object, FORM, 5))).status).toBe(413);
    expect((await rejection(read('a=1', Object, mt('application/x-www-form-urlencoded; charset=iso-8859-1')))).status).toBe(415);
  });
});
