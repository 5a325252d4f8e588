import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BytesReader, BytesWriter } from '../../../src/providers/bytes.js';
import { bytes, mt, readCtx, rejection, writeCtx } from './helpers.js';

describe('BytesReader', () => {
  const reader = new BytesReader();
  it('reads any media type (or none) for Buffer and Uint8Array parameters', () => {
    expect(reader.isReadable(Buffer, mt('application/json'))).toBe(true);
    expect(reader.isReadable(Uint8Array, undefined)).toBe(true);
    expect(reader.isReadable(Object, mt('application/octet-stream'))).toBe(false);
    expect(reader.isReadable(String, mt('text/plain'))).toBe(false);
    expect(reader.consumes).toEqual(['*/*']);
  });

  it('returns the body bytes as a Buffer', async () => {
    const out = await reader.readFrom(Buffer, mt('application/octet-stream'), bytes(Buffer.from([1, 2]), Buffer.from([3])), readCtx(10, 3));
    expect(Buffer.isBuffer(out)).toBe(true);
    expect([...out]).toEqual([1, 2, 3]);
  });

  it('enforces the limit and the declared length', async () => {
    expect((await rejection(reader.readFrom(Buffer, undefined, bytes('abcdef'), readCtx(5)))).status).toBe(413);
    expect((await rejection(reader.readFrom(Buffer, undefined, bytes('abc'), readCtx(5, 4)))).status).toBe(400);
  });
});

describe('BytesWriter', () => {
  const writer = new BytesWriter();
  it('writes byte containers as any media type', () => {
    for (const type of [Buffer, Uint8Array, Int16Array, ArrayBuffer, DataView]) {
      expect(writer.isWriteable(type, mt('application/octet-stream'))).toBe(true);
    }
    expect(writer.isWriteable(Buffer, mt('image/png'))).toBe(true);
    expect(writer.isWriteable(Object, mt('application/octet-stream'))).toBe(false);
    expect(writer.isWriteable(String, mt('application/octet-stream'))).toBe(false);
    expect(writer.isWriteable(Readable, mt('application/octet-stream'))).toBe(false);
    expect(writer.produces).toEqual(['application/octet-stream', '*/*']);
  });

  it('returns Buffers unchanged and other containers as zero-copy views', () => {
    const buf = Buffer.from('abc');
    expect(writer.writeTo(buf, Buffer, mt('application/octet-stream'), writeCtx)).toBe(buf);
    const ab = new ArrayBuffer(4);
    const view = writer.writeTo(ab, ArrayBuffer, mt('application/octet-stream'), writeCtx) as Uint8Array;
    new Uint8Array(ab)[0] = 7;
    expect(view[0]).toBe(7);
    const i16 = new Int16Array([1, 256]);
    expect([...(writer.writeTo(i16, Int16Array, mt('application/octet-stream'), writeCtx) as Uint8Array)]).toEqual([
      ...new Uint8Array(i16.buffer),
    ]);
    expect(() => writer.writeTo('no', String, mt('application/octet-stream'), writeCtx)).toThrow(TypeError);
  });
});
