import type { ContainerRequestContext } from '../../core/context/request-context.js';
import { REQUEST_ID_PROPERTY, REQUEST_LOGGER_PROPERTY, type Logger } from '../../core/internal/observation.js';

/**
 * The request's logger: the application's logger with `{ reqId, method }` bound, and `route` (the
 * base path and the matched template, `/api/users/{id}`) once the request is matched, never the
 * raw path. The child loggers are made on the first line written, so a request that logs nothing
 * makes none.
 */
export class RequestLogger implements Logger {
  private unrouted: Logger | undefined;
  private routed: Logger | undefined;

  constructor(
    private readonly root: Logger,
    private readonly ctx: ContainerRequestContext,
    private readonly idKey: string,
  ) {}

  get level(): string | undefined {
    return this.root.level;
  }

  /** The logger for the request as it stands: with its route once matched. */
  private current(): Logger {
    if (this.routed !== undefined) return this.routed;
    const info = this.ctx.resourceInfo;
    if (info !== undefined) {
      this.routed = (this.unrouted ?? this.root.child(this.bindings())).child({ route: this.ctx.basePath + info.path });
      return this.routed;
    }
    return (this.unrouted ??= this.root.child(this.bindings()));
  }

  private bindings(): Record<string, unknown> {
    const b: Record<string, unknown> = {};
    const id = this.ctx.getProperty(REQUEST_ID_PROPERTY);
    if (id !== undefined) b[this.idKey] = id;
    b.method = this.ctx.method;
    return b;
  }

  trace(obj: object, msg?: string): void {
    this.current().trace(obj, msg);
  }
  debug(obj: object, msg?: string): void {
    this.current().debug(obj, msg);
  }
  info(obj: object, msg?: string): void {
    this.current().info(obj, msg);
  }
  warn(obj: object, msg?: string): void {
    this.current().warn(obj, msg);
  }
  error(obj: object, msg?: string): void {
    this.current().error(obj, msg);
  }
  fatal(obj: object, msg?: string): void {
    this.current().fatal(obj, msg);
  }
  child(bindings: Record<string, unknown>): Logger {
    return this.current().child(bindings);
  }
}

/**
 * The logger of the request (`LoggingFeature`): its lines carry the request id, method and route.
 * Undefined when `LoggingFeature` is not registered.
 * @example requestLogger(ctx)?.info({ userId }, 'user created');
 */
export function requestLogger(ctx: ContainerRequestContext): Logger | undefined {
  return ctx.getProperty(REQUEST_LOGGER_PROPERTY) as Logger | undefined;
}
