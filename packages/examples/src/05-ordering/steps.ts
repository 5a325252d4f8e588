/**
 * The providers of example 5. Each one appends a step to a per-request trace (a request property:
 * providers are shared by concurrent requests, so per-request state never lives on them).
 */
import {
  MapsError,
  PreMatching,
  Priorities,
  Priority,
  Response,
  type ContainerRequestContext,
  type ContainerRequestFilter,
  type ContainerResponseContext,
  type ContainerResponseFilter,
  type ExceptionMapper,
  type ReaderInterceptor,
  type ReaderInterceptorContext,
  type WriterInterceptor,
  type WriterInterceptorContext,
} from '@jaxrs-node/pipeline';

const TRACE = 'example.trace';

/** Appends one step to the request's trace. */
export function step(ctx: ContainerRequestContext, name: string): void {
  let trace = ctx.getProperty(TRACE) as string[] | undefined;
  if (trace === undefined) ctx.setProperty(TRACE, (trace = []));
  trace.push(name);
}

/** Runs before matching: the only kind of filter that also runs for a 404. */
@PreMatching()
export class PreMatchingStep implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    step(ctx, 'pre-matching');
  }
}

@Priority(Priorities.AUTHENTICATION)
export class AuthenticationStep implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    step(ctx, 'request:1000');
  }
}

/** Aborts when asked to (`X-Abort: yes`), like an authorization filter refusing a caller. */
@Priority(Priorities.AUTHORIZATION)
export class AuthorizationStep implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    step(ctx, 'request:2000');
    if (ctx.getHeader('x-abort') === 'yes') ctx.abortWith(Response.status(403).entity({ error: 'aborted by request:2000' }));
  }
}

/** No @Priority: USER (5000), the default. */
export class UserStep implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    step(ctx, 'request:5000');
  }
}

@Priority(Priorities.ENTITY_CODER)
export class CoderReadStep implements ReaderInterceptor {
  aroundReadFrom(ctx: ReaderInterceptorContext): Promise<unknown> {
    step(ctx.request, 'read:4000');
    return ctx.proceed();
  }
}

export class UserReadStep implements ReaderInterceptor {
  aroundReadFrom(ctx: ReaderInterceptorContext): Promise<unknown> {
    step(ctx.request, 'read:5000');
    return ctx.proceed();
  }
}

// Response filters run in DESCENDING priority: 5000, then 3000, then 1000.
@Priority(Priorities.AUTHENTICATION)
export class AuthenticationResponseStep implements ContainerResponseFilter {
  filterResponse(req: ContainerRequestContext): void {
    step(req, 'response:1000');
  }
}

@Priority(Priorities.HEADER_DECORATOR)
export class HeaderResponseStep implements ContainerResponseFilter {
  filterResponse(req: ContainerRequestContext, res: ContainerResponseContext): void {
    step(req, 'response:3000');
    res.setHeader('x-status-seen-by-filters', String(res.status));
  }
}

export class UserResponseStep implements ContainerResponseFilter {
  filterResponse(req: ContainerRequestContext): void {
    step(req, 'response:5000');
  }
}

// Writer interceptors run ascending and NEST: 4000 wraps 5000, which wraps the writer.
@Priority(Priorities.ENTITY_CODER)
export class CoderWriteStep implements WriterInterceptor {
  async aroundWriteTo(ctx: WriterInterceptorContext): Promise<void> {
    step(ctx.request, 'write:4000 in');
    await ctx.proceed();
    step(ctx.request, 'write:4000 out');
  }
}

export class UserWriteStep implements WriterInterceptor {
  async aroundWriteTo(ctx: WriterInterceptorContext): Promise<void> {
    step(ctx.request, 'write:5000 in');
    await ctx.proceed();
    step(ctx.request, 'write:5000 out');
  }
}

/**
 * Priority 0 is below every named priority, so this interceptor wraps all the others: when its
 * `proceed()` returns, the story is complete, and headers can still be set (they leave with the
 * body). Interceptors run only for responses with an entity; every response here has one.
 */
@Priority(0)
export class TraceHeaderInterceptor implements WriterInterceptor {
  async aroundWriteTo(ctx: WriterInterceptorContext): Promise<void> {
    await ctx.proceed();
    ctx.headers['x-trace'] = ((ctx.request.getProperty(TRACE) as string[] | undefined) ?? []).join(', ');
  }
}

/** A domain error the resource throws on purpose. */
export class DemoError extends Error {}

/** Turns {@link DemoError} into a 409; its response then goes through the response chain. */
@MapsError(DemoError)
export class DemoErrorMapper implements ExceptionMapper<DemoError> {
  toResponse(error: DemoError, req: ContainerRequestContext): Response {
    step(req, 'exception-mapper');
    return Response.status(409).entity({ error: error.message }).build();
  }
}
