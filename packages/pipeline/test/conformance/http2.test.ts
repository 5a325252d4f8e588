/**
 * One pipeline over the transports of `listen()` (docs/http2.md): HTTP/1.1, HTTP/1.1 over TLS,
 * HTTP/2 over TLS (ALPN h2, HTTP/1.1 fallback) and h2c with prior knowledge. The same tests run on each over a
 * real socket: entities with and without Content-Length (RFC 9113 §8.1: END_STREAM ends the
 * body), error bodies, HEAD, event streams, `:authority` as the base URI (RFC 9113 §8.3.1), no
 * connection-specific header on HTTP/2 (§8.2.2), and a graceful close (GOAWAY, §6.8).
 */
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Application,
  Consumes,
  Context,
  GET,
  Path,
  POST,
  Produces,
  Response,
  SseEventSink,
  Sse,
  UriInfo,
  ContainerRequestContext,
} from '../../src/index.js';
import { deferred } from '../helpers/deferred.js';
import { openStream, PROTOCOLS, serve, type WireClient } from '../helpers/h2.js';

let slowEntered = deferred();
let slowRelease = deferred();
let waitEntered = deferred();
let waitAborted = deferred<string>();

@Path('/items')
class Items {
  @GET() list(): unknown {
    return { items: ['a', 'b'] };
  }
  @POST()
  @Consumes('application/json')
  create(item: { name: string }): Response {
    return Response.created(`items/${item.name}`).entity({ created: item.name }).build();
  }
}

@Path('/text')
class Text {
  @POST()
  @Consumes('text/plain')
  echo(body: string): unknown {
    return { length: body.length, start: body.slice(0, 5) };
  }
}

@Path('/info')
class Info {
  @GET() get(@Context() uri: UriInfo, @Context() ctx: ContainerRequestContext): unknown {
    return { base: uri.baseUri, remote: ctx.remoteAddress, host: ctx.getHeader('host') };
  }
}

@Path('/slow')
class Slow {
  @GET() async get(): Promise<unknown> {
    slowEntered.resolve();
    await slowRelease.promise;
    return { done: true };
  }
}

@Path('/wait')
class Wait {
  @GET() get(@Context() ctx: ContainerRequestContext): Promise<unknown> {
    return new Promise((resolve) => {
      ctx.signal.addEventListener('abort', () => {
        waitAborted.resolve((ctx.signal.reason as Error).name);
        resolve({ aborted: true });
      });
      waitEntered.resolve();
    });
  }
}

@Path('/events')
class Events {
  @GET()
  @Produces('text/event-stream')
  async stream(@Context() sink: SseEventSink, @Context() sse: Sse, @Context() ctx: ContainerRequestContext): Promise<void> {
    const n = ctx.query.get('n') ?? '0';
    await sink.send(sse.newEvent(`first-${n}`));
    await sink.send(sse.newEvent(`second-${n}`));
    sink.close();
  }
}

const newApp = (): Application =>
  new Application({ resources: [Items, Text, Info, Slow, Wait, Events], logger: () => undefined, limits: { shutdownDeadline: 2000 } });

const CONNECTION_SPECIFIC = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade'];

describe.each(PROTOCOLS)('the pipeline over %s', (protocol) => {
  let app: Application;
  let client: WireClient;
  const h2 = protocol === 'h2 TLS' || protocol === 'h2c';
  const start = async (): Promise<void> => {
    app = newApp();
    client = await serve(app, protocol);
  };
  afterEach(async () => {
    slowRelease.resolve();
    client?.close();
    await app?.close(200);
    slowEntered = deferred();
    slowRelease = deferred();
    waitEntered = deferred();
    waitAborted = deferred<string>();
  });

  it('answers a GET, with no connection-specific header on HTTP/2', async () => {
    await start();
    const res = await client.send({ path: '/items' });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ items: ['a', 'b'] });
    expect(res.headers['content-length']).toBe(String(res.body.length));
    if (h2) for (const name of CONNECTION_SPECIFIC) expect(res.headers[name]).toBeUndefined();
    // RFC 9110 §6.6.1: an origin server with a clock sends Date (the pipeline writes it itself on HTTP/2).
    expect(res.headers.date).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    expect(Math.abs(Date.parse(String(res.headers.date)) - Date.now())).toBeLessThan(5_000);
  });

  it('reads a POST body with Content-Length, and one without (chunked on HTTP/1.1, END_STREAM on HTTP/2)', async () => {
    await start();
    const body = JSON.stringify({ name: 'x1' });
    const withLength = await client.send({ method: 'POST', path: '/items', headers: { 'content-type': 'application/json' }, body });
    expect(withLength.status).toBe(201);
    expect(withLength.json()).toEqual({ created: 'x1' });
    const without = await client.send({
      method: 'POST',
      path: '/text',
      headers: { 'content-type': 'text/plain' },
      body: 'hello world',
      chunked: true,
    });
    expect(without.status).toBe(200);
    expect(without.json()).toEqual({ length: 11, start: 'hello' });
  });

  it('answers 400 PIPE_BODY_REQUIRED for a POST without any body', async () => {
    await start();
    const res = await client.send({ method: 'POST', path: '/items', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ code: 'PIPE_BODY_REQUIRED' });
  });

  it('gives 404 and 415 their error bodies', async () => {
    await start();
    const missing = await client.send({ path: '/nothing' });
    expect(missing.status).toBe(404);
    expect(missing.json()).toMatchObject({ status: 404, code: 'PIPE_NO_MATCH' });
    const unsupported = await client.send({ method: 'POST', path: '/items', headers: { 'content-type': 'text/csv' }, body: 'a,b' });
    expect(unsupported.status).toBe(415);
    expect(unsupported.json()).toMatchObject({ status: 415, code: 'PIPE_UNSUPPORTED_MEDIA_TYPE' });
    // The connection (HTTP/1.1) or session (HTTP/2) still serves.
    expect((await client.send({ path: '/items' })).status).toBe(200);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    await start();
    const res = await client.send({ method: 'HEAD', path: '/items' });
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(0);
    expect(res.headers['content-length']).toBe(String(JSON.stringify({ items: ['a', 'b'] }).length));
  });

  it('builds the base URI and Location from Host, or from :authority on HTTP/2', async () => {
    await start();
    const info = (await client.send({ path: '/info' })).json<{ base: string; remote: string; host: string }>();
    expect(info.base).toBe(client.origin);
    expect(info.remote).toBe('127.0.0.1');
    const created = await client.send({
      method: 'POST',
      path: '/items',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"n7"}',
    });
    expect(created.headers.location).toBe(`${client.origin}/items/n7`);
  });

  it('serves several event streams at once on one connection (HTTP/2) or in turn (HTTP/1.1)', async () => {
    await start();
    const answers = await Promise.all(
      [0, 1, 2].map((n) => client.send({ path: `/events?n=${n}`, headers: { accept: 'text/event-stream' } })),
    );
    for (const [n, res] of answers.entries()) {
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(res.text).toContain(`data: first-${n}\n\n`);
      expect(res.text).toContain(`data: second-${n}\n\n`);
    }
  });

  it('fires the request signal when the client goes away (its stream reset on HTTP/2)', async () => {
    await start();
    if (client.session !== undefined) {
      const stream = openStream(client.session, { path: '/wait' });
      await waitEntered.promise;
      stream.close(0x8 /* CANCEL */);
    } else {
      const pending = client.send({ path: '/wait' }).catch(() => undefined);
      await waitEntered.promise;
      client.close();
      await pending;
    }
    expect(await waitAborted.promise).toBe('AbortError');
    if (client.session !== undefined) expect((await client.send({ path: '/items' })).status).toBe(200);
  });

  it('closes gracefully: the request in flight finishes, then the server stops (GOAWAY on HTTP/2)', async () => {
    await start();
    const inFlight = client.send({ path: '/slow' });
    await slowEntered.promise;
    const goaway = client.session === undefined ? undefined : once(client.session, 'goaway');
    const closing = app.close(5000);
    if (goaway !== undefined) {
      const [code] = (await goaway) as [number];
      expect(code).toBe(0); // NO_ERROR
    }
    slowRelease.resolve();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ done: true });
    if (h2) expect(res.headers.connection).toBeUndefined();
    else expect(res.headers.connection).toBe('close');
    expect(await closing).toEqual({ drained: true, cutConnections: 0 });
  });
});
