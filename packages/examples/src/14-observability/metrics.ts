/**
 * Per-route metrics and an optional access log, fed by the pipeline's `node:diagnostics_channel`
 * events. Nothing here is registered with the application: the pipeline publishes an event only
 * while its channel has a subscriber (one property read otherwise), so an application nobody
 * observes pays nothing, and observing it needs no change to its resources or providers.
 *
 * Channels are process-wide: one subscriber sees the requests of EVERY `Application` in the
 * process. Create one `PipelineMetrics` per process (or per test) and `close()` it when done.
 */
import diagnostics_channel from 'node:diagnostics_channel';
import { CHANNEL_NAMES, type ContainerRequestContext, type ResourceInfo } from '@jaxrs-node/pipeline';

/** The counters of one route (one resource method), as `GET /api/metrics` shows them. */
export interface RouteStats {
  /** Finished requests. */
  count: number;
  /** Finished requests by status class: `{ "2xx": 3, "4xx": 1 }` (only classes seen). */
  statuses: Record<string, number>;
  /** Sum and maximum of `durationMs` (pipeline start to last byte handed to the socket). */
  totalMs: number;
  maxMs: number;
  /** Time spent inside the resource method itself (`method:start` to `method:end`). */
  methodMs: number;
  /** Resource method calls that threw or rejected. */
  methodFailures: number;
  /** Errors that reached the error path (a filter, matching or the method threw). */
  errors: number;
  /** Errors turned into responses, by `"<error name> <status>"`, e.g. `"NotFoundError 404": 2`. */
  mapped: Record<string, number>;
}

/** Everything {@link PipelineMetrics.snapshot} returns. */
export interface MetricsSnapshot {
  /** Requests started and not yet finished (includes the request asking for the snapshot). */
  inFlight: number;
  /** By route template (`GET /api/orders/{id}`); requests that matched no method under {@link NO_ROUTE}. */
  routes: Record<string, RouteStats>;
}

/** The key of requests that matched no resource method (404, 405, 415, 406, a pre-matching abort). */
export const NO_ROUTE = '(no route)';

interface Message {
  request: ContainerRequestContext;
  resourceInfo?: ResourceInfo;
  error?: unknown;
  status?: number;
  durationMs?: number;
}

/**
 * Subscribes on construction; {@link close} unsubscribes (tests must, or their subscribers would
 * keep counting the next test's requests).
 * @example
 * const metrics = new PipelineMetrics({ accessLog: console.log });
 * metrics.snapshot().routes['GET /api/orders/{id}']?.count;
 * metrics.close();
 */
export class PipelineMetrics {
  private readonly routes = new Map<string, RouteStats>();
  // Per-request state lives in a WeakMap keyed by the request, never on the request itself: the
  // request belongs to the application, and a WeakMap cannot leak when a request is abandoned.
  private readonly methodStarted = new WeakMap<object, number>();
  private inFlight = 0;
  private readonly accessLog: ((line: string) => void) | undefined;
  private readonly handlers: [string, (message: unknown) => void][];

  constructor(options: { accessLog?: (line: string) => void } = {}) {
    this.accessLog = options.accessLog;
    this.handlers = [
      [CHANNEL_NAMES.start, () => this.inFlight++],
      [CHANNEL_NAMES.methodStart, (m) => this.methodStarted.set((m as Message).request, performance.now())],
      [CHANNEL_NAMES.methodEnd, (m) => this.onMethodEnd(m as Message)],
      [CHANNEL_NAMES.error, (m) => this.stats((m as Message).request).errors++],
      [CHANNEL_NAMES.mapped, (m) => this.onMapped(m as Message)],
      [CHANNEL_NAMES.finish, (m) => this.onFinish(m as Message)],
    ];
    // The module-level subscribe() keeps the channel alive; a Channel object held only here
    // could be garbage-collected with its subscribers on Node 20.
    for (const [name, fn] of this.handlers) diagnostics_channel.subscribe(name, fn);
  }

  /** A copy of every counter (safe to serialise or mutate); durations rounded to microseconds. */
  snapshot(): MetricsSnapshot {
    const routes: Record<string, RouteStats> = {};
    for (const [key, s] of this.routes) {
      routes[key] = {
        ...s,
        statuses: { ...s.statuses },
        mapped: { ...s.mapped },
        totalMs: micros(s.totalMs),
        maxMs: micros(s.maxMs),
        methodMs: micros(s.methodMs),
      };
    }
    return { inFlight: this.inFlight, routes };
  }

  /** Unsubscribes from every channel: from now on the pipeline skips publishing again. */
  close(): void {
    for (const [name, fn] of this.handlers) diagnostics_channel.unsubscribe(name, fn);
  }

  /**
   * Counters are keyed by the route TEMPLATE, not the request path: `/api/orders/1` and
   * `/api/orders/2` share one entry, and a client probing random URLs lands in {@link NO_ROUTE}
   * instead of growing the map without bound.
   */
  private stats(request: ContainerRequestContext): RouteStats {
    const info = request.resourceInfo;
    const key = info === undefined ? NO_ROUTE : `${info.httpMethod} ${info.path}`;
    let s = this.routes.get(key);
    if (s === undefined) {
      s = { count: 0, statuses: {}, totalMs: 0, maxMs: 0, methodMs: 0, methodFailures: 0, errors: 0, mapped: {} };
      this.routes.set(key, s);
    }
    return s;
  }

  private onMethodEnd(m: Message): void {
    const s = this.stats(m.request);
    const started = this.methodStarted.get(m.request);
    if (started !== undefined) s.methodMs += performance.now() - started;
    // `method:end` carries `error` only when the method threw or its promise rejected.
    if ('error' in m) s.methodFailures++;
  }

  private onMapped(m: Message): void {
    const e = m.error;
    const name = e instanceof Error ? e.name : typeof e;
    const key = `${name} ${m.status}`;
    const s = this.stats(m.request);
    s.mapped[key] = (s.mapped[key] ?? 0) + 1;
  }

  private onFinish(m: Message): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    const s = this.stats(m.request);
    const status = m.status ?? 0;
    const cls = `${Math.floor(status / 100)}xx`;
    s.count++;
    s.statuses[cls] = (s.statuses[cls] ?? 0) + 1;
    // undefined for a request that was already under way when we subscribed: the pipeline reads
    // the clock only while someone listens, so such a request is counted but not timed.
    const ms = m.durationMs;
    if (ms !== undefined) {
      s.totalMs += ms;
      if (ms > s.maxMs) s.maxMs = ms;
    }
    this.accessLog?.(`${m.request.method} ${m.request.requestUri} ${status} ${ms === undefined ? '-' : `${ms.toFixed(2)}ms`}`);
  }
}

function micros(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
