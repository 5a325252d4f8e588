/**
 * Server-sent events (WHATWG HTML §9.2, Jakarta REST 3.1 §9: `SseEventSink`, `Sse`,
 * `SseBroadcaster`). Streams that end by themselves run over both transports; what needs a live
 * connection (a client that leaves or stops reading, broadcasts, heartbeats, reconnection, the
 * application closing) runs over a loopback socket only: the in-process transport hands the body
 * over when the response ends, so it cannot show a stream that is still open.
 */
import diagnostics_channel from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import {
  Application,
  CHANNEL_NAMES,
  Context,
  EventLog,
  GET,
  GzipFeature,
  LastEventId,
  NotFoundError,
  OutboundSseEvent,
  Path,
  PathParam,
  Produces,
  Response,
  Sse,
  SseBroadcaster,
  SseClosedError,
  SseEventSink,
  SseFeature,
  type ContainerRequestContext,
  type ContainerResponseFilter,
  type WriterInterceptor,
  type WriterInterceptorContext,
} from '../../src/index.js';
import { deferred } from '../helpers/deferred.js';
import { sseConnect, type SseClient, type SseFrame } from '../helpers/sse-client.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

const calls = { filter: 0, interceptor: 0, resolvedSends: 0 };
let lastSink: SseEventSink | undefined;

class CountingFilter implements ContainerResponseFilter {
  filterResponse(req: ContainerRequestContext): void {
    if (req.path.startsWith('/events/')) calls.filter++;
  }
}
class CountingInterceptor implements WriterInterceptor {
  async aroundWriteTo(ctx: WriterInterceptorContext): Promise<void> {
    if (ctx.request.path.startsWith('/events/')) calls.interceptor++;
    await ctx.proceed();
  }
}

@Path('/events')
class Events {
  @GET()
  @Path('format')
  @Produces('text/event-stream')
  async format(@Context() sink: SseEventSink, @Context() sse: Sse): Promise<void> {
    const sends = [
      sink.send(sse.newEventBuilder().id('1').name('greeting').data({ hello: 'world' }).build()),
      sink.send(sse.newEvent('two\nlines\r\nthree')),
      sink.send(sse.newEventBuilder().comment('just a comment').build()),
      sink.send(sse.newEventBuilder().reconnectDelay(2500).data('x', 'text/plain').build()),
      sink.send(sse.newEvent('named', 42)),
    ];
    await Promise.all(sends);
    calls.resolvedSends = sends.length;
    sink.close();
  }

  /** Returns at once; the events come later: the answer is the stream, not a 204. */
  @GET()
  @Path('later')
  @Produces('text/event-stream')
  later(@Context() sink: SseEventSink, @Context() sse: Sse): void {
    setImmediate(() => {
      void sink.send(sse.newEvent('later')).then(() => sink.close());
    });
  }

  @GET()
  @Path('job/{id}')
  @Produces('text/event-stream')
  job(@PathParam('id') id: string, @Context() sink: SseEventSink): Response | undefined {
    lastSink = sink;
    if (id === 'missing') throw new NotFoundError(`job ${id}`);
    if (id === 'busy') return Response.status(409).entity({ busy: true }).build();
    sink.close();
    return undefined;
  }
}

describe.each(TRANSPORTS)('server-sent events (%s)', (transport) => {
  const send = serveForSuite(
    transport,
    () =>
      new Application({
        resources: [Events],
        providers: [new CountingFilter(), new CountingInterceptor(), new GzipFeature({ threshold: 0 })],
        logger: () => undefined,
      }),
  );

  it('formats id, event, data (JSON for objects, one data line per line of text), comments and retry', async () => {
    Object.assign(calls, { filter: 0, interceptor: 0, resolvedSends: 0 });
    const r = await send({ url: '/events/format', headers: { accept: 'text/event-stream', 'accept-encoding': 'gzip' } });
    expect(r.status).toBe(200);
    expect(r.text).toBe(
      'event: greeting\nid: 1\ndata: {"hello":"world"}\n\n' +
        'data: two\ndata: lines\ndata: three\n\n' +
        ': just a comment\n\n' +
        'retry: 2500\ndata: x\n\n' +
        'event: named\ndata: 42\n\n',
    );
    expect(calls.resolvedSends).toBe(5);
  });

  it('sends the stream headers through the response chain once, never gzipped, without Content-Length', async () => {
    Object.assign(calls, { filter: 0, interceptor: 0 });
    const r = await send({ url: '/events/format', headers: { accept: 'text/event-stream', 'accept-encoding': 'gzip' } });
    expect(r.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(r.headers['cache-control']).toBe('no-cache');
    expect(r.headers['x-accel-buffering']).toBe('no');
    expect(r.headers['content-length']).toBeUndefined();
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(calls).toMatchObject({ filter: 1, interceptor: 1 });
  });

  it('a method that returns before sending answers with the stream, not 204', async () => {
    const r = await send({ url: '/events/later', headers: { accept: 'text/event-stream' } });
    expect(r.status).toBe(200);
    expect(r.text).toBe('data: later\n\n');
  });

  it('an error or a Response before the first event answers instead, and closes the sink', async () => {
    const missing = await send({ url: '/events/job/missing', headers: { accept: 'text/event-stream' } });
    expect(missing.status).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'HTTP_404' });
    expect(lastSink!.isClosed).toBe(true);
    await expect(lastSink!.send(OutboundSseEvent.builder().data('x').build())).rejects.toBeInstanceOf(SseClosedError);

    const busy = await send({ url: '/events/job/busy', headers: { accept: 'text/event-stream' } });
    expect(busy.status).toBe(409);
    expect(busy.json()).toEqual({ busy: true });
    expect(lastSink!.isClosed).toBe(true);

    const empty = await send({ url: '/events/job/1', headers: { accept: 'text/event-stream' } });
    expect(empty.status).toBe(200);
    expect(empty.text).toBe('');
  });

  it('a client that does not accept text/event-stream gets 406', async () => {
    const r = await send({ url: '/events/format', headers: { accept: 'application/json' } });
    expect(r.status).toBe(406);
  });
});

describe('server-sent events: start-up checks', () => {
  it('refuses a method that takes a sink without @Produces(text/event-stream)', () => {
    @Path('/bad')
    class Bad {
      @GET() get(@Context() sink: SseEventSink): void {
        sink.close();
      }
    }
    expect(() => new Application({ resources: [Bad] }).build()).toThrow(
      /Bad\.get takes an SseEventSink but does not produce text\/event-stream: add @Produces\('text\/event-stream'\)/,
    );
  });

  it('checks SseFeature options at construction', () => {
    expect(() => new SseFeature({ queueLimit: 0 })).toThrow(/queueLimit must be a positive integer/);
    expect(() => new SseFeature({ heartbeatInterval: -1 })).toThrow(/heartbeatInterval must be an integer/);
    expect(() => new SseFeature({ idleTimeout: 1.5 })).toThrow(/idleTimeout must be an integer/);
    expect(() => new SseFeature({ queuelimit: 1 } as never)).toThrow(/unknown option 'queuelimit'/);
    expect(() => new SseFeature({ closeEvent: 'bye' as never })).toThrow(/closeEvent must be an OutboundSseEvent/);
  });
});

// ---- over a loopback socket -------------------------------------------------------------------

const sse = new Sse();
const hub = new SseBroadcaster();
const log = new EventLog({ capacity: 4 });
const publish = (data: unknown): OutboundSseEvent => {
  const event = log.append(sse.newEvent(data));
  hub.broadcast(event);
  return event;
};
let probe = deferred<SseEventSink>();
let lateSink = deferred<SseEventSink>();
let lateRelease = deferred();
const firehose = new SseBroadcaster();
const fireClosed: string[] = [];
firehose.onClose((sink) => fireClosed.push((sink.signal.reason as SseClosedError).reason));

@Path('/live')
class Live {
  @GET()
  @Path('hub')
  @Produces('text/event-stream')
  subscribe(@Context() sink: SseEventSink, @LastEventId() last?: string): void {
    log.replay(sink, last);
    hub.register(sink);
  }

  @GET()
  @Path('probe')
  @Produces('text/event-stream')
  probe(@Context() sink: SseEventSink): void {
    probe.resolve(sink);
  }

  /** Returns only when the test says so: its client may be gone by then. */
  @GET()
  @Path('late')
  @Produces('text/event-stream')
  async late(@Context() sink: SseEventSink): Promise<void> {
    lateSink.resolve(sink);
    await lateRelease.promise;
  }

  @GET()
  @Path('firehose')
  @Produces('text/event-stream')
  fire(@Context() sink: SseEventSink): void {
    firehose.register(sink);
  }
}

const opened = async (c: SseClient): Promise<SseClient> => {
  expect((await c.head).status).toBe(200);
  return c;
};
const dataOf = (f: SseFrame): string | undefined => f.data;

describe('server-sent events over a socket', () => {
  let port = 0;
  const logged: unknown[] = [];
  const app = new Application({
    resources: [Live],
    providers: [new SseFeature({ queueLimit: 128 * 1024, heartbeatInterval: 0 })],
    logger: (e) => logged.push(e),
  });
  const clients: SseClient[] = [];
  const client = async (path: string, headers?: Record<string, string>, keep?: number): Promise<SseClient> => {
    const c = await sseConnect(port, path, headers, keep);
    clients.push(c);
    return opened(c);
  };

  it('starts', async () => {
    port = (await app.listen(0)).port;
  });

  it('a send after the client went away rejects (never hangs) and the signal fires', async () => {
    probe = deferred();
    const c = await client('/live/probe');
    const sink = await probe.promise;
    expect(sink.isClosed).toBe(false);
    c.close();
    await new Promise((resolve) => sink.signal.addEventListener('abort', resolve, { once: true }));
    expect(sink.isClosed).toBe(true);
    expect((sink.signal.reason as SseClosedError).reason).toBe('disconnected');
    const error = await sink.send(sse.newEvent('too late')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SseClosedError);
    expect((error as SseClosedError).reason).toBe('disconnected');
  });

  it('a client that leaves before its stream started leaves nothing in flight and nothing logged', async () => {
    const c = await sseConnect(port, '/live/late');
    const sink = await lateSink.promise;
    c.close();
    await new Promise((resolve) => sink.signal.addEventListener('abort', resolve, { once: true }));
    expect((sink.signal.reason as SseClosedError).reason).toBe('disconnected');
    const finished = new Promise<unknown>((resolve) => {
      const onFinish = (m: unknown): void => {
        if ((m as { request: ContainerRequestContext }).request.path !== '/live/late') return;
        diagnostics_channel.unsubscribe(CHANNEL_NAMES.finish, onFinish);
        resolve((m as { status: number }).status);
      };
      diagnostics_channel.subscribe(CHANNEL_NAMES.finish, onFinish);
    });
    lateRelease.resolve(); // the method returns now: the stream starts on a closed connection
    expect(await finished).toBe(200); // accounted for: close() does not wait for it
    expect(logged).toEqual([]);
  });

  it('a broadcast reaches every registered client, with the ids of the event log', async () => {
    const many = await Promise.all(Array.from({ length: 20 }, () => client('/live/hub')));
    expect(hub.size).toBeGreaterThanOrEqual(20);
    const event = publish({ n: 1 });
    const got = await Promise.all(many.map((c) => c.frame((f) => f.id === event.id)));
    for (const f of got) expect(f.data).toBe('{"n":1}');
    for (const c of many) c.close();
  });

  it('replays what a reconnecting client missed after its Last-Event-ID, and tells a too old one to resync', async () => {
    const ids = [publish('a').id!, publish('b').id!, publish('c').id!];
    const back = await client('/live/hub', { 'last-event-id': ids[0]! });
    await back.frame((f) => f.id === ids[2]);
    expect(back.frames.map(dataOf)).toEqual(['b', 'c']);

    for (let i = 0; i < 4; i++) publish(`filler ${i}`); // the log keeps 4: ids[0] is gone
    const stale = await client('/live/hub', { 'last-event-id': ids[0]! });
    const resync = await stale.frame((f) => f.event === 'resync');
    expect(resync.id).toBe(log.lastId);
    const after = publish('after');
    await stale.frame((f) => f.id === after.id);
  });

  it('a client that stops reading is closed past its queue bound, and the others keep receiving', async () => {
    const slow = await client('/live/firehose', undefined, 16);
    const fast = await client('/live/firehose', undefined, 16);
    slow.stopReading();
    const big = 'x'.repeat(32 * 1024);
    let i = 0;
    // Bounded: 2000 x 32 KiB is far more than loopback buffers plus the 128 KiB queue can hold.
    for (; i < 2000 && fireClosed.length === 0; i++) {
      firehose.broadcast(sse.newEventBuilder().id(String(i)).data(big).build());
      await fast.frame((f) => f.id === String(i), 5000, Math.max(0, fast.frames.length - 1));
    }
    expect(fireClosed).toEqual(['overflow']);
    // The server cut it: once it reads again it finds the connection closed, with no last chunk.
    slow.socket.resume();
    expect(await slow.ended).toBe('closed');
    firehose.broadcast(sse.newEventBuilder().id('after').data('still here').build());
    expect((await fast.frame((f) => f.id === 'after')).data).toBe('still here');
    expect(firehose.size).toBe(1);
  });

  it('stops: nothing is left in flight', async () => {
    for (const c of clients) c.close();
    expect(await app.close(2000)).toEqual({ drained: true, cutConnections: 0 });
    expect(logged).toEqual([]);
  });
});

@Path('/quiet')
class Quiet {
  static sinks: SseEventSink[] = [];
  @GET()
  @Produces('text/event-stream')
  get(@Context() sink: SseEventSink, @Context() sse: Sse): void {
    Quiet.sinks.push(sink);
    void sink.send(sse.newEvent('hello'));
  }
}

@Path('/slowpoke')
class Slowpoke {
  @GET()
  @Produces('text/event-stream')
  async get(@Context() sink: SseEventSink, @Context() sse: Sse): Promise<void> {
    await sink.send(sse.newEvent('first'));
    // Outlives the application's deadline: the stream has answered, so the deadline does not cut it.
    await new Promise((resolve) => sink.signal.addEventListener('abort', resolve, { once: true }));
  }
}

describe('server-sent events: heartbeat, idle close, deadlines, shutdown (socket)', () => {
  const start = async (
    options: ConstructorParameters<typeof SseFeature>[0],
    deadline?: number,
  ): Promise<{ app: Application; port: number }> => {
    const app = new Application({ resources: [Quiet, Slowpoke], providers: [new SseFeature(options)], deadline, logger: () => undefined });
    return { app, port: (await app.listen(0)).port };
  };

  it('sends a heartbeat comment on a quiet stream', async () => {
    const { app, port } = await start({ heartbeatInterval: 20 });
    const c = await opened(await sseConnect(port, '/quiet'));
    await c.frame((f) => f.data === 'hello');
    const beat = await c.frame((f) => f.data === undefined && f.comments.length > 0);
    expect(beat.comments).toEqual(['']);
    c.close();
    await app.close(2000);
  });

  it('closes a stream without events for idleTimeout, heartbeats notwithstanding', async () => {
    const { app, port } = await start({ heartbeatInterval: 10, idleTimeout: 60 });
    const c = await opened(await sseConnect(port, '/quiet'));
    expect(await c.ended).toBe('end');
    expect(c.frames.filter((f) => f.data === undefined).length).toBeGreaterThan(0);
    c.close();
    await app.close(2000);
  });

  it('a stream outlives the application deadline once it has started', async () => {
    const { app, port } = await start({ heartbeatInterval: 100 }, 30);
    const c = await opened(await sseConnect(port, '/slowpoke'));
    await c.frame((f) => f.data === 'first');
    // A heartbeat comes 100 ms after the last event: well past the 30 ms deadline, still open.
    await c.frame((f) => f.comments.length > 0);
    expect(c.frames.map(dataOf)).toEqual(['first', undefined]);
    c.close();
    await app.close(2000);
  });

  it('closing the application sends the close event to every open stream and ends them, so close() drains', async () => {
    Quiet.sinks = [];
    const bye = OutboundSseEvent.builder().name('bye').data('restarting').reconnectDelay(5000).build();
    const { app, port } = await start({ heartbeatInterval: 0, closeEvent: bye });
    const open = await Promise.all([1, 2, 3].map(async () => opened(await sseConnect(port, '/quiet'))));
    await Promise.all(open.map((c) => c.frame((f) => f.data === 'hello')));
    const result = await app.close(4000);
    expect(result).toEqual({ drained: true, cutConnections: 0 });
    for (const c of open) {
      expect(await c.ended).not.toBeUndefined();
      expect(c.frames.at(-1)).toEqual({ event: 'bye', data: 'restarting', retry: 5000, comments: [] });
    }
    expect(Quiet.sinks.map((s) => (s.signal.reason as SseClosedError).reason)).toEqual(['shutdown', 'shutdown', 'shutdown']);
  });
});
