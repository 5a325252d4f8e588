import 'reflect-metadata';
import {
  Application,
  currentRequest,
  GET,
  jsonLogger,
  LoggingFeature,
  NotFoundError,
  Path,
  PathParam,
  RequestContextFeature,
  RequestIdFeature,
  type LogDestination,
  type Logger,
} from '@jaxrs-node/pipeline';

/** A repository the resource calls without passing the request down: its lines still carry the request's id and route. */
export class OrderRepository {
  private readonly orders = new Map([[1, { id: 1, item: 'book' }]]);

  async find(id: number): Promise<{ id: number; item: string } | undefined> {
    await Promise.resolve(); // as a real store would: the request context survives awaits
    const order = this.orders.get(id);
    currentRequest()?.logger?.info({ orderId: id, found: order !== undefined }, 'order lookup');
    return order;
  }
}

@Path('/orders')
export class OrderResource {
  constructor(private readonly repository: OrderRepository = new OrderRepository()) {}

  @GET()
  @Path('{id}')
  async get(@PathParam('id') id: number): Promise<{ id: number; item: string }> {
    const order = await this.repository.find(id);
    if (order === undefined) throw new NotFoundError(`no order ${id}`);
    return order;
  }

  @GET()
  @Path('{id}/crash')
  crash(): never {
    throw new Error('the warehouse is on fire');
  }
}

/**
 * Request ids (`X-Request-Id` kept when safe, else generated, echoed), a request logger with the
 * id, method and route template, one access line per request, and the request context, all
 * writing JSON lines to `destination` (stdout by default).
 */
export function createApp(options: { destination?: LogDestination; logger?: Logger } = {}): Application {
  const log =
    options.logger ?? jsonLogger({ level: 'info', ...(options.destination === undefined ? {} : { destination: options.destination }) });
  return new Application({
    basePath: '/api',
    resources: [OrderResource],
    log, // the library's own warnings and 5xx causes go here too
    providers: [new RequestIdFeature(), new LoggingFeature({ logger: log }), new RequestContextFeature()],
  });
}
