import { AsyncLocalStorage } from 'node:async_hooks';
import type { Feature, FeatureContext, RequestScope } from '../../core/context/contracts.js';
import type { ContainerRequestContext } from '../../core/context/request-context.js';
import type { Principal } from '../../core/context/security-context.js';
import { provideAmbientRequest, REQUEST_ID_PROPERTY, REQUEST_LOGGER_PROPERTY, type Logger } from '../../core/internal/observation.js';

/** The request the running code works for, as {@link currentRequest} gives it. */
export interface CurrentRequest {
  /** The request id (`RequestIdFeature`), or undefined without it. */
  readonly id: string | undefined;
  /** The request's logger (`LoggingFeature`): its lines carry the id, method and route; undefined without it. */
  readonly logger: Logger | undefined;
  /** The authenticated principal (set by an authentication filter), or undefined. */
  readonly principal: Principal | undefined;
  /** The route template with the base path (`/api/users/{id}`), once the request is matched. */
  readonly route: string | undefined;
  /** The request itself. */
  readonly ctx: ContainerRequestContext;
}

/** One store for the process: `currentRequest()` must find the request whichever application took it. */
const storage = new AsyncLocalStorage<ContainerRequestContext>();

/** Read lazily, so the object is made only when asked for, and sees the route and principal as they are now. */
class Current implements CurrentRequest {
  constructor(readonly ctx: ContainerRequestContext) {}
  get id(): string | undefined {
    return this.ctx.getProperty(REQUEST_ID_PROPERTY) as string | undefined;
  }
  get logger(): Logger | undefined {
    return this.ctx.getProperty(REQUEST_LOGGER_PROPERTY) as Logger | undefined;
  }
  get principal(): Principal | undefined {
    return this.ctx.securityContext.principal;
  }
  get route(): string | undefined {
    const info = this.ctx.resourceInfo;
    return info === undefined ? undefined : this.ctx.basePath + info.path;
  }
}

/**
 * The current request (id, logger, principal, route and the context), from any code a resource
 * method calls, after awaits and in timers it starts, without passing `ctx` down; undefined
 * outside a request or when `RequestContextFeature` is not registered.
 * @example currentRequest()?.logger?.info({ orderId }, 'order stored');
 */
export function currentRequest(): CurrentRequest | undefined {
  const ctx = storage.getStore();
  return ctx === undefined ? undefined : new Current(ctx);
}

/**
 * Opt-in request context through `AsyncLocalStorage`: {@link currentRequest} answers in everything
 * the request's processing calls, and the typed client (`@jaxrs-node/pipeline/client`) takes the
 * current request as the one to `propagate` headers from when a call names none. Without it,
 * nothing is stored and `currentRequest()` is undefined.
 * @example new Application({ resources: [Orders], providers: [new RequestIdFeature(), new RequestContextFeature()] })
 */
export class RequestContextFeature implements Feature {
  setup(context: FeatureContext): void {
    provideAmbientRequest(ambient);
    context.register(scope);
  }
}

/** What the client asks for when a call names no request. */
const ambient = (): ContainerRequestContext | undefined => storage.getStore();

/** Runs the rest of the request in the store (registered by {@link RequestContextFeature}). */
class RequestContextScope implements RequestScope {
  runInScope(ctx: ContainerRequestContext, next: () => void): void {
    storage.run(ctx, next);
  }
}

const scope = new RequestContextScope();
