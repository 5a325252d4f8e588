/**
 * Traces with the real OpenTelemetry SDK (issue 24): `TracingFeature` makes a SERVER span per
 * request, named `{method} {route}` with the HTTP semantic conventions' attributes, continuing
 * the incoming W3C `traceparent`; the method runs in its context; `ClientTracing` makes a CLIENT
 * span per typed-client call and injects `traceparent`, so a request through two services over
 * real sockets is one trace with the right parent/child ids.
 */
import 'reflect-metadata';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Application, GET, HeaderParam, NotFoundError, Path, PathParam, Response, ServiceUnavailableError } from '../../../src/index.js';
import { Client, ClientResponse, ClientResponseError, clientOf, createClient } from '../../../src/client/index.js';
import { ClientTracing, TracingFeature } from '../../../src/features/otel/index.js';
import { exporter, PARENT_ID, registerSdk, spanNamed, TRACE_ID, TRACEPARENT } from './sdk.js';

class BoomError extends Error {}

const unused = (): never => {
  throw new Error('contract method');
};

/** A downstream service's contract (the typed client is made from it) and its resource. */
@Path('/stock')
abstract class StockContract {
  @GET('{sku}') get(@PathParam('sku') _sku: string): Promise<{ sku: string }> {
    return unused();
  }
}

class Stock extends StockContract {
  override async get(sku: string): Promise<{ sku: string }> {
    if (sku === 'gone') throw new NotFoundError('no such sku');
    return { sku };
  }
}

interface Headers {
  traceparent: string | null;
  tracestate: string | null;
}

/** A downstream service that echoes the trace headers it received. */
@Path('/seen')
abstract class SeenContract {
  @GET() seen(@HeaderParam('traceparent') _tp?: string, @HeaderParam('tracestate') _ts?: string): Promise<Headers> {
    return unused();
  }
}
class Seen extends SeenContract {
  override async seen(tp?: string, ts?: string): Promise<Headers> {
    return { traceparent: tp ?? null, tracestate: ts ?? null };
  }
}

let stockUrl = '';

@Path('/items')
class Items {
  @GET('{id}') get(@PathParam('id') id: string): { id: string } {
    if (id === 'boom') throw new BoomError('exploded');
    if (id === 'busy') throw new ServiceUnavailableError('try later');
    if (id === 'missing') throw new NotFoundError('no such item');
    return { id };
  }

  @GET('{id}/work') async work(@PathParam('id') id: string): Promise<{ id: string }> {
    await new Promise((r) => setImmediate(r));
    trace.getTracer('test').startActiveSpan('work', (span) => span.end());
    return { id };
  }

  @GET('{id}/stock') async stock(@PathParam('id') id: string): Promise<unknown> {
    const client = createClient(SeenContract, { baseUrl: stockUrl, providers: [new ClientTracing()] });
    try {
      return { id, seen: await client.seen() };
    } finally {
      await clientOf(client).close();
    }
  }
}

let unregister: () => void = () => undefined;
beforeAll(() => {
  unregister = registerSdk();
});
afterAll(() => unregister());

const apps: Application[] = [];
const clients: object[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => (c instanceof Client ? c : clientOf(c)).close()));
  await Promise.all(apps.splice(0).map((a) => a.close(1000)));
  exporter.reset();
});

function app(resources: Array<new (...args: never[]) => object>, ...providers: object[]): Application {
  const a = new Application({ resources, providers: [new TracingFeature(), ...providers], logger: () => undefined });
  apps.push(a);
  return a;
}

describe('TracingFeature: the server span', () => {
  it('continues the incoming traceparent, is named by the route and carries the conventions\u2019 attributes (in-process)', async () => {
    const a = app([Items]);
    const res = await a.inject({
      url: '/items/7?x=1&sig=secret',
      headers: { traceparent: TRACEPARENT, tracestate: 'vendor=1', host: 'shop.example:8443', 'user-agent': 'probe/1.0' },
    });
    expect(res.status).toBe(200);
    const span = spanNamed('GET /items/{id}');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(span.parentSpanContext?.isRemote).toBe(true);
    expect(span.spanContext().traceState?.get('vendor')).toBe('1');
    expect(span.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': '/items/{id}',
      'http.response.status_code': 200,
      'url.path': '/items/7',
      'url.query': 'x=1&sig=REDACTED',
      'url.scheme': 'http',
      'server.address': 'shop.example',
      'server.port': 8443,
      'user_agent.original': 'probe/1.0',
      'network.protocol.version': '1.1',
      'client.address': '127.0.0.1',
    });
    expect(span.attributes['error.type']).toBeUndefined();
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.instrumentationScope).toMatchObject({ name: '@jaxrs-node/pipeline', version: '0.1.0' });
  });

  it('starts a new trace without a traceparent, and names an unmatched request by its method alone', async () => {
    const a = app([Items]);
    expect((await a.inject('/nowhere')).status).toBe(404);
    const span = spanNamed('GET');
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.attributes['http.route']).toBeUndefined();
    expect(span.attributes['http.response.status_code']).toBe(404);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('leaves the status of a 4xx unset, and marks a 5xx ERROR with error.type and the exception', async () => {
    const a = app([Items]);
    expect((await a.inject('/items/missing')).status).toBe(404);
    expect((await a.inject('/items/boom')).status).toBe(500);
    expect((await a.inject('/items/busy')).status).toBe(503);
    const [missing, boom, busy] = exporter.getFinishedSpans();
    expect(missing!.status.code).toBe(SpanStatusCode.UNSET);
    expect(missing!.attributes['error.type']).toBeUndefined();
    expect(missing!.events).toEqual([]);
    expect(boom!.status.code).toBe(SpanStatusCode.ERROR);
    expect(boom!.attributes['error.type']).toBe('BoomError');
    expect(boom!.events.map((e) => [e.name, e.attributes?.['exception.message']])).toEqual([['exception', 'exploded']]);
    expect(busy!.status.code).toBe(SpanStatusCode.ERROR);
    expect(busy!.attributes['error.type']).toBe('503');
  });

  it('records an unknown method as _OTHER and names the span HTTP', async () => {
    const a = app([Items]);
    await a.inject({ method: 'PROPFIND', url: '/items/1' });
    const span = exporter.getFinishedSpans()[0]!;
    expect(span.name).toBe('HTTP');
    expect(span.attributes['http.request.method']).toBe('_OTHER');
    expect(span.attributes['http.request.method_original']).toBe('PROPFIND');
  });

  it('runs the method in the span: a span it starts, after an await, is a child (over a real socket)', async () => {
    const a = app([Items]);
    const { port } = await a.listen(0, '127.0.0.1');
    const res = await fetch(`http://127.0.0.1:${port}/items/3/work`, { headers: { traceparent: TRACEPARENT } });
    expect(res.status).toBe(200);
    await expect.poll(() => exporter.getFinishedSpans().length).toBe(2);
    const server = spanNamed('GET /items/{id}/work');
    const work = spanNamed('work');
    expect(work.spanContext().traceId).toBe(TRACE_ID);
    expect(work.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(server.attributes['server.port']).toBe(port);
    expect(server.attributes['client.address']).toBe('127.0.0.1');
  });

  it('refuses a knownMethods entry that is no method name, naming the option', () => {
    expect(() => new TracingFeature({ knownMethods: ['GET', 'BAD METHOD'] })).toThrow(
      /TracingFeature: knownMethods must be HTTP method names/,
    );
  });
});

describe('ClientTracing: client spans and traceparent, one trace across two services over real sockets', () => {
  it('server span -> client span -> downstream server span, with the injected traceparent', async () => {
    const down = app([Seen]);
    const { port: downPort } = await down.listen(0, '127.0.0.1');
    stockUrl = `http://127.0.0.1:${downPort}`;
    const front = app([Items]);
    const { port } = await front.listen(0, '127.0.0.1');
    const res = await fetch(`http://127.0.0.1:${port}/items/9/stock`, { headers: { traceparent: TRACEPARENT, tracestate: 'vendor=1' } });
    const body = (await res.json()) as { seen: { traceparent: string; tracestate: string } };
    await expect.poll(() => exporter.getFinishedSpans().length).toBe(3);
    const frontSpan = spanNamed('GET /items/{id}/stock');
    const client = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.CLIENT)!;
    const downSpan = spanNamed('GET /seen');
    expect(frontSpan.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(client.name).toBe('GET');
    expect(client.parentSpanContext?.spanId).toBe(frontSpan.spanContext().spanId);
    expect(downSpan.parentSpanContext?.spanId).toBe(client.spanContext().spanId);
    for (const s of [frontSpan, client, downSpan]) expect(s.spanContext().traceId).toBe(TRACE_ID);
    expect(body.seen.traceparent).toBe(`00-${TRACE_ID}-${client.spanContext().spanId}-01`);
    expect(body.seen.tracestate).toBe('vendor=1');
    expect(client.attributes).toMatchObject({
      'http.request.method': 'GET',
      'server.address': '127.0.0.1',
      'server.port': downPort,
      'url.full': `http://127.0.0.1:${downPort}/seen`,
      'http.response.status_code': 200,
    });
    expect(client.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('marks a call answered 404 (thrown as ClientResponseError) and a refused connection ERROR, with error.type', async () => {
    const down = app([Stock]);
    const { port } = await down.listen(0, '127.0.0.1');
    const stock = createClient(StockContract, { baseUrl: `http://127.0.0.1:${port}`, providers: [new ClientTracing()] });
    clients.push(stock);
    await expect(stock.get('gone')).rejects.toBeInstanceOf(ClientResponseError);
    // A mapper's own error for the 404: still typed by the status.
    class Gone extends Error {}
    const mapped = createClient(StockContract, {
      baseUrl: `http://127.0.0.1:${port}`,
      providers: [new ClientTracing(), { toError: () => new Gone('gone') }],
    });
    clients.push(mapped);
    await expect(mapped.get('gone')).rejects.toBeInstanceOf(Gone);
    await down.close(1000);
    await expect(stock.get('a')).rejects.toThrow();
    const calls = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);
    expect(calls.map((s) => [s.name, s.attributes['http.response.status_code'], s.attributes['error.type'], s.status.code])).toEqual([
      ['GET', 404, '404', SpanStatusCode.ERROR],
      ['GET', 404, '404', SpanStatusCode.ERROR],
      ['GET', undefined, expect.stringMatching(/^CLIENT_/), SpanStatusCode.ERROR],
    ]);
    // Outside any server request, a call starts its own trace.
    expect(calls[0]!.parentSpanContext).toBeUndefined();
  });

  it('makes one span per call, retries included: every attempt sends the same traceparent', async () => {
    const attempts: string[] = [];
    @Path('/flaky')
    class Flaky {
      @GET() get(@HeaderParam('traceparent') tp: string): Response {
        attempts.push(tp);
        return attempts.length === 1 ? Response.status(503).build() : Response.ok({ ok: true }).build();
      }
    }
    const down = new Application({ resources: [Flaky], logger: () => undefined });
    apps.push(down);
    const { port } = await down.listen(0, '127.0.0.1');
    const client = new Client({
      baseUrl: `http://127.0.0.1:${port}`,
      retry: { maxRetries: 2, baseDelay: 1, maxDelay: 50 },
      providers: [new ClientTracing()],
    });
    clients.push(client);
    const res = (await client.target('/flaky').request().get()) as ClientResponse;
    expect(res.status).toBe(200);
    await res.readEntity();
    expect(attempts).toHaveLength(2);
    const spans = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);
    expect(spans).toHaveLength(1);
    expect(attempts).toEqual([`00-${spans[0]!.spanContext().traceId}-${spans[0]!.spanContext().spanId}-01`, attempts[0]]);
    expect(spans[0]!.attributes['http.response.status_code']).toBe(200);
    expect(spans[0]!.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("makes the span a child of the caller's active span and injects it", async () => {
    const down = app([Seen]);
    const { port } = await down.listen(0, '127.0.0.1');
    const client = createClient(SeenContract, { baseUrl: `http://127.0.0.1:${port}`, providers: [new ClientTracing()] });
    clients.push(client);
    const parent = trace.getTracer('test').startSpan('caller');
    const got = await context.with(trace.setSpan(context.active(), parent), () => client.seen());
    parent.end();
    expect(got.traceparent).toMatch(new RegExp(`^00-${parent.spanContext().traceId}-[0-9a-f]{16}-01$`));
    const clientSpan = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.CLIENT)!;
    expect(clientSpan.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
  });
});
