import 'reflect-metadata';
import { Application, GET, HealthFeature, Path, PUT, QueryParam, type HealthCheck } from '@jaxrs-node/pipeline';

/** The dependency the readiness check watches (a database pool, a message broker...); `PUT /inventory/up` flips it. */
export const inventory = { up: true, latencyMs: 5 };

/** How many `GET /orders/slow` requests are in flight. */
export const orders = { slowInFlight: 0 };

/** Held by `GET /orders/slow` until released, to show a drain. */
let releaseSlow: (() => void) | undefined;
/** Releases the request `GET /orders/slow` holds, if any. */
export function releaseSlowOrder(): void {
  releaseSlow?.();
}

@Path('/orders')
class Orders {
  @GET() list(): unknown[] {
    return [{ id: 1, item: 'book' }];
  }
  /** Answers once {@link releaseSlowOrder} is called, or after `ms` (a long request in flight). */
  @GET('slow') async slow(@QueryParam('ms') ms?: number): Promise<{ done: boolean }> {
    orders.slowInFlight++;
    try {
      await new Promise<void>((resolve) => {
        releaseSlow = resolve;
        setTimeout(resolve, ms ?? 5_000).unref();
      });
    } finally {
      orders.slowInFlight--;
    }
    return { done: true };
  }
}

@Path('/inventory')
class Inventory {
  /** Simulates the dependency going down or coming back: `PUT /inventory/up?value=false`. */
  @PUT('up') set(@QueryParam('value') value: boolean): { up: boolean } {
    inventory.up = value;
    return { up: inventory.up };
  }
}

/** Liveness: only what a restart cures. Here, the process answers and reports its heap. */
const heap: HealthCheck = {
  name: 'heap',
  kind: 'liveness',
  check: () => ({ status: 'UP', data: { heapUsedMiB: Math.round(process.memoryUsage().heapUsed / 2 ** 20) } }),
};

/** Readiness: the dependency answers within 200 ms (the signal fires if it does not). */
const inventoryCheck: HealthCheck = {
  name: 'inventory',
  kind: 'readiness',
  timeoutMs: 200,
  check: async (signal) => {
    await new Promise((resolve) => setTimeout(resolve, inventory.latencyMs));
    if (signal.aborted) return false;
    return inventory.up
      ? { status: 'UP', data: { latencyMs: inventory.latencyMs } }
      : { status: 'DOWN', data: { reason: 'inventory service unreachable' } };
  },
};

/** Orders with liveness, readiness and start-up probes under `/health`. */
export function createApp(): Application {
  return new Application({
    resources: [Orders, Inventory],
    providers: [new HealthFeature({ checks: [heap, inventoryCheck] })],
  });
}
