// The caches on the provider choice: a route's last writer decision (write-entity `planFor`),
// and the (type, media type) caches of `selectWriter` and `selectReader`. Each decision must be
// the one a cold application makes; the caches must skip work (counted through the providers'
// `isWriteable`/`isReadable` calls) and stay bounded under media types chosen by clients.
import type { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Application,
  GET,
  Path,
  POST,
  Priority,
  Produces,
  WILDCARD,
  type ContainerRequestContext,
  type ContainerRequestFilter,
  type MediaType,
  type MessageBodyReader,
  type MessageBodyWriter,
  type TypeToken,
  type WriteContext,
} from '../../src/index.js';
import type { Exchange } from '../../src/core/internal/exchange.js';
import { MAX_CACHED_KEY_LENGTH, MAX_CACHED_MEDIA_TYPES } from '../../src/core/internal/provider-cache.js';
import { start, TRANSPORTS, type Send, type TestRequest, type TestResponse, type Transport } from '../helpers/transports.js';

const WIDGET = 'application/vnd.widget+json';
const DOC = 'application/vnd.doc';

class Widget {
  constructor(readonly name: string) {}
}
class Doc {
  constructor(
    readonly via: string,
    readonly text: string,
  ) {}
}

/**
 * Writes Widgets; records the route's writer decision (`WritePlan`) each write ran under: the one
 * trace a hit of the route's cache leaves, since a miss makes an equal decision by design.
 */
class WidgetWriter implements MessageBodyWriter {
  readonly produces = [WIDGET];
  checks = 0;
  readonly plans: unknown[] = [];
  isWriteable(type: TypeToken, mt: MediaType): boolean {
    this.checks++;
    return type === Widget && mt.essence === WIDGET;
  }
  writeTo(entity: unknown, _type: TypeToken, _mt: MediaType, ctx: WriteContext): string {
    this.plans.push((ctx.request as Exchange).route?.writePlan);
    return JSON.stringify({ widget: (entity as Widget).name });
  }
}

/** Writes strings as any text type; counts how often it is asked. */
class CountingTextWriter implements MessageBodyWriter {
  readonly produces = ['text/plain'];
  checks = 0;
  isWriteable(type: TypeToken, mt: MediaType): boolean {
    this.checks++;
    return type === String && mt.type === 'text';
  }
  writeTo(entity: unknown): string {
    return String(entity);
  }
}

async function drain(input: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of input) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Reads a Doc only when the charset is latin1: a reader that decides on a parameter. */
@Priority(1)
class LatinDocReader implements MessageBodyReader<Doc> {
  checks = 0;
  isReadable(type: TypeToken, mt: MediaType | undefined): boolean {
    this.checks++;
    return type === Doc && mt?.essence === DOC && mt.params.charset === 'latin1';
  }
  async readFrom(_t: TypeToken, _mt: MediaType | undefined, input: Readable): Promise<Doc> {
    return new Doc('latin1', (await drain(input)).toString('latin1'));
  }
}

/** Reads any Doc as UTF-8. */
@Priority(2)
class DocReader implements MessageBodyReader<Doc> {
  checks = 0;
  isReadable(type: TypeToken, mt: MediaType | undefined): boolean {
    this.checks++;
    return type === Doc && mt?.essence === DOC;
  }
  async readFrom(_t: TypeToken, _mt: MediaType | undefined, input: Readable): Promise<Doc> {
    return new Doc('utf8', (await drain(input)).toString('utf8'));
  }
}

/** Sets a wildcard response type on `/plan/wild-filter`: Accept must then decide the writer's type. */
class WildcardFilter implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    if (ctx.path === '/plan/wild-filter') ctx.responseMediaType = WILDCARD;
  }
}

@Path('/plan')
class PlanResource {
  @GET('widget') @Produces(WIDGET) widget(): Widget {
    return new Widget('w');
  }
  @GET('free') free(): string {
    return 'hi';
  }
  @GET('two') @Produces('application/json', 'text/plain') two(): string {
    return 'hi';
  }
  @GET('text') @Produces('text/*') text(): string {
    return 'hi';
  }
  @GET('wild-filter') wildFilter(): string {
    return 'hi';
  }
  @POST('doc') doc(body: Doc): unknown {
    return { via: body.via, text: body.text };
  }
}

interface Providers {
  widget: WidgetWriter;
  text: CountingTextWriter;
  latin: LatinDocReader;
  doc: DocReader;
}

const quiet = (): void => undefined;

function makeApp(withTextWriter = false): { app: Application; p: Providers } {
  const p: Providers = { widget: new WidgetWriter(), text: new CountingTextWriter(), latin: new LatinDocReader(), doc: new DocReader() };
  const providers: object[] = [p.widget, p.latin, p.doc, new WildcardFilter()];
  if (withTextWriter) providers.push(p.text);
  return { app: new Application({ resources: [PlanResource], providers, logger: quiet }), p };
}

const readerChecks = (p: Providers): number => p.latin.checks + p.doc.checks;
const get = (url: string, accept?: string): TestRequest => ({ url, headers: accept === undefined ? {} : { accept } });
const post = (contentType: string, body: Buffer | string): TestRequest => ({
  method: 'POST',
  url: '/plan/doc',
  headers: { 'content-type': contentType },
  body,
});
const decision = (r: TestResponse): [number, unknown, string] => [r.status, r.headers['content-type'], r.text];

describe.each(TRANSPORTS)('provider caches (%s)', (transport: Transport) => {
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  async function open(withTextWriter = false): Promise<{ send: Send; p: Providers }> {
    const { app, p } = makeApp(withTextWriter);
    const s = await start(app, transport);
    stops.push(s.stop);
    return { send: s.send, p };
  }

  /** What a cold application (no cached decision of any kind) answers to `req` alone. */
  async function cold(req: TestRequest, withTextWriter = false): Promise<[number, unknown, string]> {
    const { app } = makeApp(withTextWriter);
    const s = await start(app, transport);
    try {
      return decision(await s.send(req));
    } finally {
      await s.stop();
    }
  }

  it('a concrete @Produces makes Accept irrelevant: alternating Accept headers reuse one writer decision', async () => {
    const { send, p } = await open();
    const accepts = [WIDGET, '*/*', 'application/*', undefined];
    for (let round = 0; round < 2; round++) {
      for (const accept of accepts) {
        expect([accept, ...decision(await send(get('/plan/widget', accept)))]).toEqual([accept, 200, WIDGET, '{"widget":"w"}']);
        if (round === 0 && accept === WIDGET) p.widget.checks = 0;
      }
    }
    expect(p.widget.plans).toHaveLength(8);
    // One decision, and a real one: a Set of eight `undefined`s would have size 1 too.
    expect(p.widget.plans[0]).toMatchObject({ type: Widget, writer: p.widget, contentType: WIDGET });
    expect(new Set(p.widget.plans).size).toBe(1);
    expect(p.widget.checks).toBe(0);
  });

  it('without @Produces the writer decision still follows Accept, request by request', async () => {
    const { send } = await open();
    const expected: [string, ...unknown[]][] = [
      ['text/plain', 200, 'text/plain; charset=utf-8', 'hi'],
      ['application/json', 200, 'application/json', '"hi"'],
      ['image/png', 406, 'application/json', expect.stringContaining('PIPE_NOT_ACCEPTABLE')],
      ['*/*', 200, 'text/plain; charset=utf-8', 'hi'],
    ];
    for (let round = 0; round < 2; round++) {
      for (const [accept, ...want] of expected) {
        expect([accept, ...decision(await send(get('/plan/free', accept)))]).toEqual([accept, ...want]);
      }
    }
  });

  it('a wildcard response type (set by a filter) still negotiates against Accept', async () => {
    const { send } = await open();
    for (let round = 0; round < 2; round++) {
      expect(decision(await send(get('/plan/wild-filter', 'text/plain')))).toEqual([200, 'text/plain; charset=utf-8', 'hi']);
      expect(decision(await send(get('/plan/wild-filter', 'application/json')))).toEqual([200, 'application/json', '"hi"']);
    }
  });

  it("every writer decision of a warm application equals a cold application's for the same request", async () => {
    const { send } = await open();
    const requests = [
      get('/plan/widget', WIDGET),
      get('/plan/widget', '*/*'),
      get('/plan/widget', 'text/html'),
      get('/plan/widget'),
      get('/plan/free', 'application/json'),
      get('/plan/free', 'text/plain'),
      get('/plan/free', 'image/png'),
      get('/plan/free'),
      get('/plan/two', 'text/plain'),
      get('/plan/two', 'application/json'),
      get('/plan/two', 'text/plain;q=0.5, application/json'),
      get('/plan/text', 'text/html; level=1'),
      get('/plan/text', 'text/plain'),
      get('/plan/text', 'text/html; level=2'),
      get('/plan/text', '*/*'),
      get('/plan/wild-filter', 'application/json'),
      get('/plan/wild-filter', 'text/plain'),
    ];
    // Twice through, so the second round runs against every decision the first one cached.
    for (let round = 0; round < 2; round++) {
      for (const req of requests) {
        expect([req.url, req.headers, ...decision(await send(req))]).toEqual([req.url, req.headers, ...(await cold(req))]);
      }
    }
  });

  it('the writer cache is bounded: media types from Accept beyond the per-type cap are chosen by a scan', async () => {
    const { send, p } = await open(true);
    const accept = (i: number): string => `text/plain; v=${i}`;
    const n = MAX_CACHED_MEDIA_TYPES + 4;
    for (let i = 0; i < n; i++) expect(decision(await send(get('/plan/text', accept(i))))[0]).toBe(200);
    // Each request negotiates another type, so the route's own last decision never answers here.
    p.text.checks = 0;
    expect(decision(await send(get('/plan/text', accept(0))))).toEqual([200, 'text/plain; v=0; charset=utf-8', 'hi']);
    expect(p.text.checks).toBe(0); // remembered
    expect(decision(await send(get('/plan/text', accept(n - 1))))).toEqual([200, `text/plain; v=${n - 1}; charset=utf-8`, 'hi']);
    expect(p.text.checks).toBeGreaterThan(0); // past the cap: scanned, not stored
  });

  it('the reader chosen for a (type, Content-Type) is remembered: a second request asks no reader', async () => {
    const { send, p } = await open();
    const body = Buffer.from('café', 'latin1');
    expect((await send(post(`${DOC}; charset=latin1`, body))).json()).toEqual({ via: 'latin1', text: 'café' });
    expect(readerChecks(p)).toBeGreaterThan(0);
    p.latin.checks = 0;
    p.doc.checks = 0;
    expect((await send(post(`${DOC}; charset=latin1`, body))).json()).toEqual({ via: 'latin1', text: 'café' });
    expect(readerChecks(p)).toBe(0);
  });

  it('readers are cached by the full media type: the charset parameter picks different readers, alternating', async () => {
    const { send, p } = await open();
    const cases: [string, Buffer, unknown][] = [
      [`${DOC}; charset=latin1`, Buffer.from('café', 'latin1'), { via: 'latin1', text: 'café' }],
      [`${DOC}; charset=utf-8`, Buffer.from('café'), { via: 'utf8', text: 'café' }],
      [DOC, Buffer.from('café'), { via: 'utf8', text: 'café' }],
    ];
    for (let round = 0; round < 3; round++) {
      if (round === 2) {
        p.latin.checks = 0;
        p.doc.checks = 0;
      }
      for (const [ct, body, want] of cases) {
        const r = await send(post(ct, body));
        expect([ct, r.status, r.json()]).toEqual([ct, 200, want]);
        if (round === 0) expect(decision(r)).toEqual(await cold(post(ct, body)));
      }
    }
    expect(readerChecks(p)).toBe(0);
  });

  it('no reader fits: 415 PIPE_NO_READER on every request, and the miss is not remembered', async () => {
    const { send, p } = await open();
    const seen: number[] = [];
    for (let i = 0; i < 2; i++) {
      const before = readerChecks(p);
      const r = await send(post('application/x-unknown', 'x'));
      expect([r.status, r.json<{ code: string }>().code]).toEqual([415, 'PIPE_NO_READER']);
      seen.push(readerChecks(p) - before);
    }
    expect(seen[0]).toBeGreaterThan(0);
    expect(seen[1]).toBe(seen[0]); // asked again, in full
    expect((await send(post(DOC, 'ok'))).json()).toEqual({ via: 'utf8', text: 'ok' });
  });

  it('the reader cache is bounded: Content-Types past the per-type cap, or too long, are chosen by a scan', async () => {
    const { send, p } = await open();
    const checksFor = async (contentType: string): Promise<number> => {
      // Another Content-Type first: the route's own last decision (one entry, below) must not answer.
      expect((await send(post(DOC, 'other'))).json()).toEqual({ via: 'utf8', text: 'other' });
      const before = readerChecks(p);
      expect((await send(post(contentType, 'again'))).json()).toEqual({ via: 'utf8', text: 'again' });
      return readerChecks(p) - before;
    };
    // Too long to be a key: scanned every time, even while the type has room.
    const long = `${DOC}; pad=${'x'.repeat(MAX_CACHED_KEY_LENGTH)}`;
    expect(await checksFor(long)).toBeGreaterThan(0);
    expect(await checksFor(long)).toBeGreaterThan(0);
    const ct = (i: number): string => `${DOC}; n=${i}`;
    const n = MAX_CACHED_MEDIA_TYPES + 4;
    for (let i = 0; i < n; i++) expect((await send(post(ct(i), `d${i}`))).json()).toEqual({ via: 'utf8', text: `d${i}` });
    expect(await checksFor(ct(0))).toBe(0); // remembered
    expect(await checksFor(ct(n - 1))).toBeGreaterThan(0); // past the cap: scanned, not stored
  });

  it("a route remembers its last reader decision (one entry): the same Content-Type again asks no reader, even past the cache's cap", async () => {
    const { send, p } = await open();
    const ct = (i: number): string => `${DOC}; n=${i}`;
    const n = MAX_CACHED_MEDIA_TYPES + 4;
    for (let i = 0; i < n; i++) expect((await send(post(ct(i), `d${i}`))).json()).toEqual({ via: 'utf8', text: `d${i}` });
    const before = readerChecks(p);
    expect((await send(post(ct(n - 1), 'again'))).json()).toEqual({ via: 'utf8', text: 'again' });
    expect(readerChecks(p)).toBe(before);
    // A different type in between: the decision follows it, then comes back.
    expect((await send(post(`${DOC}; charset=latin1`, Buffer.from('é', 'latin1')))).json()).toEqual({ via: 'latin1', text: 'é' });
    expect((await send(post(ct(n - 1), 'back'))).json()).toEqual({ via: 'utf8', text: 'back' });
  });
});
