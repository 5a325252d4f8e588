import { once } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it, vi } from 'vitest';
import { guardStream, StreamReader, StreamWriter } from '../../../src/providers/stream.js';
import { bytes, collect, mt, readCtx, rejection, writeCtx } from './helpers.js';

const OCTETS = mt('application/octet-stream');

describe('StreamReader', () => {
  const reader = new StreamReader();

  it('reads any media type for Readable parameters', () => {
    expect(reader.isReadable(Readable, mt('application/json'))).toBe(true);
    expect(reader.isReadable(Readable, undefined)).toBe(true);
    expect(reader.isReadable(Buffer, OCTETS)).toBe(false);
    expect(reader.consumes).toEqual(['*/*']);
    expect(reader.name).toBe('StreamReader');
  });

  it('hands the bytes through', async () => {
    const out = reader.readFrom(Readable, OCTETS, bytes('ab', 'cd'), readCtx(4, 4));
    expect((await collect(out)).toString()).toBe('abcd');
  });

  it('fails the stream with 413 at the limit, leaving the source paused, not destroyed', async () => {
    const source = bytes('123', '456', '789');
    const out = reader.readFrom(Readable, OCTETS, source, readCtx(5));
    const err = await rejection(collect(out));
    expect(err.status).toBe(413);
    expect(err.code).toBe('PIPE_BODY_TOO_LARGE');
    expect(source.destroyed).toBe(false);
    await vi.waitFor(() => expect(source.isPaused()).toBe(true));
  });

  it('refuses a declared Content-Length over the limit at once, before reading', () => {
    const source = bytes('x'.repeat(20));
    expect(() => reader.readFrom(Readable, OCTETS, source, readCtx(10, 20))).toThrow(expect.objectContaining({ status: 413 }));
    expect(source.readableFlowing).toBe(null);
  });

  it('fails the stream with 400 when the byte count differs from Content-Length', async () => {
    const err = await rejection(collect(reader.readFrom(Readable, OCTETS, bytes('abc'), readCtx(100, 5))));
    expect(err.status).toBe(400);
    expect(err.code).toBe('PIPE_BODY_LENGTH_MISMATCH');
  });

  it('propagates a client reset or a silent destroy as PIPE_CLIENT_ABORTED', async () => {
    const a = new Readable({ read() {} });
    const outA = reader.readFrom(Readable, OCTETS, a, readCtx());
    a.push('part');
    a.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    expect((await rejection(collect(outA))).code).toBe('PIPE_CLIENT_ABORTED');

    const b = new Readable({ read() {} });
    const outB = reader.readFrom(Readable, OCTETS, b, readCtx());
    b.destroy();
    expect((await rejection(collect(outB))).code).toBe('PIPE_CLIENT_ABORTED');
  });

  it('does not crash the process when nobody reads a body that crosses the limit', async () => {
    const source = new Readable({ read() {} }); // still open: more bytes could come
    source.push(Buffer.alloc(100));
    const guard = guardStream(source, 10, undefined);
    // Not events.once: it rejects on the 'error' event this test is about.
    await new Promise((resolve) => guard.on('close', resolve));
    expect((guard.errored as { status?: number } | null)?.status).toBe(413);
    expect(source.destroyed).toBe(false);
    expect(source.isPaused()).toBe(true);
  });
});

describe('StreamWriter: selection', () => {
  const writer = new StreamWriter();
  async function* agen(): AsyncGenerator<string> {
    yield 'a';
  }
  function* sgen(): Generator<string> {
    yield 'a';
  }

  it('writes Readables, async iterables and iterators, as any media type', () => {
    expect(writer.isWriteable(Readable, OCTETS)).toBe(true);
    expect(writer.isWriteable(Readable, mt('application/json'))).toBe(true);
    // The lifecycle's token for a generator object is its `constructor` (an object, not a class).
    expect(writer.isWriteable(agen().constructor, OCTETS)).toBe(true);
    expect(writer.isWriteable(sgen().constructor, OCTETS)).toBe(true);
    class Feed {
      async *[Symbol.asyncIterator](): AsyncGenerator<string> {
        yield 'x';
      }
    }
    expect(writer.isWriteable(Feed, OCTETS)).toBe(true);
    expect(writer.produces).toEqual(['application/octet-stream', '*/*']);
  });

  it('leaves data collections (arrays, strings, sets, maps, bytes) to other writers', () => {
    for (const type of [Array, String, Set, Map, Buffer, Object]) expect(writer.isWriteable(type, OCTETS)).toBe(false);
  });

  it('refuses entities that are not streams', () => {
    expect(() => writer.writeTo(['a', 'b'], Array, OCTETS, writeCtx)).toThrow(TypeError);
    expect(() => writer.writeTo('abc', String, OCTETS, writeCtx)).toThrow(TypeError);
  });
});

describe('StreamWriter: output', () => {
  const writer = new StreamWriter();

  it('returns a Readable entity as is', () => {
    const r = bytes('x');
    expect(writer.writeTo(r, Readable, OCTETS, writeCtx)).toBe(r);
  });

  it('turns async and sync generators of strings / Uint8Arrays into a byte stream', async () => {
    async function* agen(): AsyncGenerator<string | Uint8Array> {
      yield 'hé';
      yield new Uint8Array([33]);
    }
    function* sgen(): Generator<string> {
      yield 'a';
      yield 'b';
    }
    const a = writer.writeTo(agen(), Object, OCTETS, writeCtx) as Readable;
    expect(a.readableObjectMode).toBe(false);
    expect((await collect(a)).toString()).toBe('hé!');
    expect((await collect(writer.writeTo(sgen(), Object, OCTETS, writeCtx) as Readable)).toString()).toBe('ab');
  });

  it('streams a web ReadableStream', async () => {
    const web = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('web'));
        c.close();
      },
    });
    expect((await collect(writer.writeTo(web, ReadableStream, OCTETS, writeCtx) as Readable)).toString()).toBe('web');
  });

  it('fails the stream on a chunk that is not bytes or text', async () => {
    async function* bad(): AsyncGenerator<unknown> {
      yield 'ok';
      yield { no: 1 };
    }
    const err = await rejection(collect(writer.writeTo(bad(), Object, OCTETS, writeCtx) as Readable));
    expect((err as { code?: string }).code).toBe('ERR_INVALID_ARG_TYPE');
  });

  it('keeps production close to a slow consumer (backpressure)', async () => {
    const total = 200;
    let produced = 0;
    let consumed = 0;
    let maxAhead = 0;
    async function* gen(): AsyncGenerator<Buffer> {
      for (let i = 0; i < total; i++) {
        produced++;
        maxAhead = Math.max(maxAhead, produced - consumed);
        yield Buffer.alloc(1024, i);
      }
    }
    const body = writer.writeTo(gen(), Object, OCTETS, writeCtx) as Readable;
    const slow = new Writable({
      highWaterMark: 1024,
      write(_chunk, _enc, cb) {
        consumed++;
        setImmediate(cb);
      },
    });
    await pipeline(body, slow);
    expect(consumed).toBe(total);
    // At most the readable's buffer plus the writable's buffer plus chunks in flight.
    const bound = body.readableHighWaterMark / 1024 + 4;
    expect(maxAhead).toBeLessThanOrEqual(bound);
    expect(maxAhead).toBeLessThan(total / 4);
  });

  it('ends the generator (its finally runs) when the consumer goes away', async () => {
    let finished = false;
    async function* gen(): AsyncGenerator<string> {
      try {
        for (let i = 0; i < 1_000_000; i++) yield 'chunk';
      } finally {
        finished = true;
      }
    }
    const body = writer.writeTo(gen(), Object, OCTETS, writeCtx) as Readable;
    await once(body, 'readable');
    body.destroy();
    await vi.waitFor(() => expect(finished).toBe(true));
  });
});
