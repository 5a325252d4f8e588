// Processing rules §7 and README "Observability": per-phase diagnostics_channel events and opt-in
// tracing (X-Pipeline-Trace) listing the components that ran, in order.
import diagnostics_channel from 'node:diagnostics_channel';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  Application,
  CHANNEL_NAMES,
  ContainerRequestContext,
  GET,
  MapsError,
  Path,
  POST,
  PreMatching,
  type ContainerRequestFilter,
  type ContainerResponseFilter,
  type ExceptionMapper,
  type ReaderInterceptor,
  type ReaderInterceptorContext,
  Response,
  type WriterInterceptor,
  type WriterInterceptorContext,
} from '../../src/index.js';
import { deferred } from '../helpers/deferred.js';
import { start, serveForSuite, TRANSPORTS } from '../helpers/transports.js';

class Boom extends Error {}

/** `/obs/gate` holds the method until the test opens the gate; `entered` resolves when the method runs. */
let gate = deferred();
let entered = deferred();

@Path('/obs')
class Obs {
  @GET() ok(): unknown {
    return { ok: true };
  }
  @GET('async') async later(): Promise<unknown> {
    return { later: true };
  }
  @GET('gate') async gated(): Promise<unknown> {
    entered.resolve();
    await gate.promise;
    return { gated: true };
  }
  @GET('fail') fail(): never {
    throw new Error('kaput');
  }
  @GET('async-fail') async asyncFail(): Promise<never> {
    await Promise.resolve();
    throw new Error('later kaput');
  }
  @GET('boom') boom(): never {
    throw new Boom('mapped');
  }
  @POST() echo(body: { n: number }): unknown {
    return { n: body.n };
  }
}

@PreMatching()
class PreF implements ContainerRequestFilter {
  filterRequest(): void {}
}
class ReqF implements ContainerRequestFilter {
  filterRequest(): void {}
}
class RespF implements ContainerResponseFilter {
  filterResponse(): void {}
}
class ReadI implements ReaderInterceptor {
  aroundReadFrom(ctx: ReaderInterceptorContext): unknown {
    return ctx.proceed();
  }
}
class WriteI implements WriterInterceptor {
  aroundWriteTo(ctx: WriterInterceptorContext): Promise<void> {
    return ctx.proceed();
  }
}
@MapsError(Boom)
class BoomMapper implements ExceptionMapper<Boom> {
  toResponse(e: Boom): Response {
    return Response.status(409).entity({ msg: e.message }).build();
  }
}

type Event = { channel: keyof typeof CHANNEL_NAMES; message: Record<string, unknown> };

/** Subscribes to every channel; `events(path)` returns that request's events in publication order. */
function recorder(): { events(path: string): Event[]; all: Event[]; unsubscribe(): void } {
  const all: Event[] = [];
  const handlers = Object.entries(CHANNEL_NAMES).map(([channel, name]) => {
    const fn = (message: unknown): void => {
      all.push({ channel: channel as Event['channel'], message: message as Record<string, unknown> });
    };
    diagnostics_channel.subscribe(name, fn);
    return [name, fn] as const;
  });
  return {
    all,
    events: (path) => all.filter((e) => (e.message.request as ContainerRequestContext).path === path),
    unsubscribe: () => {
      for (const [name, fn] of handlers) diagnostics_channel.unsubscribe(name, fn);
    },
  };
}

const names = (events: Event[]): string[] => events.map((e) => e.channel);
const finishOf = (events: Event[]): Record<string, unknown> => events.find((e) => e.channel === 'finish')!.message;

describe.each(TRANSPORTS)('diagnostics_channel events (%s)', (transport) => {
  const send = serveForSuite(transport, () => new Application({ resources: [Obs], providers: [BoomMapper], logger: () => undefined }));
  let rec: ReturnType<typeof recorder>;
  beforeEach(() => {
    rec = recorder();
  });
  afterEach(() => rec.unsubscribe());

  it('a normal request: start, matched, filtered, method start/end, finish with status and duration', async () => {
    expect((await send('/obs')).status).toBe(200);
    const events = rec.events('/obs');
    expect(names(events)).toEqual(['start', 'matched', 'filtered', 'methodStart', 'methodEnd', 'finish']);
    const request = events[0]!.message.request;
    expect(events.every((e) => e.message.request === request)).toBe(true);
    expect((events[1]!.message.resourceInfo as { methodName: string }).methodName).toBe('ok');
    const finish = finishOf(events);
    expect(finish.status).toBe(200);
    expect(typeof finish.durationMs).toBe('number');
    expect(finish.durationMs).toBeGreaterThanOrEqual(0);
    expect(finish.error).toBeUndefined();
  });

  it('durationMs spans the whole request (monotonic clock)', async () => {
    gate = deferred();
    entered = deferred();
    const pending = send('/obs/gate');
    await entered.promise;
    const held = performance.now();
    await new Promise((r) => setTimeout(r, 30)); // elapsed time to measure, not synchronisation
    const heldFor = performance.now() - held;
    gate.resolve();
    expect((await pending).status).toBe(200);
    expect(finishOf(rec.events('/obs/gate')).durationMs as number).toBeGreaterThanOrEqual(heldFor - 1);
  });

  it('a request already under way when the first subscriber arrives finishes without durationMs', async () => {
    rec.unsubscribe();
    gate = deferred();
    entered = deferred();
    const pending = send('/obs/gate');
    await entered.promise;
    rec = recorder();
    gate.resolve();
    expect((await pending).status).toBe(200);
    const finish = finishOf(rec.events('/obs/gate'));
    expect(finish.status).toBe(200);
    expect(finish.durationMs).toBeUndefined();
  });

  it('an async method ends after its promise settles', async () => {
    await send('/obs/async');
    expect(names(rec.events('/obs/async'))).toEqual(['start', 'matched', 'filtered', 'methodStart', 'methodEnd', 'finish']);
  });

  it('an unmapped error: error, error:mapped and finish 500 carrying the error', async () => {
    expect((await send('/obs/fail')).status).toBe(500);
    const events = rec.events('/obs/fail');
    expect(names(events)).toEqual(['start', 'matched', 'filtered', 'methodStart', 'methodEnd', 'error', 'mapped', 'finish']);
    const error = events.find((e) => e.channel === 'error')!.message.error as Error;
    expect(error.message).toBe('kaput');
    expect(events.find((e) => e.channel === 'methodEnd')!.message.error).toBe(error);
    expect(events.find((e) => e.channel === 'mapped')!.message).toMatchObject({ error, status: 500 });
    expect(finishOf(events)).toMatchObject({ status: 500, error });
  });

  it('a rejected async method: method:end carries the rejection, then error', async () => {
    expect((await send('/obs/async-fail')).status).toBe(500);
    const events = rec.events('/obs/async-fail');
    expect(names(events)).toEqual(['start', 'matched', 'filtered', 'methodStart', 'methodEnd', 'error', 'mapped', 'finish']);
    expect((events.find((e) => e.channel === 'methodEnd')!.message.error as Error).message).toBe('later kaput');
  });

  it('a user mapper: error:mapped carries the mapped status', async () => {
    expect((await send('/obs/boom')).status).toBe(409);
    const events = rec.events('/obs/boom');
    expect(names(events)).toEqual(['start', 'matched', 'filtered', 'methodStart', 'methodEnd', 'error', 'mapped', 'finish']);
    expect(events.find((e) => e.channel === 'mapped')!.message.status).toBe(409);
    expect(finishOf(events).status).toBe(409);
  });

  it('a 404: no matched, no filtered, no method events', async () => {
    expect((await send('/nowhere')).status).toBe(404);
    const events = rec.events('/nowhere');
    expect(names(events)).toEqual(['start', 'error', 'mapped', 'finish']);
    expect(finishOf(events).status).toBe(404);
  });

  it('unsubscribing removes every subscriber: nothing is published any more', async () => {
    // Spy on publish itself: with no subscriber left, nothing would reach `rec.all` anyway.
    const spies = Object.values(CHANNEL_NAMES).map((name) => vi.spyOn(diagnostics_channel.channel(name), 'publish'));
    try {
      // Control: while subscribed, the spies see every publication (they watch the channels the pipeline uses).
      expect((await send('/obs/fail')).status).toBe(500);
      expect(spies.every((s) => s.mock.calls.length > 0)).toBe(true);
      rec.unsubscribe();
      for (const name of Object.values(CHANNEL_NAMES)) expect(diagnostics_channel.channel(name).hasSubscribers).toBe(false);
      for (const s of spies) s.mockClear();
      expect((await send('/obs')).status).toBe(200);
      expect((await send('/obs/fail')).status).toBe(500);
      expect((await send('/obs/boom')).status).toBe(409);
      expect((await send('/nowhere')).status).toBe(404);
      for (const s of spies) expect(s).not.toHaveBeenCalled();
    } finally {
      for (const s of spies) s.mockRestore();
    }
  });
});

const tracedApp = (tracing: boolean): Application =>
  new Application({
    resources: [Obs],
    providers: [PreF, ReqF, RespF, ReadI, WriteI, BoomMapper],
    tracing,
    logger: () => undefined,
  });

describe.each(TRANSPORTS)('tracing (%s)', (transport) => {
  const send = serveForSuite(transport, () => tracedApp(true));

  it('lists request filters, reader interceptors, reader, method, response filters, writer interceptors, writer in order', async () => {
    const r = await send({ method: 'POST', url: '/obs', body: { n: 7 } });
    expect(r.json()).toEqual({ n: 7 });
    expect(r.headers['x-pipeline-trace']).toBe(
      [
        'request-filter:PreF',
        'request-filter:ReqF',
        'reader-interceptor:ReadI',
        'reader:JsonReader',
        'method:Obs.echo',
        'response-filter:RespF',
        'writer-interceptor:WriteI',
        'writer:JsonWriter',
      ].join(', '),
    );
  });

  it('names the mapper where it ran: after the method, before the response chains', async () => {
    const r = await send('/obs/boom');
    expect(r.status).toBe(409);
    expect(r.headers['x-pipeline-trace']).toBe(
      [
        'request-filter:PreF',
        'request-filter:ReqF',
        'method:Obs.boom',
        'mapper:BoomMapper',
        'response-filter:RespF',
        'writer-interceptor:WriteI',
        'writer:JsonWriter',
      ].join(', '),
    );
    const nf = await send('/nowhere');
    expect(nf.headers['x-pipeline-trace']).toBe(
      'request-filter:PreF, mapper:default, response-filter:RespF, writer-interceptor:WriteI, writer:JsonWriter',
    );
  });

  it('the finish event carries the same trace', async () => {
    const rec = recorder();
    try {
      const r = await send('/obs');
      expect((finishOf(rec.events('/obs')).trace as string[]).join(', ')).toBe(r.headers['x-pipeline-trace']);
    } finally {
      rec.unsubscribe();
    }
  });
});

describe.each(TRANSPORTS)('tracing off (%s)', (transport) => {
  it('sends no X-Pipeline-Trace header', async () => {
    const { send, stop } = await start(tracedApp(false), transport);
    try {
      for (const url of ['/obs', '/obs/boom', '/nowhere']) expect((await send(url)).headers['x-pipeline-trace']).toBeUndefined();
    } finally {
      await stop();
    }
  });
});
