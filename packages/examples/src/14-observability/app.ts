/**
 * Example 14, observability: watching the pipeline without paying for it when nobody watches.
 *
 * - `metrics.ts` subscribes to the pipeline's `node:diagnostics_channel` events and keeps
 *   per-route counters, served by `GET /api/metrics`; without a subscriber the pipeline publishes
 *   nothing (one property read per phase).
 * - `new Application({ tracing: true })` lists, in order, every component that ran for a request
 *   in `X-Pipeline-Trace` (filters, interceptors, reader, validation, method, mapper, writer).
 *
 *   curl -si localhost:3000/api/orders/1 | grep -i x-pipeline-trace
 *   x-pipeline-trace: request-filter:RequestIdFilter, method:OrdersResource.get,
 *                     response-filter:ResponseHeadersFilter, writer:JsonWriter
 *   curl -si localhost:3000/api/orders/1/fail | grep -i x-pipeline-trace      → 402, mapper:PaymentDeclinedMapper
 *   curl -si -H 'content-type: application/json' -d '{"item":"tea","quantity":2}' localhost:3000/api/orders
 *   curl -s localhost:3000/api/metrics
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { container as rootContainer, injectable } from 'tsyringe';
import {
  Application,
  GET,
  IsInt,
  MapsError,
  Min,
  NotBlank,
  NotFoundError,
  Path,
  PathParam,
  POST,
  Response,
  type ContainerRequestContext,
  type ContainerRequestFilter,
  type ContainerResponseContext,
  type ContainerResponseFilter,
  type ExceptionMapper,
} from '@jaxrs-node/pipeline';
import { PipelineMetrics, type MetricsSnapshot } from './metrics.js';

export * from './metrics.js';

/** A domain error: the resource knows nothing about HTTP statuses. */
export class PaymentDeclinedError extends Error {
  override readonly name = 'PaymentDeclinedError';
  constructor(readonly orderId: number) {
    super(`payment for order ${orderId} was declined`);
  }
}

/** Maps {@link PaymentDeclinedError} to 402; shows up in the trace as `mapper:PaymentDeclinedMapper`. */
@MapsError(PaymentDeclinedError)
export class PaymentDeclinedMapper implements ExceptionMapper<PaymentDeclinedError> {
  toResponse(error: PaymentDeclinedError): Response {
    return Response.status(402).entity({ error: 'payment_declined', orderId: error.orderId }).build();
  }
}

const REQUEST_ID = 'example.requestId';
// A caller's id is echoed only when it is short and plain: it ends up in headers and logs.
const SAFE_ID = /^[\w.-]{1,64}$/;

/** Takes the caller's `X-Request-Id` or makes one, so a response can be matched to its logs. */
export class RequestIdFilter implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    const given = ctx.getHeader('x-request-id');
    ctx.setProperty(REQUEST_ID, given !== undefined && SAFE_ID.test(given) ? given : randomUUID());
  }
}

/**
 * Echoes the request id and forbids caching (metrics and traces describe one moment). Global, so
 * it also runs for a 404 with no route; the request id is then missing, since post-matching
 * request filters did not run.
 */
export class ResponseHeadersFilter implements ContainerResponseFilter {
  filterResponse(req: ContainerRequestContext, res: ContainerResponseContext): void {
    const id = req.getProperty(REQUEST_ID);
    if (typeof id === 'string') res.setHeader('x-request-id', id);
    res.setHeader('cache-control', 'no-store');
  }
}

/** The body of `POST /api/orders`; its constraints make `validation` appear in the trace. */
export class NewOrder {
  @NotBlank() item!: string;
  @IsInt() @Min(1) quantity!: number;
}

interface Order {
  id: number;
  item: string;
  quantity: number;
}

@Path('/api/orders')
export class OrdersResource {
  private readonly orders = new Map<number, Order>([[1, { id: 1, item: 'coffee', quantity: 3 }]]);

  @GET('{id}')
  get(@PathParam('id') id: number): Order {
    const order = this.orders.get(id);
    if (order === undefined) throw new NotFoundError(`order ${id}`);
    return order;
  }

  /** Fails on purpose: a domain error the mapper turns into a 402. */
  @GET('{id}/fail')
  fail(@PathParam('id') id: number): never {
    throw new PaymentDeclinedError(id);
  }

  /** Reads a body, so the trace also shows the reader and validation. */
  @POST()
  create(body: NewOrder): Response {
    const order = { id: this.orders.size + 1, item: body.item, quantity: body.quantity };
    this.orders.set(order.id, order);
    return Response.created(`/api/orders/${order.id}`).entity(order).build();
  }
}

/** Serves the counters; the metrics object is injected by the container. */
@injectable()
@Path('/api/metrics')
export class MetricsResource {
  constructor(private readonly metrics: PipelineMetrics) {}

  /** This request is still in flight while it answers: it counts in `inFlight`, not yet in `routes`. */
  @GET()
  get(): MetricsSnapshot {
    return this.metrics.snapshot();
  }
}

/** Options of {@link createApp}. */
export interface ObservabilityOptions {
  /**
   * Where counters go. Required: a `PipelineMetrics` subscribes to process-wide channels until
   * `close()`, so whoever creates it owns it (main.ts for the process, each test for itself).
   */
  metrics: PipelineMetrics;
  /**
   * Default true for the demo. Turn it off in production: tracing costs an array per request,
   * and the header tells every client the class names of your providers.
   */
  tracing?: boolean;
}

/** The application: orders, metrics, two filters and a mapper, traced. */
export function createApp(options: ObservabilityOptions): Application {
  const container = rootContainer.createChildContainer();
  container.registerInstance(PipelineMetrics, options.metrics);
  return new Application({
    container,
    resources: [OrdersResource, MetricsResource],
    providers: [RequestIdFilter, ResponseHeadersFilter, PaymentDeclinedMapper],
    tracing: options.tracing ?? true,
  });
}
