/**
 * Every limit and timeout of an application, with its default. Validated once when the
 * application is built (one place to read and check them).
 */
export interface PipelineLimits {
  /** Maximum request body in bytes (decoded bytes for compressed bodies). Fastify's default: 1 MiB. */
  bodyLimit: number;
  /** `server.headersTimeout`: time to receive the complete headers (slowloris guard), ms. */
  headersTimeout: number;
  /** `server.requestTimeout`: time to receive the whole request, ms (408 after). */
  requestTimeout: number;
  /** `server.keepAliveTimeout`: idle time of a kept-alive socket, ms (Node 26 changes its default: set it). */
  keepAliveTimeout: number;
  /** `server.connectionsCheckingInterval`: how often the two timeouts above are checked, ms. */
  connectionsCheckingInterval: number;
  /** `maxHeaderSize` of the server in bytes (431 above it). */
  maxHeaderSize: number;
  /** Requests served per kept-alive socket before it is closed (0 = unlimited). */
  maxRequestsPerSocket: number;
  /** Graceful close: how long in-flight requests may take before connections are cut, ms. */
  shutdownDeadline: number;
  /**
   * Graceful close, first phase: for this long after `close()` is called the application keeps
   * serving every request as usual (new connections too) while readiness reports the close
   * (`HealthFeature`: `draining` DOWN), so a load balancer or Kubernetes takes it out of rotation
   * before it stops accepting; then the close proper begins, with its own `shutdownDeadline`.
   * Quarkus calls this the shutdown delay. Default 0 (none), ms.
   */
  shutdownDelay: number;
  /**
   * `server.timeout`: a connection with a request in flight on which no byte moves, in either
   * direction, for this long is cut, ms (0 = never). Stops a client that never reads its response
   * from holding the connection, its buffers and its producer forever; a streamed body already
   * stops producing while the socket is not writable (backpressure).
   */
  sendTimeout: number;
}

export const DEFAULT_LIMITS: Readonly<PipelineLimits> = Object.freeze({
  bodyLimit: 1024 * 1024,
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: 1_000,
  maxHeaderSize: 16 * 1024,
  maxRequestsPerSocket: 0,
  shutdownDeadline: 10_000,
  shutdownDelay: 0,
  sendTimeout: 60_000,
});

/** Merges user limits over the defaults and rejects nonsense at start-up. */
export function resolveLimits(partial: Partial<PipelineLimits> | undefined): PipelineLimits {
  const limits: PipelineLimits = { ...DEFAULT_LIMITS };
  // `undefined` means "the default" (Partial<> allows it; a spread would copy it over the default).
  for (const [key, value] of Object.entries(partial ?? {})) {
    // A JavaScript caller's typo (`bodylimit`) would otherwise be ignored silently.
    if (!Object.hasOwn(DEFAULT_LIMITS, key)) {
      throw new TypeError(`limits.${key} is not a limit (known: ${Object.keys(DEFAULT_LIMITS).join(', ')})`);
    }
    if (value !== undefined) (limits as unknown as Record<string, unknown>)[key] = value;
  }
  for (const [key, value] of Object.entries(limits)) {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      throw new TypeError(`limits.${key} must be a non-negative integer, got ${String(value)}`);
    }
  }
  if (limits.headersTimeout > limits.requestTimeout && limits.requestTimeout !== 0) {
    throw new TypeError('limits.headersTimeout must not exceed limits.requestTimeout (node:http rule)');
  }
  return limits;
}
