import { classMeta, methodMeta, type DeadlineSpec } from '../core/model/metadata.js';

type ClassOrMethod = (target: object, propertyKey?: string | symbol) => void;

function onClassOrMethod(apply: (m: { path?: string; produces?: string[]; consumes?: string[] }) => void): ClassOrMethod {
  return (target, propertyKey) => {
    if (propertyKey === undefined) apply(classMeta(target));
    else apply(methodMeta((target as { constructor: object }).constructor, String(propertyKey)));
  };
}

/**
 * A deadline for the resource method's result (on a method, or a class for all its methods): past
 * `ms`, the client gets 503 with `Retry-After: 1` (code `PIPE_DEADLINE`) through the normal response
 * chain (mappers, response filters), the late result is dropped, and the request's `signal` has
 * fired with a `TimeoutError`, so work the method handed it stops. `onTimeout` may supply another
 * response. It races the method's promise: a method that blocks the event loop cannot be cut.
 *
 * @example
 * \@GET() \@Deadline(2_000) async report(@Context() signal: AbortSignal) { return fetchReport({ signal }); }
 */
export function Deadline(ms: number, options: Omit<DeadlineSpec, 'ms'> = {}): ClassDecorator & MethodDecorator {
  if (!Number.isInteger(ms) || ms <= 0) throw new TypeError(`@Deadline(ms): ms must be a positive integer, got ${String(ms)}`);
  return ((target: object, propertyKey?: string | symbol) => {
    const spec: DeadlineSpec = { ms, ...options };
    if (propertyKey === undefined) classMeta(target).deadline = spec;
    else methodMeta((target as { constructor: object }).constructor, String(propertyKey)).deadline = spec;
  }) as ClassDecorator & MethodDecorator;
}

/**
 * Keeps a GET method answering while the application closes (`Application.close()`), when every
 * other request is answered 503 `PIPE_SHUTTING_DOWN`: for probes an orchestrator reads during the
 * drain (a liveness probe that must stay up, a readiness probe that says it is draining). Only on
 * a method whose full path is literal (no `{variable}`), not in a sub-resource, and only for GET
 * (HEAD follows it): `build()` refuses anything else (`PIPELINE_CLOSING_ROUTE_INVALID`). The
 * paths are collected once at start-up; the check runs only while closing, so other requests pay
 * nothing. While closing, the application's own server no longer accepts connections: such a
 * request arrives on a connection opened before, or through {@link Application.handler} on a
 * server the application does not close.
 * @example
 * \@Path('/health') class Probes { \@GET('live') \@ServedWhileClosing() live() { return { status: 'UP' }; } }
 */
export function ServedWhileClosing(): MethodDecorator {
  return (target, propertyKey) => {
    methodMeta((target as { constructor: object }).constructor, String(propertyKey)).servedWhileClosing = true;
  };
}

/**
 * Path template of a resource class or method: literal segments, `{name}` (one segment) or
 * `{name: regex}`. Method paths are appended to the class path.
 */
export function Path(template: string): ClassDecorator & MethodDecorator {
  return onClassOrMethod((m) => {
    m.path = template;
  }) as ClassDecorator & MethodDecorator;
}

/** Media types a class or method can produce, in server preference order; `;qs=` sets server quality. */
export function Produces(...mediaTypes: string[]): ClassDecorator & MethodDecorator {
  return onClassOrMethod((m) => {
    m.produces = mediaTypes;
  }) as ClassDecorator & MethodDecorator;
}

/** Media types a class or method accepts as request body (415 otherwise). */
export function Consumes(...mediaTypes: string[]): ClassDecorator & MethodDecorator {
  return onClassOrMethod((m) => {
    m.consumes = mediaTypes;
  }) as ClassDecorator & MethodDecorator;
}

/** Designates a resource method for an HTTP method (JAX-RS `@HttpMethod`); optional sub-path. */
export function HttpMethod(method: string, path?: string): MethodDecorator {
  if (path !== undefined && typeof path !== 'string') {
    // `@GET` without parentheses hands the decorator the prototype: refuse it as the class loads.
    const owner = (path as { constructor?: { name?: string } }).constructor?.name ?? 'a class';
    throw new TypeError(`@${method} is used without parentheses on ${owner}: write @${method}() (or @${method}('/sub-path'))`);
  }
  return (target, propertyKey) => {
    const m = methodMeta((target as { constructor: object }).constructor, String(propertyKey));
    m.httpMethods.push(method.toUpperCase());
    if (path !== undefined) m.path = path;
  };
}

/** `GET`; the optional argument is a sub-path, same as a separate `@Path`. */
export const GET = (path?: string): MethodDecorator => HttpMethod('GET', path);
export const POST = (path?: string): MethodDecorator => HttpMethod('POST', path);
export const PUT = (path?: string): MethodDecorator => HttpMethod('PUT', path);
export const PATCH = (path?: string): MethodDecorator => HttpMethod('PATCH', path);
export const DELETE = (path?: string): MethodDecorator => HttpMethod('DELETE', path);
export const HEAD = (path?: string): MethodDecorator => HttpMethod('HEAD', path);
export const OPTIONS = (path?: string): MethodDecorator => HttpMethod('OPTIONS', path);

/** Resource lifecycle: one instance per request (JAX-RS default) instead of a shared singleton. */
export function RequestScoped(): ClassDecorator {
  return (target) => {
    classMeta(target).scope = 'request';
  };
}

/** Resource lifecycle: one shared instance (this library's default; see docs/dependency-injection.md). */
export function Singleton(): ClassDecorator {
  return (target) => {
    classMeta(target).scope = 'singleton';
  };
}
