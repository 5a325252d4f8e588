/**
 * The small contract between core and the observability features (features/logging,
 * features/request-context, the client) that core must not import: the property names under
 * which a request's id and logger are kept, and the hook through which code outside a request's
 * call chain (the typed client) finds the current request. Nothing here runs on a request unless
 * such a feature is registered.
 */
import type { ContainerRequestContext } from '../context/request-context.js';

/**
 * Where the library writes: the level methods and `child(bindings)` of pino, so a `pino` instance
 * is a `Logger` as it is. Each method takes an object of fields and an optional message.
 * @example const log: Logger = pino(); log.child({ reqId: 'a1' }).info({ status: 200 }, 'request completed');
 */
export interface Logger {
  trace(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  fatal(obj: object, msg?: string): void;
  /** A logger that adds `bindings` to every line it writes. */
  child(bindings: Record<string, unknown>): Logger;
  /** The lowest level written (`'info'`...), when the logger says. */
  level?: string;
}

/** The request property holding the request id (`RequestIdFeature`); read it with `requestId(ctx)`. */
export const REQUEST_ID_PROPERTY = 'jaxrs-node.request-id';

/** The request property holding the request's logger (`LoggingFeature`); read it with `requestLogger(ctx)`. */
export const REQUEST_LOGGER_PROPERTY = 'jaxrs-node.logger';

let currentRequest: (() => ContainerRequestContext | undefined) | undefined;

/**
 * Installed by the request context feature when its module loads: how to find the request the
 * running code works for. Before that, {@link ambientRequest} is a single comparison.
 */
export function provideAmbientRequest(find: () => ContainerRequestContext | undefined): void {
  currentRequest = find;
}

/** The request the running code works for, when the request context feature is on and there is one. */
export function ambientRequest(): ContainerRequestContext | undefined {
  return currentRequest === undefined ? undefined : currentRequest();
}
