import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ReadableStream } from 'node:stream/web';
import { describe, expect, it } from 'vitest';
import { Response } from '../../../src/core/http/response.js';
import type { ContainerRequestContext } from '../../../src/core/context/request-context.js';
import type { Body, TypeToken, WriteContext } from '../../../src/core/context/contracts.js';
import { IterableWriter } from '../../../src/providers/iterable.js';
import { JsonOptions } from '../../../src/providers/json-options.js';
import { collect, mt, rejection } from './helpers.js';

const NDJSON = mt('application/x-ndjson');
const JSON_TYPE = mt('application/json');
const EVENTS = mt('text/event-stream');

const ctx = (): WriteContext => ({ request: {} as ContainerRequestContext, response: new Response(200) });

async function* agen(): AsyncGenerator<unknown> {
  yield 1;
}
function* sgen(): Generator<unknown> {
  yield 1;
}
/** The lifecycle's token for a generator object (see typeOf in write-entity.ts). */
const tokenOf = (o: object): TypeToken => (Object.getPrototypeOf(o) as { constructor: TypeToken }).constructor;

async function text(body: Body | Promise<Body>): Promise<string> {
  const b = await body;
  if (typeof b === 'string') return b;
  if (b instanceof Uint8Array) return Buffer.from(b).toString('utf8');
  return (await collect(b)).toString('utf8');
}

describe('IterableWriter: selection', () => {
  const writer = new IterableWriter();

  it('takes async iterables and iterators as JSON, NDJSON, JSON Lines and event streams', () => {
    class Feed {
      async *[Symbol.asyncIterator](): AsyncGenerator<number> {
        yield 1;
      }
    }
    for (const type of [tokenOf(agen()), tokenOf(sgen()), Feed])
      for (const m of ['application/json', 'application/problem+json', 'application/x-ndjson', 'application/jsonl', 'text/event-stream'])
        expect(writer.isWriteable(type, mt(m))).toBe(true);
    expect(writer.produces).toEqual(['application/json', 'application/x-ndjson', 'application/jsonl', 'text/event-stream']);
  });

  it('leaves byte streams, data and other media types alone: they keep their writers (and their negotiation)', () => {
    for (const type of [Readable, ReadableStream, Object, Array, String, Buffer, Set, Map]) {
      for (const m of [JSON_TYPE, NDJSON, EVENTS]) expect(writer.isWriteable(type as TypeToken, m)).toBe(false);
    }
    expect(writer.isWriteable(tokenOf(agen()), mt('application/octet-stream'))).toBe(false);
    expect(writer.isWriteable(tokenOf(agen()), mt('text/plain'))).toBe(false);
    expect(writer.isWriteable(tokenOf(agen()), mt('application/json; charset=utf-16'))).toBe(false);
    expect(writer.isWriteable(tokenOf(agen()), mt('application/x-ndjson; charset=UTF-8'))).toBe(true);
  });

  it('refuses an entity that is not an iterable or an iterator, or a media type it does not frame', () => {
    expect(() => writer.writeTo({ a: 1 }, Object, NDJSON, ctx())).toThrow(TypeError);
    expect(() => writer.writeTo(sgen(), Object, mt('text/plain'), ctx())).toThrow(TypeError);
  });
});

describe('IterableWriter: output', () => {
  it('an empty stream is a whole body at once: [] for JSON, nothing for NDJSON and events', async () => {
    const writer = new IterableWriter();
    expect(await writer.writeTo((async function* () {})(), Object, JSON_TYPE, ctx())).toBe('[]');
    expect(writer.writeTo((function* () {})(), Object, NDJSON, ctx())).toBe('');
    expect(writer.writeTo((function* () {})(), Object, EVENTS, ctx())).toBe('');
  });

  it('a sync iterator answers without a promise; undefined and functions are null, as inside an array', async () => {
    const writer = new IterableWriter();
    const body = writer.writeTo([1, undefined, () => 1, 'x'][Symbol.iterator](), Object, JSON_TYPE, ctx());
    expect(body).toBeInstanceOf(Readable);
    expect(await text(body)).toBe('[1,null,null,"x"]');
  });

  it('applies the JSON options of each item class; indent stays off for NDJSON (one item per line)', async () => {
    class Stamp {
      constructor(readonly at: Date) {}
    }
    const options = new JsonOptions({ dateFormat: 'epoch-millis', indent: 2, omitNulls: true });
    const asked: unknown[] = [];
    const writer = new IterableWriter((type) => {
      asked.push(type);
      return type === Stamp ? options : undefined;
    });
    const items = (): Iterator<unknown> =>
      [new Stamp(new Date(5)), new Stamp(new Date(6)), { at: new Date(7), n: null }][Symbol.iterator]();
    expect(await text(writer.writeTo(items(), Object, NDJSON, ctx()))).toBe(
      '{"at":5}\n{"at":6}\n{"at":"1970-01-01T00:00:00.007Z","n":null}\n',
    );
    expect(asked).toEqual([Stamp, Object]); // asked again only when the item class changes
    expect(await text(writer.writeTo(items(), Object, JSON_TYPE, ctx()))).toBe(
      '[{\n  "at": 5\n},{\n  "at": 6\n},{"at":"1970-01-01T00:00:00.007Z","n":null}]',
    );
  });

  it('events: strings as text, objects as JSON, bytes as text, every line its own data: line; Cache-Control set once', async () => {
    const writer = new IterableWriter();
    const c = ctx();
    c.response.headers['cache-control'] = 'no-store';
    const body = writer.writeTo(['a\r\nb', { x: 1 }, Buffer.from('raw')][Symbol.iterator](), Object, EVENTS, c);
    expect(await text(body)).toBe('data: a\ndata: b\n\ndata: {"x":1}\n\ndata: raw\n\n');
    expect(c.response.headers['cache-control']).toBe('no-store'); // the application's own wins
    const d = ctx();
    await text(writer.writeTo(['x'][Symbol.iterator](), Object, EVENTS, d));
    expect(d.response.headers['cache-control']).toBe('no-cache');
  });

  it('items that come in one turn share a chunk; a slower item leaves at the end of its turn', async () => {
    const writer = new IterableWriter();
    async function* quick(): AsyncGenerator<number> {
      for (let i = 0; i < 1000; i++) yield i;
    }
    const chunks: string[] = [];
    for await (const c of (await writer.writeTo(quick(), Object, NDJSON, ctx())) as Readable) chunks.push(String(c));
    expect(chunks.join('').split('\n')).toHaveLength(1001);
    expect(chunks.length).toBeLessThan(10); // not one write per item

    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    async function* slow(): AsyncGenerator<number> {
      yield 1;
      await gate;
      yield 2;
    }
    const stream = (await writer.writeTo(slow(), Object, NDJSON, ctx())) as Readable;
    const it = stream[Symbol.asyncIterator]();
    // The first item arrives while the second is still pending: no batch waits to fill.
    expect(String((await it.next()).value)).toBe('1\n');
    release();
    expect(String((await it.next()).value)).toBe('2\n');
    expect((await it.next()).done).toBe(true);
  });

  it('the first failure rejects writeTo (before any byte); a first item that does not serialise also ends the generator', async () => {
    const writer = new IterableWriter();
    // eslint-disable-next-line require-yield -- fails before its first item: the case under test
    async function* throws(): AsyncGenerator<number> {
      throw new Error('first');
    }
    expect((await rejection(writer.writeTo(throws(), Object, NDJSON, ctx()))).message).toBe('first');
    let finallyRan = false;
    async function* bigint(): AsyncGenerator<unknown> {
      try {
        yield 1n;
      } finally {
        finallyRan = true;
      }
    }
    expect(await rejection(writer.writeTo(bigint(), Object, NDJSON, ctx()))).toBeInstanceOf(TypeError);
    expect(finallyRan).toBe(true);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => writer.writeTo([cycle][Symbol.iterator](), Object, JSON_TYPE, ctx())).toThrow(TypeError);
  });

  it('a later failure errors the stream after the items before it; destroying the stream calls return() once', async () => {
    const writer = new IterableWriter();
    async function* later(): AsyncGenerator<number> {
      yield 1;
      yield 2;
      throw new Error('later');
    }
    const failed = (await writer.writeTo(later(), Object, JSON_TYPE, ctx())) as Readable;
    const seen: string[] = [];
    const err = await rejection(
      pipeline(
        failed,
        new Writable({
          write(c: Buffer, _e, cb) {
            seen.push(c.toString());
            cb();
          },
        }),
      ),
    );
    expect(err.message).toBe('later');
    expect(seen.join('')).toBe('[1,2'); // never the closing bracket: not a complete array

    let returns = 0;
    const iterator: Iterator<number> = {
      next: () => ({ value: 1, done: false }),
      return: () => {
        returns++;
        return { value: undefined, done: true };
      },
    };
    const endless = writer.writeTo(iterator, Object, NDJSON, ctx()) as Readable;
    await new Promise<void>((resolve) => endless.once('readable', () => resolve()));
    endless.destroy();
    endless.destroy();
    expect(returns).toBe(1);
  });

  it('holds at most a batch beyond its highWaterMark when nobody reads', async () => {
    const writer = new IterableWriter();
    let pulled = 0;
    const iterator: Iterator<string> = {
      next: () => {
        pulled++;
        return { value: 'z'.repeat(1000), done: false };
      },
    };
    const stream = writer.writeTo(iterator, Object, NDJSON, ctx()) as Readable;
    await new Promise<void>((resolve) => stream.once('readable', () => resolve()));
    await new Promise((r) => setImmediate(r));
    expect(pulled).toBeGreaterThan(1);
    expect(pulled * 1000).toBeLessThan(64 * 1024); // 16 KiB highWaterMark + a 16 KiB batch, with room
    stream.destroy();
  });
});
