import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { clientOf } from '@jaxrs-node/pipeline/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createInventoryApp, createShopApp, inventoryClient, startTracing } from '../src/31-tracing/app.js';
import { listen, send, type Running } from './helpers/http.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER = '00f067aa0ba902b7';

describe('31 tracing: one request through two services over real sockets is one trace', () => {
  const exporter = new InMemorySpanExporter();
  let stopTracing: () => Promise<void>;
  let inventory: Running;
  let shop: Running;
  let client: ReturnType<typeof inventoryClient>;
  beforeAll(async () => {
    stopTracing = startTracing(exporter);
    inventory = await listen(createInventoryApp());
    client = inventoryClient(inventory.url);
    shop = await listen(createShopApp(client));
  });
  afterEach(() => exporter.reset());
  afterAll(async () => {
    await shop?.close();
    await inventory?.close();
    await clientOf(client).close();
    await stopTracing?.();
  });

  it('shop server span -> client span -> inventory server span, continuing the caller\u2019s traceparent', async () => {
    const r = await send(shop.url, '/shop/products/tea', { headers: { traceparent: `00-${TRACE_ID}-${CALLER}-01` } });
    expect(r.json()).toEqual({ sku: 'tea', inStock: true });
    await expect.poll(() => exporter.getFinishedSpans().length).toBe(3);
    const spans = exporter.getFinishedSpans();
    const byName = (name: string) => spans.find((s) => s.name === name)!;
    const shopSpan = byName('GET /shop/products/{sku}');
    const call = byName('GET');
    const inventorySpan = byName('GET /inventory/{sku}');
    expect([shopSpan.kind, call.kind, inventorySpan.kind]).toEqual([SpanKind.SERVER, SpanKind.CLIENT, SpanKind.SERVER]);
    expect(spans.every((s) => s.spanContext().traceId === TRACE_ID)).toBe(true);
    expect(shopSpan.parentSpanContext?.spanId).toBe(CALLER);
    expect(call.parentSpanContext?.spanId).toBe(shopSpan.spanContext().spanId);
    expect(inventorySpan.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(shopSpan.attributes['http.route']).toBe('/shop/products/{sku}');
    expect(call.attributes['url.full']).toBe(`${inventory.url}/inventory/tea`);
  });

  it("an inventory 404: the client span is ERROR (error.type 404), the shop's server span answering 404 is not (4xx)", async () => {
    const r = await send(shop.url, '/shop/products/nothing');
    expect(r.status).toBe(404);
    await expect.poll(() => exporter.getFinishedSpans().length).toBe(3);
    const call = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.CLIENT)!;
    expect(call.attributes['error.type']).toBe('404');
    expect(call.attributes['http.response.status_code']).toBe(404);
    expect(call.status.code).toBe(SpanStatusCode.ERROR);
    const shopSpan = exporter.getFinishedSpans().find((s) => s.name === 'GET /shop/products/{sku}')!;
    expect(shopSpan.status.code).toBe(SpanStatusCode.UNSET);
    expect(shopSpan.attributes['http.response.status_code']).toBe(404);
  });
});
