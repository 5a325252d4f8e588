// Request and response bodies: readers and writers by type and media type, the empty-body policy
// (README "Decisions" 6), limits and JSON hardening (Fastify's body-limit contract), return values
// (README "Return values"), streamed responses with backpressure and client aborts.
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { Application, Entity, FormParam, GET, Path, POST, Produces, Response } from '../../src/index.js';
import { start, serveForSuite, TRANSPORTS, type Send, type Transport } from '../helpers/transports.js';

const LIMIT = 1024;
const KiB = 1024;
const MiB = 1024 * KiB;

class Point {
  x!: number;
  y!: number;
}

/**
 * A lazy byte source: produces `chunk` bytes per `_read`, counts them, records `_destroy`, and
 * tells when it is held back: `stalled` while a push() was refused and no `_read` came since.
 */
class LazySource extends Readable {
  produced = 0;
  destroyCalled = false;
  stalled = false;
  /** What the client has read so far; the test keeps it current (the source cannot see the client). */
  clientRead = 0;
  /** The largest `produced - clientRead` at any push: how far production ever ran ahead of the client. */
  maxLead = 0;
  constructor(
    private readonly total: number,
    private readonly chunk = 64 * KiB,
  ) {
    super({ highWaterMark: 64 * KiB });
  }
  override _read(): void {
    this.stalled = false;
    if (this.produced >= this.total) {
      this.push(null);
      return;
    }
    const n = Math.min(this.chunk, this.total - this.produced);
    this.produced += n;
    this.maxLead = Math.max(this.maxLead, this.produced - this.clientRead);
    this.stalled = !this.push(Buffer.alloc(n, 0x61));
  }
  override _destroy(err: Error | null, cb: (e?: Error | null) => void): void {
    this.destroyCalled = true;
    cb(err);
  }
}

/** What the streaming resources hand out, so tests can watch the server-side producer. */
const sources: LazySource[] = [];
const generators = { started: 0, finished: 0, yielded: 0 };
let methodCalls = 0;

@Path('/b')
class BodyResource {
  @GET('plain') @Produces('text/plain') plain(): string {
    return 'café';
  }
  // A Response: build() refuses a declared string no writer writes as text/plain; charset=utf-16,
  // and this route is kept to show the writer decision per full media type at request time.
  @GET('utf16') @Produces('text/plain; charset=utf-16') utf16(): Response {
    return Response.ok('café').build();
  }

  @POST('json')
  json(body: Point): unknown {
    methodCalls++;
    return { received: body, plain: Object.getPrototypeOf(body) === Object.prototype };
  }

  @POST('optional')
  optional(@Entity(Point, { optional: true }) body: Point | undefined): unknown {
    return { absent: body === undefined, body: body ?? null };
  }

  @POST('text')
  text(body: string): string {
    return `got:${body}`;
  }

  @POST('bytes')
  bytes(body: Buffer): Buffer {
    return Buffer.concat([Buffer.from([0xff]), body]);
  }

  @POST('stream')
  async stream(body: Readable): Promise<unknown> {
    let bytes = 0;
    for await (const chunk of body) bytes += (chunk as Buffer).length;
    return { bytes };
  }

  @POST('form')
  form(@FormParam('a') a: string, @FormParam('b') b: number): unknown {
    return { a, b };
  }

  @GET('readable')
  readable(): Readable {
    return Readable.from(['alpha-', 'beta-', 'gamma'], { objectMode: false });
  }

  // Byte chunks under a byte media type; without @Produces a generator's items would be JSON.
  @GET('generator')
  @Produces('application/octet-stream')
  async *generator(): AsyncGenerator<string | Buffer> {
    yield 'one,';
    await Promise.resolve();
    yield Buffer.from('two,');
    yield 'three';
  }

  @GET('array') array(): unknown[] {
    return [1, 'two', { three: 3 }];
  }
  @GET('string') string(): string {
    return 'hello';
  }
  @GET('null') nothing(): null {
    return null;
  }
  @GET('undefined') async undef(): Promise<void> {
    await Promise.resolve();
  }

  @GET('response')
  response(): Response {
    return Response.status(201).header('x-custom', 'yes').location('/b/1').entity({ id: 1 }).build();
  }

  @GET('builder')
  builder(): unknown {
    return Response.status(202).header('x-builder', 'on').entity('queued');
  }

  @GET('lazy')
  lazy(): Readable {
    const s = new LazySource(256 * MiB);
    sources.push(s);
    return s;
  }

  @GET('endless')
  async *endless(): AsyncGenerator<Buffer> {
    generators.started++;
    try {
      for (let i = 0; i < 100_000; i++) {
        generators.yielded++;
        yield Buffer.alloc(64 * KiB, 0x62);
      }
    } finally {
      generators.finished++;
    }
  }
}

const build = (): Application => new Application({ resources: [BodyResource], limits: { bodyLimit: LIMIT }, logger: () => undefined });

const agent = new Agent({ keepAliveTimeout: 1000, headersTimeout: 5000, bodyTimeout: 5000 });
const portOf = (app: Application): number => (app.server!.address() as AddressInfo).port;

/** POSTs a chunked (no Content-Length) body: a Readable for inject, an undici stream body over the socket. */
async function postChunked(
  app: Application,
  transport: Transport,
  url: string,
  headers: Record<string, string>,
  chunks: () => Iterable<Buffer>,
): Promise<{ status: number; text: string; json: () => any }> {
  if (transport === 'in-process') {
    const r = await app.inject({ method: 'POST', url, headers, body: Readable.from(chunks(), { objectMode: false }) });
    return { status: r.status, text: r.text(), json: () => r.json() };
  }
  const r = await request(`http://127.0.0.1:${portOf(app)}${url}`, {
    method: 'POST',
    headers,
    body: Readable.from(chunks(), { objectMode: false }),
    dispatcher: agent,
  });
  const text = await r.body.text();
  return { status: r.statusCode, text, json: () => JSON.parse(text) };
}

function* repeat(count: number, size: number): Iterable<Buffer> {
  for (let i = 0; i < count; i++) yield Buffer.alloc(size, 0x20); // spaces: still valid JSON around a value
}

/** Polls `cond` every 10 ms for at most 3 s. */
async function eventually(cond: () => boolean): Promise<boolean> {
  for (const deadline = Date.now() + 3000; !cond() && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 10));
  return cond();
}

describe.each(TRANSPORTS)('writer choice by the full media type (%s)', (transport) => {
  const send = serveForSuite(transport, () => build());

  it('a charset no writer can encode is a 500 before and after the same type without it was written', async () => {
    expect((await send('/b/utf16')).status).toBe(500); // no writer encodes UTF-16: never mislabelled
    const plain = await send('/b/plain');
    expect([plain.status, plain.headers['content-type'], plain.text]).toEqual([200, 'text/plain; charset=utf-8', 'café']);
    expect((await send('/b/utf16')).status).toBe(500); // the text/plain writer decision is not reused
  });
});

describe.each(TRANSPORTS)('bodies (%s)', (transport) => {
  let app: Application;
  const send = serveForSuite(transport, () => (app = build()));
  beforeEach(() => {
    methodCalls = 0;
  });

  const json = { 'content-type': 'application/json' };
  const post = (url: string, body: string | Buffer, headers: Record<string, string> = json): ReturnType<Send> =>
    send({ method: 'POST', url, headers, body });

  describe('request entities', () => {
    it('JSON in, JSON out (a plain object)', async () => {
      const r = await post('/b/json', '{"x":1,"y":2}');
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.json()).toEqual({ received: { x: 1, y: 2 }, plain: true });
    });

    it('+json media types are JSON too', async () => {
      expect((await post('/b/json', '{"x":3}', { 'content-type': 'application/merge-patch+json' })).json()).toMatchObject({
        received: { x: 3 },
      });
    });

    it('no body → 400 PIPE_BODY_REQUIRED for a required entity, undefined for an optional one', async () => {
      const r = await send({ method: 'POST', url: '/b/json' });
      expect(r.status).toBe(400);
      expect(r.json().code).toBe('PIPE_BODY_REQUIRED');
      expect(methodCalls).toBe(0);
      const o = await send({ method: 'POST', url: '/b/optional' });
      expect(o.status).toBe(200);
      expect(o.json()).toEqual({ absent: true, body: null });
    });

    it('an empty body with Content-Type: application/json counts as no body', async () => {
      const r = await post('/b/json', '');
      expect(r.status).toBe(400);
      expect(r.json().code).toBe('PIPE_BODY_REQUIRED');
      expect((await post('/b/optional', '')).json()).toEqual({ absent: true, body: null });
      // Chunked with zero bytes: same answer.
      const c = await postChunked(app, transport, '/b/optional', json, () => []);
      expect(c.status).toBe(200);
      expect(c.json()).toEqual({ absent: true, body: null });
      const req = await postChunked(app, transport, '/b/json', json, () => []);
      expect(req.status).toBe(400);
      expect(req.json().code).toBe('PIPE_BODY_REQUIRED');
    });

    it('an empty text or byte body is a body (empty string, zero bytes), whatever the framing', async () => {
      // README "Decisions" 6 singles out JSON; TextReader documents "zero bytes are a valid text".
      const text = { 'content-type': 'text/plain' };
      const declared = await post('/b/text', '', text);
      const chunked = await postChunked(app, transport, '/b/text', text, () => []);
      expect(chunked.status).toBe(200);
      expect(declared.status).toBe(chunked.status);
      expect(chunked.text).toBe('got:');
      expect(declared.text).toBe('got:');
      const bytes = await post('/b/bytes', Buffer.alloc(0), { 'content-type': 'application/octet-stream' });
      expect(bytes.status).toBe(200);
      expect([...bytes.body]).toEqual([0xff]);
    });

    it('a chunked JSON body under the limit is read', async () => {
      const r = await postChunked(app, transport, '/b/json', json, () => [Buffer.from('{"x":'), Buffer.from('4,"y":5}')]);
      expect(r.status).toBe(200);
      expect(r.json()).toEqual({ received: { x: 4, y: 5 }, plain: true });
    });

    it('an optional entity that is present is read', async () => {
      expect((await post('/b/optional', '{"x":5}')).json()).toEqual({ absent: false, body: { x: 5 } });
    });

    it('a body of exactly the limit passes', async () => {
      const body = `{"x":1${' '.repeat(LIMIT - 7)}}`;
      expect(Buffer.byteLength(body)).toBe(LIMIT);
      expect((await post('/b/json', body)).status).toBe(200);
    });

    it('a body over limits.bodyLimit with a declared Content-Length → 413', async () => {
      const r = await post('/b/json', `{"x":1${' '.repeat(LIMIT)}}`);
      expect(r.status).toBe(413);
      expect(r.json().code).toBe('PIPE_BODY_TOO_LARGE');
      expect(methodCalls).toBe(0);
      // The unread body stays on the socket: the connection must not be reused.
      if (transport === 'socket') expect(r.headers.connection).toBe('close');
    });

    it('a chunked body over limits.bodyLimit → 413 (buffered reader)', async () => {
      const r = await postChunked(app, transport, '/b/json', json, () => repeat(64, 1024));
      expect(r.status).toBe(413);
      expect(r.json().code).toBe('PIPE_BODY_TOO_LARGE');
      expect(methodCalls).toBe(0);
    });

    it('a chunked body over limits.bodyLimit → 413 (streamed entity)', async () => {
      const ok = await postChunked(app, transport, '/b/stream', { 'content-type': 'application/octet-stream' }, () => repeat(4, 256));
      expect(ok.json()).toEqual({ bytes: 1024 });
      const r = await postChunked(app, transport, '/b/stream', { 'content-type': 'application/octet-stream' }, () => repeat(64, 1024));
      expect(r.status).toBe(413);
      expect(r.json().code).toBe('PIPE_BODY_TOO_LARGE');
    });

    it('invalid JSON → 400 that does not echo the input', async () => {
      const r = await post('/b/json', '{"x": secret-token');
      expect(r.status).toBe(400);
      expect(r.json().code).toBe('PIPE_INVALID_JSON');
      expect(r.text).not.toContain('secret-token');
    });

    it.each([
      ['top-level __proto__', '{"__proto__":{"polluted":true},"x":1}'],
      ['escaped __proto__', '{"\\u005f_proto__":{"polluted":true}}'],
      ['nested __proto__', '{"a":[{"b":{"__proto__":{"polluted":true}}}]}'],
      ['constructor.prototype', '{"constructor":{"prototype":{"polluted":true}}}'],
    ])('%s → 400 and Object.prototype untouched', async (_name, body) => {
      const r = await post('/b/json', body);
      expect(r.status).toBe(400);
      expect(r.json().code).toBe('PIPE_JSON_FORBIDDEN_KEY');
      expect(methodCalls).toBe(0);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
    });

    it('a number that overflows (1e400) → 400', async () => {
      const r = await post('/b/json', '{"x":1e400}');
      expect(r.status).toBe(400);
      expect(r.json().code).toBe('PIPE_JSON_NON_FINITE');
    });

    it('100 000-deep nesting → 400, not a stack overflow', async () => {
      const deep = '['.repeat(100_000) + ']'.repeat(100_000);
      const big = new Application({ resources: [BodyResource], limits: { bodyLimit: MiB }, logger: () => undefined });
      const s = await start(big, transport);
      try {
        const r = await s.send({ method: 'POST', url: '/b/json', headers: json, body: deep });
        expect(r.status).toBe(400);
        expect(r.json().code).toBe('PIPE_JSON_TOO_DEEP');
        const objects = await s.send({
          method: 'POST',
          url: '/b/json',
          headers: json,
          body: '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000),
        });
        expect(objects.status).toBe(400);
        expect(objects.json().code).toBe('PIPE_JSON_TOO_DEEP');
      } finally {
        await s.stop();
      }
    });

    it('an unsupported charset → 415', async () => {
      const r = await post('/b/json', '{"x":1}', { 'content-type': 'application/json; charset=utf-16' });
      expect(r.status).toBe(415);
      expect(r.json().code).toBe('PIPE_UNSUPPORTED_CHARSET');
      const t = await post('/b/text', 'hi', { 'content-type': 'text/plain; charset=shift_jis' });
      expect(t.status).toBe(415);
      expect(t.json().code).toBe('PIPE_UNSUPPORTED_CHARSET');
    });

    it('no reader for the media type → 415 PIPE_NO_READER', async () => {
      const r = await post('/b/json', '<x/>', { 'content-type': 'application/xml' });
      expect(r.status).toBe(415);
      expect(r.json().code).toBe('PIPE_NO_READER');
      expect(methodCalls).toBe(0);
    });

    it('text/plain in (utf-8 and latin1) and text/plain out', async () => {
      const r = await post('/b/text', 'héllo', { 'content-type': 'text/plain' });
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(r.text).toBe('got:héllo');
      const latin1 = await post('/b/text', Buffer.from('café', 'latin1'), { 'content-type': 'text/plain; charset=ISO-8859-1' });
      expect(latin1.text).toBe('got:café');
    });

    it('Buffer in, Buffer out (raw bytes, application/octet-stream)', async () => {
      const r = await post('/b/bytes', Buffer.from([0, 1, 2, 0xfe]), { 'content-type': 'application/octet-stream' });
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('application/octet-stream');
      expect(r.headers['content-length']).toBe('5');
      expect([...r.body]).toEqual([0xff, 0, 1, 2, 0xfe]);
    });

    it('form-urlencoded with @FormParam', async () => {
      const r = await post('/b/form', 'a=x+y%21&b=7', { 'content-type': 'application/x-www-form-urlencoded' });
      expect(r.status).toBe(200);
      expect(r.json()).toEqual({ a: 'x y!', b: 7 });
    });
  });

  describe('return values', () => {
    it('a Readable is streamed (octet-stream, no Content-Length)', async () => {
      const r = await send('/b/readable');
      expect(r.status).toBe(200);
      expect(r.text).toBe('alpha-beta-gamma');
      expect(r.headers['content-type']).toBe('application/octet-stream');
      expect(r.headers['content-length']).toBeUndefined();
    });

    it('an async generator of text and byte chunks is streamed as bytes under application/octet-stream', async () => {
      const r = await send('/b/generator');
      expect(r.status).toBe(200);
      expect(r.text).toBe('one,two,three');
      expect(r.headers['content-type']).toBe('application/octet-stream');
    });

    it('an array is JSON', async () => {
      const r = await send('/b/array');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.json()).toEqual([1, 'two', { three: 3 }]);
    });

    it('a string is text/plain when Accept is */* (or absent), a JSON string when only JSON is acceptable', async () => {
      for (const headers of [{}, { accept: '*/*' }] as Record<string, string>[]) {
        const r = await send({ url: '/b/string', headers });
        expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
        expect(r.text).toBe('hello');
      }
      const j = await send({ url: '/b/string', headers: { accept: 'application/json' } });
      expect(j.headers['content-type']).toBe('application/json');
      expect(j.json()).toBe('hello');
    });

    it('null and undefined → 204 without a body', async () => {
      for (const url of ['/b/null', '/b/undefined']) {
        const r = await send(url);
        expect(r.status).toBe(204);
        expect(r.body.length).toBe(0);
        expect(r.headers['content-type']).toBeUndefined();
      }
    });

    it('a Response keeps its status and headers (its relative Location resolved against the base URI)', async () => {
      const r = await send({ url: '/b/response', headers: { host: 'h.example' } });
      expect(r.status).toBe(201);
      expect(r.headers['x-custom']).toBe('yes');
      expect(r.headers.location).toBe('http://h.example/b/1');
      expect(r.json()).toEqual({ id: 1 });
    });

    it('a ResponseBuilder (not built) is built', async () => {
      const r = await send('/b/builder');
      expect(r.status).toBe(202);
      expect(r.headers['x-builder']).toBe('on');
      expect(r.text).toBe('queued');
    });
  });
});

describe('streamed responses over the socket', () => {
  let app: Application;
  let port: number;
  beforeAll(async () => {
    app = build();
    ({ port } = await app.listen(0, '127.0.0.1'));
  });
  afterAll(() => app.close(2000));

  it('backpressure: the producer never runs far ahead of what the client has read', async () => {
    sources.length = 0;
    const streamAgent = new Agent({ headersTimeout: 5000, bodyTimeout: 5000 });
    try {
      const r = await request(`http://127.0.0.1:${port}/b/lazy`, { dispatcher: streamAgent });
      expect(r.statusCode).toBe(200);
      const src = sources[0]!;
      const it = r.body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      let consumed = 0;
      // Read 4 MiB in 256 KiB steps, stopping after each step until the producer stalls.
      for (let step = 1; step <= 16; step++) {
        while (consumed < step * 256 * KiB) {
          const n = await it.next();
          expect(n.done).toBe(false);
          consumed += n.value.length;
          src.clientRead = consumed;
        }
        // Production has stopped: a push was refused and the response paused the source, so no
        // _read comes until the response drains, which needs the client to read. Without
        // backpressure nothing pauses the source and this never holds.
        expect(await eventually(() => src.stalled && src.readableFlowing === false)).toBe(true);
      }
      r.body.destroy();
      expect(await eventually(() => src.destroyCalled)).toBe(true);
      // Socket buffers (kernel send + receive, undici's body buffer, the response's writable
      // buffer) hold a few MiB at most; without backpressure the producer would reach 256 MiB.
      // maxLead is taken at every push up to the destroy (after which nothing is read), so it is
      // the real maximum, not a sample.
      expect(src.maxLead).toBeLessThan(16 * MiB);
      expect(src.produced).toBeLessThan(32 * MiB);
    } finally {
      await streamAgent.close().catch(() => undefined);
    }
  });

  it('a client abort mid-stream destroys the source Readable (its _destroy runs)', async () => {
    sources.length = 0;
    const abortAgent = new Agent({ headersTimeout: 5000, bodyTimeout: 5000 });
    try {
      const r = await request(`http://127.0.0.1:${port}/b/lazy`, { dispatcher: abortAgent });
      const it = r.body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      expect((await it.next()).done).toBe(false);
      const src = sources[0]!;
      expect(src.destroyCalled).toBe(false);
      r.body.destroy();
      expect(await eventually(() => src.destroyCalled)).toBe(true);
      // Backpressure bounds what was produced before the abort (as in the test above), far below
      // the 256 MiB source. (Nothing can be produced after: Node never reads a destroyed stream.)
      expect(src.produced).toBeLessThan(32 * MiB);
    } finally {
      await abortAgent.close().catch(() => undefined);
    }
  });

  it('a client abort mid-stream ends an async generator (its finally runs)', async () => {
    const before = { ...generators };
    const abortAgent = new Agent({ headersTimeout: 5000, bodyTimeout: 5000 });
    try {
      const r = await request(`http://127.0.0.1:${port}/b/endless`, { dispatcher: abortAgent });
      const it = r.body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      expect((await it.next()).done).toBe(false);
      expect(generators.started).toBe(before.started + 1);
      r.body.destroy();
      expect(await eventually(() => generators.finished === before.finished + 1)).toBe(true);
      // 64 KiB per yield: under 32 MiB means < 512 yields of the 100_000 the generator could make
      // (a generator whose finally ran cannot yield again).
      expect((generators.yielded - before.yielded) * 64 * KiB).toBeLessThan(32 * MiB);
    } finally {
      await abortAgent.close().catch(() => undefined);
    }
  });

  it('the server keeps serving after aborted streams', async () => {
    const r = await request(`http://127.0.0.1:${port}/b/array`, { dispatcher: agent });
    expect(r.statusCode).toBe(200);
    expect(await r.body.json()).toEqual([1, 'two', { three: 3 }]);
  });
});

afterAll(() => agent.close());
