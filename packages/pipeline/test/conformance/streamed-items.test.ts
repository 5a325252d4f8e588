// Streamed results (README "Streamed results"): a method returning an (async) iterable of values
// gets them written as a JSON array, NDJSON lines or server-sent events, one item at a time; the
// first item is pulled before the status line (its failure is a normal error answer), a later
// failure cuts the connection, a client that leaves ends the generator, and production follows
// the client's reading. Over undici, curl and in-process.
import { execFile } from 'node:child_process';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { Agent, Client, request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  Application,
  ConflictError,
  Deadline,
  GET,
  GzipFeature,
  JsonOptions,
  Path,
  Produces,
  ResolvesContext,
  Response,
  type ContextResolver,
  type TypeToken,
} from '../../src/index.js';
import { deferred, type Deferred } from '../helpers/deferred.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

const AT = new Date('2024-05-06T07:08:09.010Z');

class Stamp {
  constructor(
    readonly id: number,
    readonly at: Date,
  ) {}
}

/** Stamps are written with epoch-millis dates, as the JSON writer would write one. */
@ResolvesContext(JsonOptions)
class StampJson implements ContextResolver<JsonOptions> {
  private readonly options = new JsonOptions({ dateFormat: 'epoch-millis', indent: 2 });
  getContext(type: TypeToken): JsonOptions | undefined {
    return type === Stamp ? this.options : undefined;
  }
}

/** What the generators of one request did; reset per test. */
interface Track {
  pulled: number;
  finished: Deferred;
  gate: Deferred;
}
let track: Track;
const fresh = (): Track => ({ pulled: 0, finished: deferred(), gate: deferred() });
track = fresh();

const ITEM_PAD = 'x'.repeat(64 * 1024);
const BIG_ITEMS = 800; // 800 x 64 KiB: 50 MiB in all

@Path('/items')
class Items {
  @GET('ndjson')
  @Produces('application/x-ndjson')
  async *ndjson(): AsyncGenerator<object> {
    yield { id: 1 };
    await Promise.resolve();
    yield new Stamp(2, AT);
    yield { id: 3, name: 'three' };
  }

  /** No @Produces: Accept chooses among the writer's types, JSON by default. */
  @GET('negotiated')
  async *negotiated(): AsyncGenerator<unknown> {
    yield { id: 1 };
    yield 'two\nlines';
    yield Buffer.from('{"pre":"serialised"}');
  }

  @GET('events')
  @Produces('text/event-stream')
  async *events(): AsyncGenerator<unknown> {
    yield { id: 1 };
    yield 'line one\nline two';
  }

  @GET('ticks')
  @Produces('text/event-stream')
  async *ticks(): AsyncGenerator<object> {
    yield { n: 1 };
    await track.gate.promise; // opened once the client has the first event
    yield { n: 2 };
  }

  /** An object-mode Readable (a driver's cursor stream) handed over as its async iterator. */
  @GET('cursor')
  @Produces('application/x-ndjson')
  cursor(): AsyncIterator<unknown> {
    return Readable.from([{ id: 1 }, { id: 2 }])[Symbol.asyncIterator]();
  }

  /** An async iterator written as an object literal (its constructor is Object, as a plain object's). */
  @GET('handmade')
  @Produces('application/x-ndjson')
  handmade(): AsyncIterator<unknown> {
    let n = 0;
    return {
      [Symbol.asyncIterator]() {
        return this;
      },
      next: async () => (n < 2 ? { done: false, value: { n: ++n } } : { done: true, value: undefined }),
    } as AsyncIterator<unknown>;
  }

  @GET('sync')
  @Produces('application/json')
  *sync(): Generator<number> {
    yield 1;
    yield 2;
  }

  @GET('empty')
  @Produces('application/json')
  async *empty(): AsyncGenerator<never> {}

  @GET('fails-first')
  @Produces('application/x-ndjson')
  // eslint-disable-next-line require-yield -- fails before its first item: the case under test
  async *failsFirst(): AsyncGenerator<object> {
    throw new Error('cursor failed');
  }

  @GET('mapped-first')
  @Produces('application/x-ndjson')
  // eslint-disable-next-line require-yield -- fails before its first item: the case under test
  async *mappedFirst(): AsyncGenerator<object> {
    throw new ConflictError('the export is already running', { code: 'EXPORT_BUSY' });
  }

  @GET('bigint-first')
  @Produces('application/x-ndjson')
  async *bigintFirst(): AsyncGenerator<object> {
    try {
      yield { n: 1n };
    } finally {
      track.finished.resolve();
    }
  }

  @GET('fails-later')
  @Produces('application/x-ndjson')
  async *failsLater(): AsyncGenerator<object> {
    yield { id: 1 };
    yield { id: 2 };
    await track.gate.promise; // the test opens it once the client has the first items
    throw new Error('cursor lost');
  }

  @GET('bigint-later')
  @Produces('application/json')
  async *bigintLater(): AsyncGenerator<object> {
    try {
      yield { id: 1 };
      await track.gate.promise;
      yield { n: 2n };
      yield { id: 3 };
    } finally {
      track.finished.resolve();
    }
  }

  @GET('endless')
  @Produces('application/x-ndjson')
  async *endless(): AsyncGenerator<object> {
    try {
      for (let i = 0; ; i++) {
        track.pulled++;
        yield { i, pad: 'y'.repeat(1000) };
      }
    } finally {
      track.finished.resolve();
    }
  }

  @GET('big')
  @Produces('application/x-ndjson')
  async *big(): AsyncGenerator<object> {
    for (let i = 0; i < BIG_ITEMS; i++) {
      track.pulled++;
      yield { i, pad: ITEM_PAD };
    }
  }

  @GET('no-content')
  noContent(): Response {
    return Response.status(204).entity(this.watched()).build();
  }

  @GET('watched')
  @Produces('application/x-ndjson')
  async *watched(): AsyncGenerator<object> {
    try {
      yield { id: 1 };
      yield { id: 2 };
    } finally {
      track.finished.resolve();
    }
  }

  /** A deadline covers the method's promise; the stream it resolves with is not cut (as SSE). */
  @GET('deadline')
  @Produces('application/x-ndjson')
  @Deadline(50)
  async deadline(): Promise<AsyncGenerator<object>> {
    await Promise.resolve();
    return (async function* late() {
      yield { id: 1 };
      await new Promise((r) => setTimeout(r, 150)); // past the deadline
      yield { id: 2 };
    })();
  }
}

const logged: unknown[] = [];
const newApp = (): Application =>
  new Application({
    resources: [Items],
    providers: [StampJson, new GzipFeature({ threshold: 0 })],
    logger: (e) => logged.push(e),
  });

beforeEach(() => {
  track = fresh();
  logged.length = 0;
});

const lines = (text: string): unknown[] =>
  text
    .split('\n')
    .slice(0, -1)
    .map((l) => JSON.parse(l) as unknown);

/** Rejects after `ms`: a wait on a promise that cannot hang the suite. */
async function within<T>(promise: Promise<T>, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe.each(TRANSPORTS)('streamed items (%s)', (transport) => {
  const send = serveForSuite(transport, newApp);

  it('NDJSON: one JSON text per item, each ended by \\n, dates as the JSON options say, chunked', async () => {
    const r = await send('/items/ndjson');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/x-ndjson');
    expect(r.headers['content-length']).toBeUndefined();
    // NDJSON is not compressible by default: identity, whatever the client accepts.
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.text).toBe(`{"id":1}\n{"id":2,"at":${AT.getTime()}}\n{"id":3,"name":"three"}\n`);
  });

  it('no @Produces: a JSON array by default (strings as JSON strings, bytes as pre-serialised items), Vary: Accept', async () => {
    const r = await send('/items/negotiated');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    expect(String(r.headers.vary).split(', ')).toContain('Accept');
    expect(r.json()).toEqual([{ id: 1 }, 'two\nlines', { pre: 'serialised' }]);
  });

  it('no @Produces: Accept picks NDJSON, JSON Lines or events', async () => {
    const nd = await send({ url: '/items/negotiated', headers: { accept: 'application/x-ndjson' } });
    expect(nd.headers['content-type']).toBe('application/x-ndjson');
    expect(nd.text).toBe('{"id":1}\n"two\\nlines"\n{"pre":"serialised"}\n');
    const jsonl = await send({ url: '/items/negotiated', headers: { accept: 'application/jsonl' } });
    expect(jsonl.headers['content-type']).toBe('application/jsonl');
    expect(lines(jsonl.text)).toHaveLength(3);
    const ev = await send({ url: '/items/negotiated', headers: { accept: 'text/event-stream' } });
    expect(ev.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(ev.text).toBe('data: {"id":1}\n\ndata: two\ndata: lines\n\ndata: {"pre":"serialised"}\n\n');
  });

  it('text/event-stream: one data event per item, JSON for objects, text split into data lines, no-cache', async () => {
    const r = await send('/items/events');
    expect(r.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(r.headers['cache-control']).toBe('no-cache');
    expect(r.text).toBe('data: {"id":1}\n\ndata: line one\ndata: line two\n\n');
  });

  it('an async iterator written as an object literal has its values framed, not written as an object', async () => {
    expect((await send('/items/handmade')).text).toBe('{"n":1}\n{"n":2}\n');
  });

  it("an object-mode Readable's async iterator has its values framed", async () => {
    expect((await send('/items/cursor')).text).toBe('{"id":1}\n{"id":2}\n');
  });

  it('a sync generator is streamed too; an empty stream is the empty array', async () => {
    expect((await send('/items/sync')).json()).toEqual([1, 2]);
    const empty = await send('/items/empty');
    expect([empty.status, empty.text, empty.headers['content-length']]).toEqual([200, '[]', '2']);
  });

  it('a JSON array through GzipFeature is gzipped and decodes to the array', async () => {
    const r = await send({ url: '/items/negotiated', headers: { 'accept-encoding': 'gzip' } });
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(r.body).toString('utf8'))).toEqual([{ id: 1 }, 'two\nlines', { pre: 'serialised' }]);
  });

  it('a generator that throws before its first item: 500 with the error body, logged', async () => {
    const r = await send('/items/fails-first');
    expect(r.status).toBe(500);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.json()).toEqual({ status: 500, error: 'Internal Server Error', code: 'HTTP_500' });
    expect(logged).toHaveLength(1);
    expect(String(logged[0])).toContain('cursor failed');
  });

  it('an HTTP error before the first item keeps its status and code', async () => {
    const r = await send('/items/mapped-first');
    expect(r.status).toBe(409);
    expect(r.json()).toMatchObject({ status: 409, code: 'EXPORT_BUSY', message: 'the export is already running' });
  });

  it('a first item that cannot be serialised (BigInt): 500, and the generator is ended (its finally runs)', async () => {
    const r = await send('/items/bigint-first');
    expect(r.status).toBe(500);
    expect(r.json()).toMatchObject({ status: 500 });
    await within(track.finished.promise);
  });

  it('HEAD pulls the first item for the headers, then ends the generator', async () => {
    const r = await send({ method: 'HEAD', url: '/items/watched' });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/x-ndjson');
    expect(r.body.length).toBe(0);
    await within(track.finished.promise);
  });

  it('204: no body, the generator is ended', async () => {
    const r = await send('/items/no-content');
    expect(r.status).toBe(204);
    expect(r.body.length).toBe(0);
    await within(track.finished.promise);
  });

  it('a deadline does not cut a stream that has started (as for server-sent events)', async () => {
    const r = await send('/items/deadline');
    expect(r.status).toBe(200);
    expect(lines(r.text)).toEqual([{ id: 1 }, { id: 2 }]);
  });
});

describe('streamed items: failures after the first byte (in-process)', () => {
  const app = newApp();

  it('a generator that throws after two items: the response is aborted, not completed; logged once', async () => {
    track.gate.resolve();
    const r = await app.inject('/items/fails-later');
    expect(r.status).toBe(200);
    expect(r.aborted).toBe(true);
    expect(logged).toHaveLength(1);
  });

  it('an item that cannot be serialised mid-stream: aborted, and the generator is ended', async () => {
    track.gate.resolve();
    const r = await app.inject('/items/bigint-later');
    expect(r.aborted).toBe(true);
    expect(r.text()).not.toMatch(/\]$/);
    await within(track.finished.promise);
  });
});

describe('streamed items over a socket', () => {
  const app = newApp();
  const agent = new Agent({ keepAliveTimeout: 1000, headersTimeout: 5000, bodyTimeout: 5000 });
  let base: string;
  beforeAll(async () => {
    base = `http://127.0.0.1:${(await app.listen(0, '127.0.0.1')).port}`;
  });
  afterAll(async () => {
    await agent.close();
    await app.close(500);
  });

  /** curl's exit code, stdout and stderr (never rejects; bounded by --max-time). */
  const curl = (path: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> =>
    new Promise((resolve) => {
      execFile('curl', ['-sS', '--no-buffer', '--max-time', '10', ...args, `${base}${path}`], (error, out, err) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, out, err });
      });
    });

  it('undici: the client sees the first items, then reading the body fails (no terminating chunk)', async () => {
    const res = await request(`${base}/items/fails-later`, { dispatcher: agent });
    expect(res.statusCode).toBe(200);
    expect(res.headers['transfer-encoding']).toBe('chunked');
    let received = '';
    let error: unknown;
    try {
      for await (const chunk of res.body) {
        received += (chunk as Buffer).toString('utf8');
        if (received.endsWith('{"id":2}\n')) track.gate.resolve();
      }
    } catch (e) {
      error = e;
    }
    expect(received).toBe('{"id":1}\n{"id":2}\n');
    expect((error as { code?: string } | undefined)?.code).toMatch(/^(UND_ERR_SOCKET|ECONNRESET)$/);
    expect(logged).toHaveLength(1);
    expect(String(logged[0])).toContain('cursor lost');
  });

  it('curl: a complete stream exits 0 with every line; one that fails mid-way exits 18 (transfer closed)', async () => {
    const ok = await curl('/items/ndjson');
    expect(ok.code).toBe(0);
    expect(lines(ok.out)).toHaveLength(3);

    track.gate.resolve(); // fails as soon as the two items are out
    const broken = await curl('/items/fails-later');
    expect(broken.code).toBe(18);
    expect(broken.err).toMatch(/transfer closed with outstanding read data remaining/);
    expect(broken.out).toBe('{"id":1}\n{"id":2}\n');
  });

  it('curl: a JSON array and an event stream arrive whole', async () => {
    const arr = await curl('/items/negotiated', '-H', 'accept: application/json');
    expect([arr.code, JSON.parse(arr.out)]).toEqual([0, [{ id: 1 }, 'two\nlines', { pre: 'serialised' }]]);
    const ev = await curl('/items/events', '-H', 'accept: text/event-stream');
    expect([ev.code, ev.out]).toEqual([0, 'data: {"id":1}\n\ndata: line one\ndata: line two\n\n']);
  });

  it('an event leaves as soon as it is produced: the first arrives while the second is still pending', async () => {
    const res = await request(`${base}/items/ticks`, { dispatcher: agent });
    const it = res.body[Symbol.asyncIterator]();
    expect(String((await it.next()).value)).toBe('data: {"n":1}\n\n');
    track.gate.resolve();
    let rest = '';
    for (let r = await it.next(); r.done !== true; r = await it.next()) rest += String(r.value);
    expect(rest).toBe('data: {"n":2}\n\n');
  });

  it('a client that goes away mid-stream ends the generator: its finally runs, pulling stops', async () => {
    const client = new Client(base);
    try {
      const res = await client.request({ method: 'GET', path: '/items/endless' });
      const first = await res.body[Symbol.asyncIterator]().next();
      expect(JSON.parse(String(first.value).split('\n')[0]!)).toMatchObject({ i: 0 });
      res.body.destroy();
      await within(track.finished.promise);
      // ~1 KiB items: what was pulled before the client left is bounded by the buffers (a
      // generator whose finally ran cannot yield again).
      expect(track.pulled * 1024).toBeLessThan(32 * 1024 * 1024);
      expect(logged).toHaveLength(0); // a client leaving is not an application error
    } finally {
      await client.destroy();
    }
  });

  it('backpressure: a client that does not read holds production to a bounded amount of a 50 MiB stream', async () => {
    const res = await request(`${base}/items/big`, { dispatcher: agent });
    expect(res.statusCode).toBe(200);
    // Not reading: the generator runs until the buffers are full, then waits.
    const stalledAt = await settled(() => track.pulled);
    // 64 KiB items: under 16 MiB in flight (socket buffers on loopback hold a few MiB).
    expect(stalledAt * 64 * 1024).toBeLessThan(16 * 1024 * 1024);
    expect(stalledAt).toBeLessThan(BIG_ITEMS);
    // Reading resumes production to the end: every item, each line whole.
    let count = 0;
    let tail = '';
    for await (const chunk of res.body) {
      const parts = (tail + (chunk as Buffer).toString('utf8')).split('\n');
      tail = parts.pop()!;
      for (const p of parts) expect((JSON.parse(p) as { i: number }).i).toBe(count++);
    }
    expect([count, tail, track.pulled]).toEqual([BIG_ITEMS, '', BIG_ITEMS]);
  });
});

/** Polls `read` every 20 ms until it returns the same value 5 times in a row (at most 10 s). */
async function settled<T>(read: () => T): Promise<T> {
  let last = read();
  let same = 0;
  for (let i = 0; i < 500 && same < 5; i++) {
    await new Promise((r) => setTimeout(r, 20));
    const now = read();
    same = now === last ? same + 1 : 0;
    last = now;
  }
  return last;
}
