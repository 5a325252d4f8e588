/**
 * `TracingFeature` beside Node's HTTP instrumentation (`@opentelemetry/instrumentation-http`),
 * as an operator's `NodeSDK` with auto-instrumentations sets it up: the instrumentation makes the
 * SERVER span (it patches `http.Server.prototype.emit`), and the feature must not make a second;
 * it names that span `{method} {route}` and sets `http.route`, for plain and streamed answers, and
 * the method's spans are its children.
 *
 * The instrumentation patches `node:http` when the module is next required (require-in-the-middle):
 * vitest loaded it long before, so the test requires it once after registering; the patch is on
 * the shared `Server.prototype`, which the server that `listen()` creates uses. Unpatched at the end.
 */
import 'reflect-metadata';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Application, Consumes, GET, Path, PathParam, POST } from '../../../src/index.js';
import { clientOf, createClient } from '../../../src/client/index.js';
import { ClientTracing, TracingFeature } from '../../../src/features/otel/index.js';
import { exporter, PARENT_ID, provider, registerSdk, TRACE_ID, TRACEPARENT } from './sdk.js';

@Path('/orders')
class Orders {
  @GET('{id}') async get(@PathParam('id') id: string): Promise<{ id: string }> {
    await new Promise((r) => setImmediate(r));
    trace.getTracer('test').startActiveSpan('load order', (span) => span.end());
    return { id };
  }

  @GET('{id}/broken') broken(): never {
    throw new TypeError('no order store');
  }

  @GET('{id}/lines') lines(): Readable {
    return Readable.from(['a\n', 'b\n']);
  }
}

/** A JSON body, then a span started synchronously in the method. */
@Path('/carts')
class Carts {
  @POST() @Consumes('application/json') add(item: { sku: string }): { sku: string } {
    trace.getTracer('test').startActiveSpan('add item', (span) => span.end());
    return { sku: item.sku };
  }
}

const contract = (): never => {
  throw new Error('contract method');
};

/** A second application, called in-process (no socket, so no instrumentation span of its own). */
@Path('/prices')
abstract class PricesApi {
  @GET('{id}') get(@PathParam('id') _id: string): Promise<{ price: number }> {
    return contract();
  }
}
class Prices extends PricesApi {
  override async get(): Promise<{ price: number }> {
    return { price: 3 };
  }
}
const pricing = new Application({ resources: [Prices], providers: [new TracingFeature()], logger: () => undefined });
const prices = createClient(PricesApi, { application: pricing, providers: [new ClientTracing()] });

@Path('/quotes')
class Quotes {
  @GET('{id}') async get(@PathParam('id') id: string): Promise<{ price: number }> {
    return prices.get(id);
  }
}

let unregister: () => void = () => undefined;
let unpatch: () => void = () => undefined;
beforeAll(() => {
  unregister = registerSdk();
  unpatch = registerInstrumentations({ tracerProvider: provider, instrumentations: [new HttpInstrumentation()] });
  createRequire(import.meta.url)('node:http');
});
afterAll(async () => {
  await clientOf(prices).close();
  await pricing.close(1000);
  unpatch();
  unregister();
});

let app: Application | undefined;
afterEach(async () => {
  await app?.close(1000);
  exporter.reset();
});

async function serve(): Promise<number> {
  app = new Application({ resources: [Orders, Quotes], providers: [new TracingFeature()], logger: () => undefined });
  return (await app.listen(0, '127.0.0.1')).port;
}

describe('TracingFeature with @opentelemetry/instrumentation-http', () => {
  it('the instrumentation is really in place (http.Server.prototype.emit is wrapped)', () => {
    const http = createRequire(import.meta.url)('node:http') as { Server: { prototype: { emit: { __wrapped?: boolean } } } };
    expect(http.Server.prototype.emit.__wrapped).toBe(true);
  });

  it("names the instrumentation's server span by the route and starts no second one", async () => {
    const port = await serve();
    const res = await fetch(`http://127.0.0.1:${port}/orders/12`, { headers: { traceparent: TRACEPARENT } });
    expect(await res.json()).toEqual({ id: '12' });
    await expect.poll(() => exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER).length).toBe(1);
    const servers = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER);
    expect(servers).toHaveLength(1);
    const server = servers[0]!;
    expect(server.instrumentationScope.name).toBe('@opentelemetry/instrumentation-http');
    expect(server.name).toBe('GET /orders/{id}');
    expect(server.attributes['http.route']).toBe('/orders/{id}');
    expect(server.attributes['http.response.status_code']).toBe(200);
    expect(server.spanContext().traceId).toBe(TRACE_ID);
    expect(server.parentSpanContext?.spanId).toBe(PARENT_ID);
    const child = exporter.getFinishedSpans().find((s) => s.name === 'load order')!;
    expect(child.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
  });

  it("a method reached through a JSON body runs in the instrumentation's context, without the feature too", async () => {
    for (const providers of [[], [new TracingFeature()]]) {
      app = new Application({ resources: [Carts], providers, logger: () => undefined });
      const { port } = await app.listen(0, '127.0.0.1');
      const res = await fetch(`http://127.0.0.1:${port}/carts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', traceparent: TRACEPARENT },
        body: '{"sku":"a-1"}',
      });
      expect(await res.json()).toEqual({ sku: 'a-1' });
      await expect.poll(() => exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER).length).toBe(1);
      const server = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER)!;
      const child = exporter.getFinishedSpans().find((s) => s.name === 'add item')!;
      expect(child.parentSpanContext?.spanId, `${providers.length} providers`).toBe(server.spanContext().spanId);
      await app.close(1000);
      app = undefined;
      exporter.reset();
    }
  });

  it('names it before the response finishes, for a streamed answer too', async () => {
    const port = await serve();
    const res = await fetch(`http://127.0.0.1:${port}/orders/3/lines`);
    expect(await res.text()).toBe('a\nb\n');
    await expect.poll(() => exporter.getFinishedSpans().length).toBe(1);
    const [server] = exporter.getFinishedSpans();
    expect(server!.name).toBe('GET /orders/{id}/lines');
    expect(server!.attributes['http.route']).toBe('/orders/{id}/lines');
  });

  it("adds the exception behind a 5xx to the instrumentation's span", async () => {
    const port = await serve();
    expect((await fetch(`http://127.0.0.1:${port}/orders/1/broken`)).status).toBe(500);
    await expect.poll(() => exporter.getFinishedSpans().length).toBe(1);
    const [server] = exporter.getFinishedSpans();
    expect(server!.name).toBe('GET /orders/{id}/broken');
    expect(server!.status.code).toBe(SpanStatusCode.ERROR);
    expect(server!.attributes['error.type']).toBe('TypeError');
    expect(server!.events.map((e) => e.attributes?.['exception.message'])).toEqual(['no order store']);
  });

  it('leaves an unmatched request named by its method', async () => {
    const port = await serve();
    expect((await fetch(`http://127.0.0.1:${port}/nowhere`)).status).toBe(404);
    await expect.poll(() => exporter.getFinishedSpans().length).toBe(1);
    const [server] = exporter.getFinishedSpans();
    expect(server!.name).toBe('GET');
    expect(server!.attributes['http.route']).toBeUndefined();
  });

  it('an in-process call from inside the request gets its own server span; the instrumented one keeps its route', async () => {
    const port = await serve();
    const res = await fetch(`http://127.0.0.1:${port}/quotes/5`);
    expect(await res.json()).toEqual({ price: 3 });
    await expect.poll(() => exporter.getFinishedSpans().length).toBe(3);
    const spans = exporter.getFinishedSpans();
    const outer = spans.find((s) => s.name === 'GET /quotes/{id}')!;
    const call = spans.find((s) => s.kind === SpanKind.CLIENT)!;
    const inner = spans.find((s) => s.name === 'GET /prices/{id}')!;
    expect(outer.instrumentationScope.name).toBe('@opentelemetry/instrumentation-http');
    expect(outer.attributes['http.route']).toBe('/quotes/{id}');
    expect(call.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
    expect(inner.instrumentationScope.name).toBe('@jaxrs-node/pipeline');
    expect(inner.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
  });
});
