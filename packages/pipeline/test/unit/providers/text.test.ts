import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { TextReader, TextWriter } from '../../../src/providers/text.js';
import { bytes, mt, readCtx, rejection, writeCtx } from './helpers.js';

const reader = new TextReader();
const writer = new TextWriter();
const read = (body: Buffer | string, type: string, limit?: number): Promise<string> =>
  reader.readFrom(String, mt(type), Readable.from([typeof body === 'string' ? Buffer.from(body) : body]), readCtx(limit));

describe('TextReader', () => {
  it('reads text/* into a string for string (or untyped) parameters', () => {
    expect(reader.isReadable(String, mt('text/plain'))).toBe(true);
    expect(reader.isReadable(Object, mt('text/csv'))).toBe(true);
    expect(reader.isReadable(Number, mt('text/plain'))).toBe(false);
    expect(reader.isReadable(String, mt('application/json'))).toBe(false);
    expect(reader.isReadable(String, undefined)).toBe(false);
    expect(reader.consumes).toEqual(['text/plain', 'text/*']);
    expect(reader.name).toBe('TextReader');
  });

  it('decodes UTF-8 by default and when declared', async () => {
    expect(await read('héllo ✓', 'text/plain')).toBe('héllo ✓');
    expect(await read('héllo', 'text/plain; charset=UTF-8')).toBe('héllo');
  });

  it('decodes latin1 and us-ascii', async () => {
    expect(await read(Buffer.from([0x63, 0x61, 0x66, 0xe9]), 'text/plain; charset=ISO-8859-1')).toBe('café');
    expect(await read('plain', 'text/plain; charset=us-ascii')).toBe('plain');
  });

  it('rejects bytes invalid in the charset with 400', async () => {
    expect((await rejection(read(Buffer.from([0xff, 0xfe]), 'text/plain'))).code).toBe('PIPE_INVALID_TEXT');
    expect((await rejection(read(Buffer.from([0x61, 0xe9]), 'text/plain; charset=us-ascii'))).status).toBe(400);
  });

  it('refuses other charsets with 415 before reading', async () => {
    const input = bytes('x');
    const err = await rejection(reader.readFrom(String, mt('text/plain; charset=windows-1252'), input, readCtx()));
    expect(err.status).toBe(415);
    expect(input.readableFlowing).toBe(null);
  });

  it('reads an empty body as the empty string and enforces the limit', async () => {
    expect(await reader.readFrom(String, mt('text/plain'), Readable.from([]), readCtx())).toBe('');
    expect((await rejection(read('0123456789', 'text/plain', 4))).status).toBe(413);
  });
});

describe('TextWriter', () => {
  it('writes scalars as any text/* type', () => {
    for (const type of [String, Number, Boolean, BigInt]) expect(writer.isWriteable(type, mt('text/plain'))).toBe(true);
    expect(writer.isWriteable(String, mt('text/html'))).toBe(true);
    expect(writer.isWriteable(Object, mt('text/plain'))).toBe(false);
    expect(writer.isWriteable(String, mt('application/json'))).toBe(false);
    expect(writer.isWriteable(String, mt('text/plain; charset=koi8-r'))).toBe(false);
    expect(writer.produces).toEqual(['text/plain', 'text/*']);
  });

  it('uses String() and returns a string for UTF-8', () => {
    const w = (e: unknown): unknown => writer.writeTo(e, Object, mt('text/plain'), writeCtx);
    expect(w('héllo')).toBe('héllo');
    expect(w(42.5)).toBe('42.5');
    expect(w(false)).toBe('false');
    expect(w(12345678901234567890n)).toBe('12345678901234567890');
  });

  it('encodes latin1 and us-ascii, replacing unmappable characters with ?', () => {
    const latin = writer.writeTo('café ✓', String, mt('text/plain; charset=iso-8859-1'), writeCtx) as Buffer;
    expect([...latin]).toEqual([0x63, 0x61, 0x66, 0xe9, 0x20, 0x3f]);
    const ascii = writer.writeTo('café 😀!', String, mt('text/plain; charset=US-ASCII'), writeCtx) as Buffer;
    expect(ascii.toString('latin1')).toBe('caf? ?!');
  });
});
