/**
 * Example 31, traces through OpenTelemetry (`@jaxrs-node/pipeline/otel`): the shop answers
 * `GET /shop/products/{sku}` by asking the inventory service through a typed client. Both apps
 * register `TracingFeature`, the client `ClientTracing`, so one request is one trace of three spans:
 *
 *   GET /shop/products/{sku}        SERVER, the shop (parent: the caller's traceparent, if any)
 *   └─ GET                          CLIENT, the typed client's call (it sends traceparent)
 *      └─ GET /inventory/{sku}      SERVER, the inventory service
 *
 *   curl -H 'traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' localhost:3000/shop/products/tea
 *   curl -i localhost:3000/shop/products/nothing   → 404 (the inventory's 404, mapped): the client span is ERROR
 *
 * `startTracing` is the operator's part: an SDK with a span exporter, registered globally (a real
 * deployment would use `NodeSDK` and OTLP, see docs/tracing.md); `main.ts` prints the spans.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { Application, GET, NotFoundError, Path, PathParam, Produces } from '@jaxrs-node/pipeline';
import { ClientResponseError, createClient, type ContractClient } from '@jaxrs-node/pipeline/client';
import { ClientTracing, TracingFeature } from '@jaxrs-node/pipeline/otel';

/** Registers an OpenTelemetry SDK that hands every finished span to `exporter`; returns its shutdown. */
export function startTracing(exporter: SpanExporter): () => Promise<void> {
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return async () => {
    await provider.shutdown();
    trace.disable();
    propagation.disable();
    context.disable();
  };
}

export interface Stock {
  sku: string;
  available: number;
}

const STOCK: Record<string, number> = { tea: 12, coffee: 0 };

const contract = (): never => {
  throw new Error('contract method: the resource or the client implements it');
};

/** The inventory service's contract: its resource extends it, the shop's client is made from it. */
@Path('/inventory')
@Produces('application/json')
export abstract class InventoryApi {
  @GET('{sku}') get(@PathParam('sku') _sku: string): Promise<Stock> {
    return contract();
  }
}

class Inventory extends InventoryApi {
  override async get(sku: string): Promise<Stock> {
    const available = STOCK[sku];
    if (available === undefined) throw new NotFoundError(`no product ${sku}`);
    return { sku, available };
  }
}

export function createInventoryApp(): Application {
  return new Application({ resources: [Inventory], providers: [new TracingFeature()] });
}

/** The shop's client of the inventory: `ClientTracing` makes the CLIENT span and sends `traceparent`. */
export function inventoryClient(baseUrl: string): ContractClient<InventoryApi> {
  return createClient(InventoryApi, { baseUrl, deadline: 2_000, providers: [new ClientTracing()] });
}

export function createShopApp(inventory: ContractClient<InventoryApi>): Application {
  @Path('/shop/products')
  @Produces('application/json')
  class Products {
    @GET('{sku}') async get(@PathParam('sku') sku: string): Promise<{ sku: string; inStock: boolean }> {
      // Runs inside the shop's server span: the client's span is its child.
      try {
        const stock = await inventory.get(sku);
        return { sku, inStock: stock.available > 0 };
      } catch (e) {
        if (e instanceof ClientResponseError && e.status === 404) throw new NotFoundError(`no product ${sku}`);
        throw e;
      }
    }
  }
  return new Application({ resources: [Products], providers: [new TracingFeature()] });
}
