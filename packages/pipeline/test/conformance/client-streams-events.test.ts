/**
 * The client's event-stream reader (WHATWG HTML §9.2) against the pipeline's SSE server over a
 * loopback socket: events in order with `readAs`/`json`, a connection the server drops mid-stream
 * resumed with `Last-Event-ID` (the missed events replayed by `EventLog`, none twice), `retry`,
 * the EventSource rules for 204, error statuses and other media types (no reconnection), abort,
 * `close()` and `break` closing the connection, and the event size bound. The parsing rules
 * (§9.2.6: BOM, CR/LF/CRLF across chunks, comments, multi-line data, `id` with NUL, `retry`) run
 * on a bare `node:http` server writing the bytes as given, and on the parser chunk by chunk.
 * The in-process transport is not used: it hands a body over when the response ends, so it
 * cannot carry a stream that stays open.
 */
import 'reflect-metadata';
import { createServer, IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Application,
  Context,
  EventLog,
  GET,
  LastEventId,
  NotFoundError,
  Path,
  Produces,
  Response,
  Sse,
  SseBroadcaster,
  SseEventSink,
} from '../../src/index.js';
import { Client, ClientErrorCode, ClientProcessingError, ClientResponseError, type ServerSentEvent } from '../../src/client/index.js';
import { EventStreamParser } from '../../src/client/event-parser.js';
import { deferred, type Deferred } from '../helpers/deferred.js';

const sse = new Sse();
const hub = new SseBroadcaster();
const log = new EventLog({ capacity: 100 });
const publish = (data: unknown, name?: string): string => {
  const b = sse.newEventBuilder().data(data);
  const event = log.append((name === undefined ? b : b.name(name)).build());
  hub.broadcast(event);
  return event.id!;
};

/** Every request to /feed/*: its path and Last-Event-ID. */
const requests: Array<{ path: string; lastEventId: string | undefined }> = [];
/** Resolved with the sink (and raw request) of the next /feed/hub connection. */
let connected: Deferred<{ sink: SseEventSink; req: IncomingMessage; lastEventId: string | undefined }> = deferred();
/** When set, a reconnecting /feed/hub request waits for it before replaying and registering. */
let holdReconnect: Deferred | undefined;

@Path('/feed')
class Feed {
  @GET()
  @Path('hub')
  @Produces('text/event-stream')
  async subscribe(@Context() sink: SseEventSink, @Context() req: IncomingMessage, @LastEventId() last: string | undefined): Promise<void> {
    requests.push({ path: 'hub', lastEventId: last });
    connected.resolve({ sink, req, lastEventId: last });
    if (last !== undefined && holdReconnect !== undefined) await holdReconnect.promise;
    // Replay and registration in one synchronous block: nothing appended in between is lost.
    log.replay(sink, last);
    hub.register(sink);
  }

  @GET()
  @Path('retry')
  @Produces('text/event-stream')
  async retry(@Context() sink: SseEventSink): Promise<void> {
    requests.push({ path: 'retry', lastEventId: undefined });
    await sink.send(sse.newEventBuilder().id('r1').reconnectDelay(20).data('soon').build());
    sink.close();
  }

  @GET()
  @Path('done')
  @Produces('text/event-stream')
  done(): Response {
    requests.push({ path: 'done', lastEventId: undefined });
    return Response.noContent().build();
  }

  @GET()
  @Path('missing')
  @Produces('text/event-stream')
  missing(): void {
    requests.push({ path: 'missing', lastEventId: undefined });
    throw new NotFoundError('no such feed');
  }

  @GET()
  @Path('huge')
  @Produces('text/event-stream')
  async huge(@Context() sink: SseEventSink): Promise<void> {
    requests.push({ path: 'huge', lastEventId: undefined });
    await sink.send(sse.newEvent('small'));
    await sink.send(sse.newEvent('x'.repeat(4096)));
  }
}

const countOf = (path: string): number => requests.filter((r) => r.path === path).length;
const closedSink = (sink: SseEventSink): Promise<void> =>
  sink.signal.aborted ? Promise.resolve() : new Promise((resolve) => sink.signal.addEventListener('abort', () => resolve()));

describe('client event streams against the pipeline SSE server (socket)', () => {
  const app = new Application({ resources: [Feed], logger: () => undefined });
  let client: Client;

  beforeAll(async () => {
    const { port } = await app.listen(0, '127.0.0.1');
    client = new Client({ baseUrl: `http://127.0.0.1:${port}` });
  });
  afterAll(async () => {
    await client.close();
    await app.close(2000);
  });

  it('receives events in order, reads their data with readAs/json, and break closes the connection', async () => {
    connected = deferred();
    const events = client.events('feed/hub', { lastEventId: log.lastId ?? '' });
    const it = events[Symbol.asyncIterator]();
    const first = it.next();
    const { sink } = await connected.promise;
    const ids = [publish({ n: 1 }, 'order'), publish('two'), publish({ n: 3 })];
    const got: ServerSentEvent[] = [(await first).value as ServerSentEvent];
    got.push((await it.next()).value as ServerSentEvent, (await it.next()).value as ServerSentEvent);
    expect(got.map((e) => [e.id, e.event, e.data])).toEqual([
      [ids[0], 'order', '{"n":1}'],
      [ids[1], 'message', 'two'],
      [ids[2], 'message', '{"n":3}'],
    ]);
    expect(await got[0]!.json()).toEqual({ n: 1 });
    expect(await got[1]!.readAs(String, 'text/plain')).toBe('two');
    await expect(got[1]!.json()).rejects.toMatchObject({ code: ClientErrorCode.ResponseUnreadable });
    expect(events.lastEventId).toBe(ids[2]);
    await it.return!();
    await closedSink(sink);
    expect(sink.isClosed).toBe(true);
  });

  it('reconnects after the server drops the connection, with Last-Event-ID, and gets the missed events once', async () => {
    connected = deferred();
    const before = countOf('hub');
    const events = client.events('feed/hub', { lastEventId: log.lastId ?? '', reconnectDelay: 10, maxReconnects: 3 });
    const it = events[Symbol.asyncIterator]();
    const first = it.next();
    const { req } = await connected.promise;
    const a = publish('a');
    const b = publish('b');
    expect(((await first).value as ServerSentEvent).data).toBe('a');
    expect(((await it.next()).value as ServerSentEvent).data).toBe('b');

    // The server drops the socket; while the client is away two events are published.
    holdReconnect = deferred();
    connected = deferred();
    const next = it.next();
    req.socket.destroy();
    const again = await connected.promise;
    expect(again.lastEventId).toBe(b);
    const c = publish('c');
    const d = publish('d');
    holdReconnect.resolve();
    holdReconnect = undefined;
    const replayed = [(await next).value as ServerSentEvent, (await it.next()).value as ServerSentEvent];
    const e = publish('e');
    replayed.push((await it.next()).value as ServerSentEvent);
    expect(replayed.map((x) => [x.id, x.data])).toEqual([
      [c, 'c'],
      [d, 'd'],
      [e, 'e'],
    ]);
    expect(countOf('hub') - before).toBe(2);
    expect(a).not.toBe(b);
    events.close();
    expect(await it.next()).toEqual({ done: true, value: undefined });
    await closedSink(again.sink);
  });

  it('honours retry: the reconnection time follows the stream, and a stream that ends is reconnected', async () => {
    const before = countOf('retry');
    const events = client.events('feed/retry', { reconnectDelay: 5_000 });
    const seen: Array<[string, number | undefined]> = [];
    for await (const e of events) {
      seen.push([e.data, e.retry]);
      if (seen.length === 2) break;
    }
    // Two connections (the first, then one reconnection after 20 ms rather than 5 s), one event each.
    expect(seen).toEqual([
      ['soon', 20],
      ['soon', 20],
    ]);
    expect(events.reconnectDelay).toBe(20);
    expect(countOf('retry') - before).toBe(2);
  });

  it('a 204 ends the iteration without reconnecting', async () => {
    const before = countOf('done');
    const seen: unknown[] = [];
    for await (const e of client.events('feed/done', { reconnectDelay: 1 })) seen.push(e);
    expect(seen).toEqual([]);
    expect(countOf('done') - before).toBe(1);
  });

  it('an error status throws the mapped error and does not reconnect', async () => {
    const missing = countOf('missing');
    const read = async (uri: string): Promise<unknown> => {
      for await (const _ of client.events(uri, { reconnectDelay: 1 })) {
        // no events expected
      }
      return undefined;
    };
    const notFound = await read('feed/missing').catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(ClientResponseError);
    expect(notFound).toMatchObject({ status: 404 });
    expect(countOf('missing') - missing).toBe(1);
  });

  it('an abort stops the stream with the signal reason and closes the connection; close() ends it quietly', async () => {
    connected = deferred();
    const controller = new AbortController();
    const events = client.events('feed/hub', { lastEventId: log.lastId ?? '', signal: controller.signal });
    const it = events[Symbol.asyncIterator]();
    const first = it.next();
    const { sink } = await connected.promise;
    publish('before abort');
    expect(((await first).value as ServerSentEvent).data).toBe('before abort');
    const pending = it.next();
    const reason = new Error('caller gave up');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await closedSink(sink);

    connected = deferred();
    const quiet = client.events('feed/hub', { lastEventId: log.lastId ?? '' });
    const qit = quiet[Symbol.asyncIterator]();
    const waiting = qit.next();
    const second = await connected.promise;
    quiet.close();
    expect(await waiting).toEqual({ done: true, value: undefined });
    await closedSink(second.sink);
  });

  it('an event larger than maxEventBytes fails the iteration (no reconnection)', async () => {
    const before = countOf('huge');
    const seen: string[] = [];
    const err = await (async () => {
      for await (const e of client.events('feed/huge', { maxEventBytes: 1024, reconnectDelay: 1 })) seen.push(e.data);
    })().catch((e: unknown) => e);
    expect(seen).toEqual(['small']);
    expect(err).toBeInstanceOf(ClientProcessingError);
    expect(err).toMatchObject({ code: ClientErrorCode.ResponseTooLarge });
    expect(countOf('huge') - before).toBe(1);
  });

  it('refuses bad options when the stream is made', () => {
    expect(() => client.events('feed/hub', { maxEventBytes: 0 })).toThrow(/maxEventBytes/);
    expect(() => client.events('feed/hub', { reconnectDelay: -1 })).toThrow(/reconnectDelay/);
    expect(() => client.events('feed/hub', { maxReconnects: 1.5 })).toThrow(/maxReconnects/);
  });
});

// ---- parsing (WHATWG HTML §9.2.6) -----------------------------------------------------------------

const STREAM = Buffer.concat([
  Buffer.from([0xef, 0xbb, 0xbf]), // BOM: dropped, so the first line is a data field
  Buffer.from(
    'data: first\n\n' +
      ': a comment\r\n' +
      'data: a\r\ndata:b\rdata:  c\n\n' +
      'event: tick\nid: 7\nretry: 15\nretry: x5\ndata\n\n' +
      'id: x\u0000y\ndata: keeps 7\r\n\r\n' +
      'unknown: field\nid\n\n' +
      'data: after empty id\n\n' +
      'data: h\u00e9\u20ac\n\n' +
      'data: incomplete, discarded at the end',
  ),
]);
const EXPECTED = [
  { id: '', event: 'message', data: 'first', retry: undefined },
  { id: '', event: 'message', data: 'a\nb\n c', retry: undefined },
  { id: '7', event: 'tick', data: '', retry: 15 },
  { id: '7', event: 'message', data: 'keeps 7', retry: undefined },
  { id: '', event: 'message', data: 'after empty id', retry: undefined },
  { id: '', event: 'message', data: 'h\u00e9\u20ac', retry: undefined },
];

describe('event stream parsing', () => {
  it('parses fields, comments, multi-line data, BOM and CR/LF/CRLF wherever the chunks split', () => {
    for (let split = 0; split <= STREAM.length; split++) {
      const p = new EventStreamParser('', 1024);
      const got = [...p.push(STREAM.subarray(0, split)), ...p.push(STREAM.subarray(split))];
      expect(got, `split at ${split}`).toEqual(EXPECTED);
    }
    const bytewise = new EventStreamParser('', 1024);
    const got = [...STREAM].flatMap((byte) => bytewise.push(Uint8Array.of(byte)));
    expect(got).toEqual(EXPECTED);
    expect(bytewise.retry).toBe(15);
  });

  it('bounds the event being built and a line without an end, after delivering the events before it', () => {
    const big = new EventStreamParser('', 16);
    expect(big.push(Buffer.from('data: ok\n\ndata: 0123456789\ndata: 0123456789\n'))).toMatchObject([{ data: 'ok' }]);
    expect(big.failure?.message).toMatch(/maxEventBytes \(16\)/);
    expect(big.push(Buffer.from('data: later\n\n'))).toEqual([]);
    const p = new EventStreamParser('', 16);
    for (let i = 0; i < 4; i++) p.push(Buffer.from('xxxxxxxx'));
    expect(p.failure).toBeInstanceOf(ClientProcessingError);
    // Comments and completed events do not add up.
    const q = new EventStreamParser('', 16);
    for (let i = 0; i < 100; i++) expect(q.push(Buffer.from(': heartbeat\ndata: 0123456789\n\n'))).toHaveLength(1);
  });

  describe('over a socket, from a bare node:http server', () => {
    let server: Server;
    let client: Client;
    const served: Record<string, number> = {};
    beforeAll(async () => {
      server = createServer((req, res) => {
        served[req.url!] = (served[req.url!] ?? 0) + 1;
        if (req.url === '/json') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"not":"events"}');
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
        if (req.url === '/empty') {
          res.end(': nothing here\n\n');
          return;
        }
        // The stream in a few uneven writes, then the end (the client reconnects at most maxReconnects times).
        for (let at = 0; at < STREAM.length; at += 7) res.write(STREAM.subarray(at, at + 7));
        res.end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      client = new Client({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    });
    afterAll(async () => {
      await client.close();
      await new Promise((resolve) => server.close(resolve));
    });

    it('delivers the same events; maxReconnects 0 stops at the end of the stream', async () => {
      const seen: unknown[] = [];
      for await (const e of client.events('/', { maxReconnects: 0 })) seen.push({ id: e.id, event: e.event, data: e.data, retry: e.retry });
      expect(seen).toEqual(EXPECTED);
      expect(served['/']).toBe(1);
    });

    it('fails on a 200 that is not text/event-stream, without reconnecting', async () => {
      const err = await (async () => {
        for await (const _ of client.events('/json', { reconnectDelay: 1 })) {
          // none
        }
      })().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ClientProcessingError);
      expect(err).toMatchObject({ code: ClientErrorCode.ResponseUnreadable });
      expect((err as Error).message).toContain('application/json');
      expect(served['/json']).toBe(1);
    });

    it('gives up after maxReconnects reconnections in a row without an event', async () => {
      for await (const _ of client.events('/empty', { maxReconnects: 2, reconnectDelay: 1 })) {
        // none
      }
      expect(served['/empty']).toBe(3);
    });
  });
});
