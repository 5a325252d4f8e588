import { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { TypeToken } from '../../../src/core/context/contracts.js';
import { JsonOptions, JsonWriter } from '../../../src/providers/json.js';
import { mt, writeCtx } from './helpers.js';

const JSON_MT = mt('application/json');
const write = (w: JsonWriter, entity: unknown, type: TypeToken = Object): unknown => w.writeTo(entity, type, JSON_MT, writeCtx);

describe('JsonWriter: selection', () => {
  const w = new JsonWriter();
  it('writes application/json and +json types in UTF-8 only', () => {
    expect(w.isWriteable(Object, JSON_MT)).toBe(true);
    expect(w.isWriteable(Object, mt('application/problem+json'))).toBe(true);
    expect(w.isWriteable(Object, mt('application/json; charset=utf-8'))).toBe(true);
    expect(w.isWriteable(Object, mt('application/json; charset=iso-8859-1'))).toBe(false);
    expect(w.isWriteable(Object, mt('text/plain'))).toBe(false);
    expect(w.isWriteable(String, JSON_MT)).toBe(true);
    expect(w.isWriteable(Array, JSON_MT)).toBe(true);
  });

  it('leaves bytes and streams to their writers', () => {
    expect(w.isWriteable(Buffer, JSON_MT)).toBe(false);
    expect(w.isWriteable(ArrayBuffer, JSON_MT)).toBe(false);
    expect(w.isWriteable(Readable, JSON_MT)).toBe(false);
    async function* gen(): AsyncGenerator<string> {
      yield 'x';
    }
    expect(w.isWriteable(gen().constructor, JSON_MT)).toBe(false);
  });

  it('exposes static negotiation info', () => {
    expect(w.name).toBe('JsonWriter');
    expect(w.produces).toEqual(['application/json']);
  });
});

describe('JsonWriter: output', () => {
  it('returns JSON.stringify output as a string when no options are resolved', () => {
    const entity = { a: 1, d: new Date(0), n: null, s: 'é' };
    expect(write(new JsonWriter(), entity)).toBe(JSON.stringify(entity));
    expect(write(new JsonWriter(() => undefined), entity)).toBe(JSON.stringify(entity));
    expect(write(new JsonWriter(), 'str')).toBe('"str"');
  });

  it('asks the resolver with the entity type', () => {
    class User {
      id = 1;
    }
    const resolve = vi.fn((_t: TypeToken) => undefined);
    write(new JsonWriter(resolve), new User(), User);
    expect(resolve).toHaveBeenCalledWith(User);
  });

  it('indents', () => {
    const w = new JsonWriter(() => new JsonOptions({ indent: 2 }));
    expect(write(w, { a: [1] })).toBe('{\n  "a": [\n    1\n  ]\n}');
  });

  it('omits null properties at any depth, keeps nulls in arrays', () => {
    const w = new JsonWriter(() => new JsonOptions({ omitNulls: true }));
    expect(write(w, { a: null, b: { c: null, d: 1 }, e: [null, { f: null }] })).toBe('{"b":{"d":1},"e":[null,{}]}');
    expect(write(w, null)).toBe('null');
  });

  it('omits nulls in a deeply nested entity without recursion of its own', () => {
    const w = new JsonWriter(() => new JsonOptions({ omitNulls: true }));
    let deep: Record<string, unknown> = { x: null };
    for (let i = 0; i < 2000; i++) deep = { a: deep, x: null };
    const out = write(w, deep) as string;
    expect(out.startsWith('{"a":{"a":')).toBe(true);
    expect(out).not.toContain('null');
  });

  it('writes dates as ISO by default and as epoch millis on request, at any depth', () => {
    const d = new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6));
    const entity = { d, list: [d], nested: { d } };
    expect(write(new JsonWriter(() => new JsonOptions({ dateFormat: 'iso' })), entity)).toBe(JSON.stringify(entity));
    const epoch = new JsonWriter(() => new JsonOptions({ dateFormat: 'epoch-millis' }));
    const ms = d.getTime();
    expect(write(epoch, entity)).toBe(`{"d":${ms},"list":[${ms}],"nested":{"d":${ms}}}`);
    expect(write(epoch, d)).toBe(String(ms));
    expect(write(epoch, { s: '2024-01-02T03:04:05.006Z' })).toBe('{"s":"2024-01-02T03:04:05.006Z"}');
  });

  it('applies a user replacer after the date format and before omitNulls', () => {
    const seen: unknown[] = [];
    const w = new JsonWriter(
      () =>
        new JsonOptions({
          dateFormat: 'epoch-millis',
          omitNulls: true,
          replacer: (key, value, holder) => {
            if (key === 'd') seen.push(value, holder);
            return key === 'secret' ? null : value;
          },
        }),
    );
    const entity = { d: new Date(5), secret: 'x', keep: 1 };
    expect(write(w, entity)).toBe('{"d":5,"keep":1}');
    expect(seen).toEqual([5, entity]);
  });

  it('builds the replacer once per options object', () => {
    const options = new JsonOptions({ omitNulls: true });
    const w = new JsonWriter(() => options);
    expect(write(w, { a: null })).toBe('{}');
    expect(write(w, { a: null, b: 2 })).toBe('{"b":2}');
  });

  it('lets serialization errors propagate (server bugs, mapped to 500)', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => write(new JsonWriter(), cyclic)).toThrow(TypeError);
    expect(() => write(new JsonWriter(), () => 1)).toThrow(TypeError);
  });
});
