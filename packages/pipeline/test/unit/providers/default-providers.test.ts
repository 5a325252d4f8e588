import { describe, expect, it } from 'vitest';
import { parseMediaType } from '../../../src/core/http/media-type.js';
import type { MessageBodyReader, MessageBodyWriter, TypeToken } from '../../../src/core/context/contracts.js';
import { defaultProviders, JsonOptions, JsonWriter } from '../../../src/providers/index.js';
import { BytesBody, FileBody } from '../../../src/core/ranges/rangeable-entity.js';
import { mt, writeCtx } from './helpers.js';

const all = defaultProviders();
const readers = all.filter((p): p is MessageBodyReader => 'readFrom' in p);
const writers = all.filter((p): p is MessageBodyWriter => 'writeTo' in p);
const nameOf = (p: unknown): string => (p as { name: string }).name;

describe('defaultProviders', () => {
  it('lists readers and writers most specific first', () => {
    expect(readers.map(nameOf)).toEqual(['BytesReader', 'StreamReader', 'FormReader', 'TextReader', 'JsonReader']);
    expect(writers.map(nameOf)).toEqual([
      'BytesWriter',
      'RangeableEntityWriter',
      'IterableWriter',
      'StreamWriter',
      'TextWriter',
      'JsonWriter',
    ]);
  });

  it('declares parseable media types for negotiation', () => {
    for (const p of all) {
      const list = p as { produces?: readonly string[]; consumes?: readonly string[] };
      for (const s of [...(list.produces ?? []), ...(list.consumes ?? [])]) {
        const m = parseMediaType(s);
        expect(m, s).toBeDefined();
        // A list entry is either concrete or a real wildcard: never a pattern like application/*+json.
        expect(m!.subtype === '*' || !m!.subtype.includes('*')).toBe(true);
      }
    }
  });

  it('picks the expected first reader for typical parameters', () => {
    const first = (type: TypeToken, m: string | undefined): string =>
      nameOf(readers.find((r) => r.isReadable(type, m === undefined ? undefined : mt(m))));
    expect(first(Object, 'application/json')).toBe('JsonReader');
    expect(first(Buffer, 'application/json')).toBe('BytesReader');
    expect(first(Object, 'application/x-www-form-urlencoded')).toBe('FormReader');
    expect(first(String, 'text/plain')).toBe('TextReader');
    expect(first(Buffer, undefined)).toBe('BytesReader');
    expect(readers.find((r) => r.isReadable(Object, mt('application/xml')))).toBeUndefined();
  });

  it('picks the expected first writer for typical entities', () => {
    const first = (type: TypeToken, m: string): string => nameOf(writers.find((w) => w.isWriteable(type, mt(m))));
    expect(first(Object, 'application/json')).toBe('JsonWriter');
    expect(first(String, 'text/plain')).toBe('TextWriter');
    expect(first(Buffer, 'application/json')).toBe('BytesWriter');
    // A file or bytes of known length are sent as they are, whatever the type (ranges: docs/ranges.md).
    expect(first(FileBody, 'application/json')).toBe('RangeableEntityWriter');
    expect(writers.filter((w) => w.isWriteable(BytesBody, mt('application/json'))).map(nameOf)).toEqual(['RangeableEntityWriter']);
    function* g(): Generator<string> {
      yield 'x';
    }
    // A generator's items are framed as NDJSON (README "Streamed results"); raw chunks elsewhere.
    expect(first(g().constructor, 'application/x-ndjson')).toBe('IterableWriter');
    expect(first(g().constructor, 'application/octet-stream')).toBe('StreamWriter');
  });

  it('wires the JSON options resolver into the JSON writer', () => {
    const json = defaultProviders(() => new JsonOptions({ indent: 1 })).find((p) => p instanceof JsonWriter) as JsonWriter;
    expect(json.writeTo({ a: 1 }, Object, mt('application/json'), writeCtx)).toBe('{\n "a": 1\n}');
  });

  it('returns fresh instances on every call', () => {
    expect(defaultProviders()[0]).not.toBe(defaultProviders()[0]);
  });
});
