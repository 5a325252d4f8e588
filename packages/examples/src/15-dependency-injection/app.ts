/**
 * Example 15, dependency injection: resources and providers get their services through their
 * constructors, from a tsyringe container the application is given.
 *
 *   curl -i localhost:3000/api/products/tea                  # a quote; X-Served-At from the same Clock
 *   curl -X POST localhost:3000/api/products/tea/reservations # the next quote shows one less in stock
 *   curl localhost:3000/api/scope/singleton                  # same instance every time, handled 1, 2, 3...
 *   curl localhost:3000/api/scope/request                    # a new instance every time, handled always 1
 *
 * - services are `@injectable()` classes, registered as singletons of ONE child container per
 *   application (`registerServices`), so two applications in one process share nothing;
 * - the container is passed with `new Application({ container })`: resources and providers are
 *   resolved from it, so a test registers a substitute (a fixed `Clock`) before `createApp`;
 * - resources are singletons by default; `@RequestScoped()` builds one per request.
 */
import 'reflect-metadata';
import { container as rootContainer, injectable, type DependencyContainer } from 'tsyringe';
import {
  Application,
  ConflictError,
  GET,
  NotFoundError,
  Path,
  PathParam,
  POST,
  RequestScoped,
  type Constructor,
  type ContainerRequestContext,
  type ContainerResponseContext,
  type ContainerResponseFilter,
} from '@jaxrs-node/pipeline';
import { Clock, InstanceCounter, InventoryRepository, PriceService, registerServices, type Quote } from './services.js';

/**
 * A provider with a dependency: providers are resolved once, when the application is built, so
 * the clock is injected once and then shared by every request (it holds no per-request state).
 */
@injectable()
export class ServedAtFilter implements ContainerResponseFilter {
  constructor(private readonly clock: Clock) {}

  filterResponse(_req: ContainerRequestContext, res: ContainerResponseContext): void {
    res.setHeader('x-served-at', this.clock.now().toISOString());
  }
}

/** A singleton resource (the default) with two services injected. */
@injectable()
@Path('/api/products')
export class ProductResource {
  constructor(
    private readonly prices: PriceService,
    private readonly inventory: InventoryRepository,
  ) {}

  @GET('{sku}')
  quote(@PathParam('sku') sku: string): Quote {
    const quote = this.prices.quote(sku);
    if (quote === undefined) throw new NotFoundError(`no product ${sku}`);
    return quote;
  }

  /** Takes one unit: the repository is the SAME instance `PriceService` reads from. */
  @POST('{sku}/reservations')
  reserve(@PathParam('sku') sku: string): { sku: string; inStock: number } {
    const product = this.inventory.reserveOne(sku);
    if (product === undefined) throw new NotFoundError(`no product ${sku}`);
    if (product === false) throw new ConflictError(`${sku} is out of stock`);
    return { sku, inStock: product.stock };
  }
}

/** What the two scope resources answer: which instance ran, and how many requests it handled. */
export interface InstanceReport {
  scope: 'singleton' | 'request';
  instance: number;
  handled: number;
}

/**
 * The default lifecycle: built once at `build()`, then shared by every request, concurrent ones
 * included. That is why the default: a per-request instance means resolving the class and its
 * constructor dependencies on every request, a cost paid on the hot path for nothing when the
 * resource keeps no per-request state (this counter is shared on purpose, to make that visible).
 */
@injectable()
@Path('/api/scope/singleton')
export class SingletonScopeResource {
  private readonly instance: number;
  private handled = 0;

  constructor(counter: InstanceCounter) {
    this.instance = counter.next();
  }

  @GET()
  get(): InstanceReport {
    return { scope: 'singleton', instance: this.instance, handled: ++this.handled };
  }
}

/**
 * JAX-RS's default lifecycle, opted into: a new instance per request, so fields are per-request
 * state. Its dependencies still come from the container, so `InstanceCounter` is the shared one.
 * (`new Application({ resourceScope: 'request' })` makes this the default for every resource.)
 */
@RequestScoped()
@injectable()
@Path('/api/scope/request')
export class RequestScopeResource {
  private readonly instance: number;
  private handled = 0;

  constructor(counter: InstanceCounter) {
    this.instance = counter.next();
  }

  @GET()
  get(): InstanceReport {
    return { scope: 'request', instance: this.instance, handled: ++this.handled };
  }
}

/** The example's resource classes. */
export const RESOURCES: readonly Constructor<object>[] = [ProductResource, SingletonScopeResource, RequestScopeResource];
/** The example's provider classes. */
export const PROVIDERS: readonly Constructor<object>[] = [ServedAtFilter];

/**
 * The application, on `container` (default: a fresh child of tsyringe's root container). Register
 * substitutes in that container itself before calling this; the services not registered in it get
 * defaults of its own, even those a parent container registered ({@link registerServices}).
 * @example
 * const container = rootContainer.createChildContainer();
 * container.register(Clock, { useValue: { now: () => new Date('2030-01-01T17:00:00Z') } });
 * const app = createApp(container);
 */
export function createApp(container: DependencyContainer = rootContainer.createChildContainer()): Application {
  // A child, not the root container itself: what one application registers stays in its child.
  return new Application({ container: registerServices(container), resources: [...RESOURCES], providers: [...PROVIDERS] });
}
