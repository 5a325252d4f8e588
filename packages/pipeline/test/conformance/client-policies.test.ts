/**
 * The client's policies over both transports: headers timeout and deadline (against a method that
 * never answers: bounded), retries (Retry-After 0 and 1, backoff, the idempotency rules), the
 * response size cap, the caller's AbortSignal, close(), header propagation and the diagnostics
 * events; over a socket also an unreachable server, a stalled body and a reset.
 */
import 'reflect-metadata';
import diagnostics_channel from 'node:diagnostics_channel';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Application, Context, ContainerRequestContext, GET, Path, PathParam, POST, PUT, QueryParam, Response } from '../../src/index.js';
import { createRequestContext } from '../../src/testing/index.js';
import {
  Client,
  CLIENT_CHANNEL_NAMES,
  ClientProcessingError,
  ClientResponseError,
  ClientTimeoutError,
  withCallOptions,
  type ClientFailureMapper,
} from '../../src/client/index.js';
import { CLIENT_TRANSPORTS, serveForClients } from '../helpers/client-transports.js';

const unused = (): never => {
  throw new Error('contract method');
};

/** Calls per flaky key; the hanging methods started, and those cancelled through their request signal. */
const calls = new Map<string, number>();
const started: string[] = [];
const cancelled: string[] = [];

/** Waits until the request's signal fires (the client went away), never answering before. */
function untilAborted(signal: AbortSignal, what: string): Promise<never> {
  started.push(what);
  return new Promise<never>((_resolve, reject) => {
    signal.addEventListener('abort', () => {
      cancelled.push(what);
      reject(signal.reason as Error);
    });
  });
}

@Path('/policy')
abstract class PolicyContract {
  /** The server gets its own request signal here; a client passes the call's signal. */
  @GET('hang') hang(@Context() _signal?: AbortSignal): Promise<string> {
    return unused();
  }
  @GET('flaky/{key}') flaky(
    @PathParam('key') _key: string,
    @QueryParam('fail') _fail: number,
    @QueryParam('after') _after?: string,
  ): Promise<{ calls: number }> {
    return unused();
  }
  @POST('flaky/{key}') flakyPost(
    @PathParam('key') _key: string,
    @QueryParam('fail') _fail: number,
    _body: unknown,
  ): Promise<{ calls: number }> {
    return unused();
  }
  @PUT('flaky/{key}') flakyPut(
    @PathParam('key') _key: string,
    @QueryParam('fail') _fail: number,
    _body: unknown,
  ): Promise<{ calls: number }> {
    return unused();
  }
  @GET('big') big(@QueryParam('bytes') _bytes: number, @QueryParam('chunked') _chunked?: boolean): Promise<{ pad: string }> {
    return unused();
  }
  @GET('big-stream') bigStream(@QueryParam('bytes') _bytes: number, @QueryParam('chunked') _chunked?: boolean): Readable {
    return unused();
  }
  @GET('headers') headers(@Context() _request?: ContainerRequestContext): Promise<Record<string, string | null>> {
    return unused();
  }
}

class PolicyResource extends PolicyContract {
  override hang(signal?: AbortSignal): Promise<string> {
    return untilAborted(signal!, 'hang');
  }
  override async flaky(key: string, fail: number, after?: string): Promise<{ calls: number }> {
    const n = (calls.get(key) ?? 0) + 1;
    calls.set(key, n);
    if (n <= fail) {
      const r = Response.status(503).entity({ calls: n });
      return (after === undefined ? r : r.header('retry-after', after)).build() as never;
    }
    return { calls: n };
  }
  override flakyPost(key: string, fail: number): Promise<{ calls: number }> {
    return this.flaky(key, fail, '0');
  }
  override flakyPut(key: string, fail: number): Promise<{ calls: number }> {
    return this.flaky(key, fail, '0');
  }
  override async big(bytes: number, chunked?: boolean): Promise<{ pad: string }> {
    const pad = 'x'.repeat(bytes);
    if (chunked !== true) return { pad };
    return Response.ok(
      Readable.from(
        (function* () {
          for (let i = 0; i < pad.length; i += 1000) yield i === 0 ? `{"pad":"${pad.slice(i, i + 1000)}` : pad.slice(i, i + 1000);
          yield '"}';
        })(),
      ),
      'application/json',
    ).build() as never;
  }
  override bigStream(bytes: number, chunked?: boolean): Readable {
    return this.big(bytes, chunked) as never;
  }
  /** On the server the @Context() argument is this request's own context. */
  override async headers(request?: ContainerRequestContext): Promise<Record<string, string | null>> {
    return {
      'x-request-id': request!.getHeader('x-request-id') ?? null,
      traceparent: request!.getHeader('traceparent') ?? null,
      'x-tenant': request!.getHeader('x-tenant') ?? null,
    };
  }
}

let keys = 0;
const key = (): string => `k${keys++}`;

/** The diagnostics events of the calls `run` makes. */
async function events(run: () => Promise<unknown>): Promise<Array<[string, Record<string, unknown>]>> {
  const seen: Array<[string, Record<string, unknown>]> = [];
  const subs = Object.entries(CLIENT_CHANNEL_NAMES).map(([name, channel]) => {
    const fn = (m: unknown): void => {
      seen.push([name, m as Record<string, unknown>]);
    };
    diagnostics_channel.subscribe(channel, fn);
    return () => diagnostics_channel.unsubscribe(channel, fn);
  });
  try {
    await run().catch(() => undefined);
  } finally {
    for (const off of subs) off();
  }
  return seen;
}

describe.each(CLIENT_TRANSPORTS)('client policies (%s)', (transport) => {
  const suite = serveForClients(transport, () => new Application({ resources: [PolicyResource] }));
  const api = (options: ConstructorParameters<typeof Client>[0] = {}) => suite.client(options).proxy(PolicyContract);

  it('a server that never answers: the headers timeout ends the call', async () => {
    const err = await api({ headersTimeout: 150 })
      .hang()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientTimeoutError);
    expect(err).toMatchObject({ phase: 'headers', code: 'CLIENT_HEADERS_TIMEOUT', timeoutMs: 150 });
  });

  it('the deadline ends the call, and a per-call deadline replaces the client’s', async () => {
    await expect(api({ deadline: 150 }).hang()).rejects.toMatchObject({ phase: 'deadline', code: 'CLIENT_DEADLINE', timeoutMs: 150 });
    const p = api({ deadline: 60_000 });
    await expect(withCallOptions(p, { deadline: 100 }).hang()).rejects.toMatchObject({ phase: 'deadline', timeoutMs: 100 });
  });

  it('the deadline also cuts the wait between retries', async () => {
    const p = api({ deadline: 200, retry: { maxRetries: 3, maxDelay: 5_000 } });
    await expect(p.flaky(key(), 5, '2')).rejects.toMatchObject({ code: 'CLIENT_DEADLINE' });
  });

  it('GET is retried on 503 with Retry-After: 0 until it succeeds', async () => {
    const k = key();
    const seen = await events(async () => expect(await api({ retry: { maxRetries: 2 } }).flaky(k, 2, '0')).toEqual({ calls: 3 }));
    const retries = seen.filter(([n]) => n === 'retry').map(([, m]) => [m.attempt, m.delayMs, m.status]);
    expect(retries).toEqual([
      [2, 0, 503],
      [3, 0, 503],
    ]);
    expect(seen.find(([n]) => n === 'finish')![1]).toMatchObject({ status: 200, attempts: 3, error: undefined });
  });

  it('Retry-After: 1 is honoured (the retry waits a second)', async () => {
    const started = Date.now();
    expect(await api({ retry: { maxRetries: 1 } }).flaky(key(), 1, '1')).toEqual({ calls: 2 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('without Retry-After the retry backs off; more retries than allowed: the last response stands', async () => {
    const k = key();
    const err = (await api({ retry: { maxRetries: 2, baseDelay: 1, maxDelay: 10 } })
      .flaky(k, 5)
      .catch((e: unknown) => e)) as ClientResponseError;
    expect([err.status, err.body]).toEqual([503, { calls: 3 }]);
  });

  it('a Retry-After longer than maxDelay is not waited for', async () => {
    const k = key();
    await expect(api({ retry: { maxRetries: 2, maxDelay: 500 } }).flaky(k, 1, '5')).rejects.toMatchObject({ status: 503 });
    expect(calls.get(k)).toBe(1);
  });

  it('POST is not retried; with an Idempotency-Key it is; PUT is', async () => {
    const retry = { retry: { maxRetries: 2 } };
    const k1 = key();
    await expect(api(retry).flakyPost(k1, 1, { a: 1 })).rejects.toMatchObject({ status: 503 });
    expect(calls.get(k1)).toBe(1);
    const k2 = key();
    expect(await withCallOptions(api(retry), { headers: { 'Idempotency-Key': 'op-1' } }).flakyPost(k2, 1, { a: 1 })).toEqual({ calls: 2 });
    expect(await api(retry).flakyPut(key(), 1, { a: 1 })).toEqual({ calls: 2 });
  });

  it('a streamed request body is never retried (it cannot be sent twice)', async () => {
    const k = key();
    const p = withCallOptions(api({ retry: { maxRetries: 2 } }), {
      headers: { 'idempotency-key': 'k', 'content-type': 'application/json' },
    });
    await expect(p.flakyPut(k, 1, Readable.from([Buffer.from('{}')]))).rejects.toMatchObject({ status: 503 });
    expect(calls.get(k)).toBe(1);
  });

  it('the size cap: a declared length, a chunked body and a streamed download past it fail; within it pass', async () => {
    const p = api({ maxResponseBytes: 1000 });
    await expect(p.big(5000)).rejects.toMatchObject({ code: 'CLIENT_RESPONSE_TOO_LARGE' });
    await expect(p.big(5000, true)).rejects.toMatchObject({ code: 'CLIENT_RESPONSE_TOO_LARGE' });
    expect(await p.big(100)).toEqual({ pad: 'x'.repeat(100) });
    const stream = await p.bigStream(5000, true);
    const read = (async () => {
      for await (const _ of stream);
    })();
    await expect(read).rejects.toMatchObject({ code: 'CLIENT_RESPONSE_TOO_LARGE' });
    expect(await withCallOptions(p, { maxResponseBytes: 10_000 }).big(5000)).toEqual({ pad: 'x'.repeat(5000) });
  });

  it("the caller's AbortSignal: an aborted signal sends nothing, an abort mid-call rejects with its reason, never mapped", async () => {
    class MapEverything implements ClientFailureMapper {
      mapFailure(): Error {
        return new Error('mapped');
      }
    }
    const p = api({ providers: [new MapEverything()] });
    const k = key();
    const reason = new Error('caller gave up');
    await expect(withCallOptions(p, { signal: AbortSignal.abort(reason) }).flaky(k, 0)).rejects.toBe(reason);
    expect(calls.get(k)).toBeUndefined();
    const controller = new AbortController();
    const before = started.length;
    const pending = withCallOptions(p, { signal: controller.signal }).hang();
    await expect.poll(() => started.length, { timeout: 5000 }).toBe(before + 1);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('after close(), calls fail with CLIENT_CLOSED', async () => {
    const c = suite.client();
    const p = c.proxy(PolicyContract);
    await c.close();
    const err = await p.flaky(key(), 0).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientProcessingError);
    expect(err).toMatchObject({ code: 'CLIENT_CLOSED' });
  });

  it("headers propagated from the server request a call is made for (withCallOptions; the @Context() parameter is not the client's)", async () => {
    const p = api({
      propagate: ['X-Request-Id', 'traceparent', (req) => ({ 'x-tenant': req.getHeader('x-tenant-source') })],
    });
    const incoming = createRequestContext({ headers: { 'x-request-id': 'r-1', traceparent: '00-abc-def-01', 'x-tenant-source': 'acme' } });
    const expected = { 'x-request-id': 'r-1', traceparent: '00-abc-def-01', 'x-tenant': 'acme' };
    expect(await withCallOptions(p, { request: incoming }).headers()).toEqual(expected);
    expect(await p.headers()).toEqual({ 'x-request-id': null, traceparent: null, 'x-tenant': null });
  });

  it('diagnostics: start and finish of every call, with status, duration and the error', async () => {
    const seen = await events(() => api({ headersTimeout: 100 }).hang());
    expect(seen.map(([n]) => n)).toEqual(['start', 'finish']);
    const finish = seen[1]![1];
    expect(finish.status).toBeUndefined();
    expect(finish.error).toBeInstanceOf(ClientTimeoutError);
    expect(typeof finish.durationMs).toBe('number');
    expect((finish.request as { method: string }).method).toBe('GET');
  });
});

describe('client policies over a socket only', () => {
  let raw: Server;
  let base = '';
  const sockets = new Set<Socket>();
  const clients: Client[] = [];
  const client = (options: ConstructorParameters<typeof Client>[0] = {}): Client => {
    const c = new Client({ baseUrl: base, ...options });
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    raw = createServer((req, res) => {
      if (req.url === '/stall') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"a":');
      } else if (req.url === '/huge') {
        // Far more than undici buffers on its own: only reading or dropping it ends the request.
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(8 * 1024 * 1024) });
        res.end(Buffer.alloc(8 * 1024 * 1024, 32));
      } else if (req.url === '/reset') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"a":');
        setImmediate(() => req.socket.destroy());
      } else {
        res.writeHead(404).end();
      }
    });
    raw.on('connection', (s: Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(raw.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    for (const s of sockets) s.destroy();
    await new Promise((r) => raw.close(r));
  });

  it('an unreachable server: CLIENT_UNREACHABLE, retried for GET', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const c = client({ baseUrl: `http://127.0.0.1:${port}`, retry: { maxRetries: 2, baseDelay: 1 } });
    const seen = await events(() => c.target('x').request().get(Object));
    expect(seen.find(([n]) => n === 'finish')![1]).toMatchObject({
      attempts: 3,
      error: expect.objectContaining({ code: 'CLIENT_UNREACHABLE' }),
    });
  });

  it('a body that stalls: the body timeout ends the read', async () => {
    const err = await client({ bodyTimeout: 200 })
      .target('stall')
      .request()
      .get(Object)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientTimeoutError);
    expect(err).toMatchObject({ phase: 'body', code: 'CLIENT_BODY_TIMEOUT' });
  });

  it('a stalled body is also cut by the deadline', async () => {
    await expect(client({ deadline: 200 }).target('stall').request().get(Object)).rejects.toMatchObject({ code: 'CLIENT_DEADLINE' });
  });

  it('a body refused for its size is dropped: the connection is released and close() finishes', async () => {
    const c = new Client({ baseUrl: base, maxResponseBytes: 1000 });
    await expect(c.target('huge').request().get(Object)).rejects.toMatchObject({ code: 'CLIENT_RESPONSE_TOO_LARGE' });
    const r = await c.target('huge').request().get();
    await expect(r.readEntity()).rejects.toMatchObject({ code: 'CLIENT_RESPONSE_TOO_LARGE' });
    await c.close();
  });

  it('a connection reset in the body: CLIENT_CONNECTION_FAILED', async () => {
    await expect(client().target('reset').request().get(Object)).rejects.toMatchObject({ code: 'CLIENT_CONNECTION_FAILED' });
  });

  it('a resource method passes its own request signal: when its client goes away, the call it made is aborted too', async () => {
    const back = new Application({ resources: [PolicyResource] });
    const backUrl = `http://127.0.0.1:${(await back.listen(0)).port}`;
    const backApi = client({ baseUrl: backUrl }).proxy(PolicyContract);
    @Path('/front')
    class Front {
      @GET() call(@Context() signal: AbortSignal): Promise<string> {
        return withCallOptions(backApi, { signal }).hang();
      }
    }
    const front = new Application({ resources: [Front] });
    const frontUrl = `http://127.0.0.1:${(await front.listen(0)).port}`;
    try {
      const [startedBefore, cancelledBefore] = [started.length, cancelled.length];
      const controller = new AbortController();
      const frontClient = client({ baseUrl: frontUrl });
      const pending = frontClient
        .target('front')
        .request()
        .signal(controller.signal)
        .get()
        .catch((e: unknown) => e);
      // The front resource's call reached the back resource, which now waits for its own signal.
      await expect.poll(() => started.length, { timeout: 5000 }).toBe(startedBefore + 1);
      controller.abort(new Error('front client left'));
      await pending;
      await expect.poll(() => cancelled.length, { timeout: 5000 }).toBe(cancelledBefore + 1);
    } finally {
      await front.close(1000);
      await back.close(1000);
    }
  });
});
