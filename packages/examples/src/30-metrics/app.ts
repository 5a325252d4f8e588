/**
 * Example 30, metrics: HTTP server metrics by route template (OpenTelemetry's HTTP semantic
 * conventions) and an application counter, in one `MetricsRegistry`, served in the Prometheus
 * text format at `/api/metrics` (main.ts also serves them on a listener of their own).
 *
 *   GET  /api/orders/1   → {"id":1,"item":"tea"}
 *   POST /api/orders     {"item":"cake"} → 201 {"id":3,"item":"cake"}
 *   GET  /api/metrics    → http_server_request_duration_seconds_bucket{...,http_route="/api/orders/{id}",...} ...
 */
import {
  Application,
  Entity,
  GET,
  HttpMetricsFeature,
  metricsResource,
  MetricsRegistry,
  NotFoundError,
  Path,
  PathParam,
  POST,
  Response,
  type MetricsCounter,
} from '@jaxrs-node/pipeline';

export interface Order {
  readonly id: number;
  readonly item: string;
}

/** Orders in memory, and an application counter beside the HTTP metrics. */
export function ordersResource(ordersCreated: MetricsCounter): new () => object {
  const orders = new Map<number, Order>([
    [1, { id: 1, item: 'tea' }],
    [2, { id: 2, item: 'scone' }],
  ]);
  @Path('/orders')
  class OrdersResource {
    @GET()
    @Path('/{id}')
    get(@PathParam('id') id: number): Order {
      const order = orders.get(id);
      if (order === undefined) throw new NotFoundError(`no order ${id}`);
      return order;
    }

    @POST()
    create(@Entity() body: { item: string }): Response {
      const order = { id: orders.size + 1, item: String(body.item) };
      orders.set(order.id, order);
      // Attributes of low cardinality only: the kind of item, never the order id.
      ordersCreated.add(1, { 'order.item': order.item });
      return Response.status(201).entity(order).build();
    }
  }
  return OrdersResource;
}

/** The application under `/api`, recording into `registry` and serving it at `/api/metrics`. */
export function createApp(registry: MetricsRegistry = new MetricsRegistry()): Application {
  const ordersCreated = registry.createCounter('shop.orders.created', { description: 'Orders created.', unit: '{order}' });
  return new Application({
    basePath: '/api',
    resources: [ordersResource(ordersCreated), metricsResource(registry)],
    providers: [new HttpMetricsFeature({ meter: registry })],
  });
}
