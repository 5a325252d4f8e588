/**
 * Issue 24, request context: `currentRequest()` (through `AsyncLocalStorage`, opt-in with
 * `RequestContextFeature`) from code the method calls, after awaits and in timers it starts;
 * undefined outside a request and without the feature; the typed client propagates headers from
 * the current request when a call names none. And a pino instance as the logger, its output parsed.
 */
import 'reflect-metadata';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Application,
  Consumes,
  ContainerRequestContext,
  currentRequest,
  GET,
  HeaderParam,
  LoggingFeature,
  Path,
  POST,
  PreMatching,
  RequestContextFeature,
  RequestIdFeature,
  SecurityContext,
  type ContainerRequestFilter,
  type Logger,
} from '../../src/index.js';
import { Client } from '../../src/client/index.js';

/** A service the method calls without passing the request down. */
class Audit {
  async describe(): Promise<Record<string, unknown>> {
    await new Promise((r) => setImmediate(r));
    const now = currentRequest();
    const timer = await new Promise<string | undefined>((resolve) => setTimeout(() => resolve(currentRequest()?.id), 1));
    now?.logger?.info({ from: 'service' }, 'audited');
    return { id: now?.id, route: now?.route, principal: now?.principal?.name, timer, method: now?.ctx.method };
  }
}
const audit = new Audit();

@PreMatching()
class Authenticate implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    ctx.securityContext = SecurityContext.of({ name: 'ada' });
  }
}

@Path('/downstream')
abstract class DownstreamContract {
  @GET() echo(): Promise<{ id: string | null }> {
    throw new Error('contract');
  }
}

@Path('/downstream')
class Downstream {
  @GET() echo(@HeaderParam('x-request-id') id?: string): { id: string | null } {
    return { id: id ?? null };
  }
}

let client: Client | undefined;

@Path('/orders')
class Orders {
  @GET()
  @Path('/{id}')
  get(): Promise<Record<string, unknown>> {
    return audit.describe();
  }

  /** Reads the current request synchronously, in the method a JSON body leads to. */
  @POST()
  @Consumes('application/json')
  create(body: { item: string }): Record<string, unknown> {
    return { item: body.item, id: currentRequest()?.id ?? null };
  }

  @GET()
  @Path('/{id}/downstream')
  async downstream(): Promise<{ id: string | null }> {
    return client!.proxy(DownstreamContract).echo();
  }
}

/** Writes to an array: pino's destination. */
function sink(): { stream: Writable; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString('utf8').split('\n')) if (l !== '') lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { stream, lines };
}

const apps: Application[] = [];
afterEach(async () => {
  await client?.close();
  client = undefined;
  await Promise.all(apps.splice(0).map((a) => a.close(1000)));
});

describe('RequestContextFeature', () => {
  it('currentRequest() from a service, after awaits and in a timer: id, route, principal, logger (pino, as it is)', async () => {
    const { stream, lines } = sink();
    const log: Logger = pino({ level: 'info' }, stream);
    const a = new Application({
      basePath: '/api',
      resources: [Orders],
      log,
      providers: [Authenticate, new RequestIdFeature(), new LoggingFeature({ logger: log }), new RequestContextFeature()],
    });
    apps.push(a);
    const { port } = await a.listen(0);
    const res = await fetch(`http://127.0.0.1:${port}/api/orders/5`, { headers: { 'x-request-id': 'o-5' } });
    expect(await res.json()).toEqual({ id: 'o-5', route: '/api/orders/{id}', principal: 'ada', timer: 'o-5', method: 'GET' });
    await new Promise((r) => setImmediate(r));
    const audited = lines.find((l) => l.msg === 'audited');
    expect(audited).toMatchObject({ level: 30, reqId: 'o-5', method: 'GET', route: '/api/orders/{id}', from: 'service' });
    expect(lines.find((l) => l.msg === 'request completed')).toMatchObject({ reqId: 'o-5', status: 200, route: '/api/orders/{id}' });
    // Outside a request: nothing.
    expect(currentRequest()).toBeUndefined();
  });

  it('a method reached through a JSON body runs in the request scope, over a socket and in-process', async () => {
    const a = new Application({ resources: [Orders], providers: [new RequestIdFeature(), new RequestContextFeature()] });
    apps.push(a);
    const { port } = await a.listen(0);
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': `post-${i}` },
        body: JSON.stringify({ item: `n${i}` }),
      });
      expect(await res.json()).toEqual({ item: `n${i}`, id: `post-${i}` });
    }
    const res = await a.inject({
      method: 'POST',
      url: '/orders',
      headers: { 'content-type': 'application/json', 'x-request-id': 'inj' },
      body: '{"item":"i"}',
    });
    expect(res.json()).toEqual({ item: 'i', id: 'inj' });
  });

  it('without the feature, currentRequest() is undefined inside a request too', async () => {
    const a = new Application({ resources: [Orders], providers: [new RequestIdFeature()] });
    apps.push(a);
    expect((await a.inject({ url: '/orders/1', headers: { 'x-request-id': 'x' } })).json()).toStrictEqual({});
  });

  it('the typed client propagates X-Request-Id from the current request when the call names none', async () => {
    const down = new Application({ resources: [Downstream] });
    apps.push(down);
    const { port: downPort } = await down.listen(0);
    client = new Client({ baseUrl: `http://127.0.0.1:${downPort}`, propagate: ['x-request-id'] });
    const a = new Application({ resources: [Orders], providers: [new RequestIdFeature(), new RequestContextFeature()] });
    apps.push(a);
    const { port } = await a.listen(0);
    const res = await fetch(`http://127.0.0.1:${port}/orders/1/downstream`, { headers: { 'x-request-id': 'prop-1' } });
    expect(await res.json()).toEqual({ id: 'prop-1' });
    // Outside a request the client sends none.
    expect(await client.proxy(DownstreamContract).echo()).toEqual({ id: null });
  });
});
