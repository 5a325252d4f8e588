import type { IncomingMessage, ServerResponse } from 'node:http';
import { channels } from '../internal/diagnostics.js';
import { BadRequestError, ServiceUnavailableError } from '../http/errors.js';
import type { DeadlineSpec } from '../model/metadata.js';
import { Exchange } from '../internal/exchange.js';
import { match } from './match.js';
import { locatedInstance } from './locate.js';
import { diFailure } from '../model/model-problems.js';
import { FORM_PROPERTY } from '../internal/form-fields.js';
import type { ArgumentsValidator } from '../internal/param-conversion.js';
import { resolveArguments } from './resolve-args.js';
import type { EntityParam, RouteMethod } from '../internal/model.js';
import { entityValue, readEntityInto } from './read-entity.js';
import { runRequestFilters } from './request-filters.js';
import { Phase } from '../context/request-context.js';
import { handleError, respond } from './respond.js';
import { Response, ResponseBuilder } from '../http/response.js';
import type { Runtime } from '../internal/runtime.js';
import { isThenable, type Step } from '../util/thenable.js';
import { invalidHost, isValidHost } from '../context/uri-info.js';
import { voidAnswer } from '../internal/extensions.js';
import type { RequestListener, RequestScope } from '../context/contracts.js';

/**
 * What happens to a request, top to bottom (Processing rules §1):
 *
 *   pre-matching filters → match → post-matching filters → parameters → entity (reader
 *   interceptors → reader) → validation → resource method → response filters → writer
 *   interceptors → writer.
 *
 * Every stage runs synchronously until something returns a promise; errors from any request-side
 * stage go to `handleError`, which maps once and then runs the response half (respond.ts).
 */
export function handle(rt: Runtime, req: IncomingMessage, res: ServerResponse): void {
  const ex = begin(rt, req, res);
  if (ex.path.charCodeAt(0) !== 47 /* '/' */) normalizeTarget(ex);
  if (rt.scopes !== undefined) enterScopes(ex, rt.scopes, 0);
  else run(ex, preMatch);
}

/** The request's Exchange, counted in flight, announced on the start channel and to the request listeners. */
function begin(rt: Runtime, req: IncomingMessage, res: ServerResponse): Exchange {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const ex = new Exchange(rt, req, res, q < 0 ? url : url.slice(0, q), q < 0 ? '' : url.slice(q + 1));
  rt.state.inflight++;
  if (channels.start.hasSubscribers) channels.start.publish({ request: ex });
  if (rt.listeners !== undefined) startListeners(ex, rt.listeners);
  return ex;
}

/** Every `RequestListener.onRequest`; the end callbacks they return are kept on the exchange (application.ts calls them). */
function startListeners(ex: Exchange, listeners: readonly RequestListener[]): void {
  for (const l of listeners) {
    try {
      const end = l.onRequest(ex);
      if (typeof end === 'function') (ex.ends ??= []).push(end);
    } catch (e) {
      ex.rt.logError(e, ex);
    }
  }
}

/**
 * The rest of the request inside every `RequestScope`, outermost first. A scope that throws, or
 * returns without calling `next`, is reported and the request goes on without it, so it is never
 * left unanswered.
 */
function enterScopes(ex: Exchange, scopes: readonly RequestScope[], i: number): void {
  if (i === scopes.length) {
    run(ex, preMatch);
    return;
  }
  let entered = false;
  const next = (): void => {
    if (entered) return;
    entered = true;
    enterScopes(ex, scopes, i + 1);
  };
  try {
    scopes[i]!.runInScope(ex, next);
  } catch (e) {
    if (entered) throw e;
    ex.rt.logError(e, ex);
  }
  if (!entered) {
    ex.rt.logError(
      new Error(`${scopes[i]!.constructor.name}.runInScope returned without calling next(): it must call it once, synchronously`),
      ex,
    );
    next();
  }
}

/**
 * A request that arrives while the application is closing: 503 with `Retry-After: 1` and
 * `Connection: close`, through the normal error path (exception mappers, the application's error
 * body, global response filters), so it looks like every other error of the application.
 */
export function rejectWhileClosing(rt: Runtime, req: IncomingMessage, res: ServerResponse): void {
  run(begin(rt, req, res), () => {
    throw new ServiceUnavailableError('Server is shutting down', {
      retryAfterSeconds: 1,
      code: 'PIPE_SHUTTING_DOWN',
      headers: { connection: 'close' },
    });
  });
}

/**
 * An HTTP/1.1 request without `Host` on the server `listen()` starts: 400 `PIPE_INVALID_HOST`
 * (RFC 9112 §3.2: "A server MUST respond with a 400 (Bad Request) status code to any HTTP/1.1
 * request message that lacks a Host header field") with `Connection: close`, through the normal
 * error path. Node's own check (`requireHostHeader`) would answer without a body; it is off there.
 */
export function rejectMissingHost(rt: Runtime, req: IncomingMessage, res: ServerResponse): void {
  run(begin(rt, req, res), () => {
    throw new BadRequestError('Missing Host header', { code: 'PIPE_INVALID_HOST', headers: { connection: 'close' } });
  });
}

/** Runs one stage, routing a throw or a rejection to the error path. */
function run(ex: Exchange, stage: (ex: Exchange) => Step): void {
  let r: Step;
  try {
    r = stage(ex);
  } catch (e) {
    r = handleError(ex, e);
  }
  if (r !== undefined) r.then(undefined, (e: unknown) => failed(ex, e));
}

/**
 * A stage's rejection to the error path, in the one reaction `run` chains (not a second `then`
 * for the error path's own failure: one promise and one microtask turn fewer per asynchronous
 * request, issue 27). What the error path itself throws or rejects with is logged.
 */
function failed(ex: Exchange, e: unknown): void {
  let r: Step;
  try {
    r = handleError(ex, e);
  } catch (err) {
    ex.rt.logError(err, ex);
    return;
  }
  if (r !== undefined) r.then(undefined, (err: unknown) => ex.rt.logError(err, ex));
}

function preMatch(ex: Exchange): Step {
  const filters = ex.rt.preMatchFilters;
  if (filters.length === 0) return afterPreMatch(ex);
  const r = runRequestFilters(ex, filters, 0);
  if (r !== undefined) return r.then(() => afterPreMatch(ex));
  return afterPreMatch(ex);
}

function afterPreMatch(ex: Exchange): Step {
  if (ex.abortResponse !== undefined) return respond(ex, ex.abortResponse);
  if (ex.badTarget) throw new BadRequestError('Invalid request target');
  // RFC 9112 §3.2: a request with an invalid Host is a 400 (before any method can act on it).
  const host = ex.headers.host;
  if (host !== undefined && !isValidHost(host)) throw invalidHost();
  const automatic = match(ex);
  if (automatic !== undefined && !(automatic instanceof Response)) return automatic.then((a) => matched(ex, a));
  return matched(ex, automatic);
}

function matched(ex: Exchange, automatic: Response | undefined): Step {
  ex.phase = Phase.PostMatching;
  if (automatic !== undefined) return respond(ex, automatic);
  if (channels.matched.hasSubscribers) channels.matched.publish({ request: ex, resourceInfo: ex.resourceInfo });
  const filters = ex.route!.requestFilters;
  if (filters.length === 0) return invoke(ex);
  const r = runRequestFilters(ex, filters, 0);
  if (r !== undefined) return r.then(() => afterPostMatch(ex));
  return afterPostMatch(ex);
}

function afterPostMatch(ex: Exchange): Step {
  if (ex.abortResponse !== undefined) return respond(ex, ex.abortResponse);
  return invoke(ex);
}

function invoke(ex: Exchange): Step {
  if (channels.filtered.hasSubscribers) channels.filtered.publish({ request: ex });
  const route = ex.route!;
  const entity = route.entity;
  if (entity === undefined) {
    const args = resolveArgs(ex, route);
    // VALIDATION slot (constraints on parameters): after every request filter, before the method.
    if (route.validate !== undefined) validateArgs(ex, route.validate, args);
    return call(ex, route, args);
  }
  // Parameters convert before the entity is read (Processing rules §1), except form fields. When
  // one does not convert the 400 goes out before the body is read: no reader runs for a refused request.
  const args = route.form ? undefined : resolveArgs(ex, route);
  // Both outcomes of the read are handled here: the usual JSON body answers from its `end` event,
  // with no promise between the body and the method (issue 27's profile).
  readEntityInto(
    ex,
    entity,
    route.readerInterceptors,
    (read) => entityRead(ex, route, entity, args, read),
    (e: unknown) => readFailed(ex, e),
  );
}

/**
 * A failed read to the error path one microtask later, as the promise's rejection took it: a
 * refusal decided before the body is read (415, a declared length above the limit) then still
 * comes after what Node's parser finds in the bytes that arrived with the headers (a malformed
 * chunk is a 400 `PIPE_BAD_REQUEST_SYNTAX`, answered first).
 */
function readFailed(ex: Exchange, e: unknown): void {
  queueMicrotask(() => failed(ex, e));
}

/** The rest of {@link invoke} once the entity is read, routing a throw or a rejection to the error path as {@link run} does. */
function entityRead(ex: Exchange, route: RouteMethod, entity: EntityParam, args: unknown[] | undefined, read: unknown): void {
  let r: Step;
  try {
    r = withEntity(ex, route, entity, args, read);
  } catch (e) {
    // Through `failed`, which logs what the error path itself throws: this runs in the body's
    // `end` event, where a throw would be an uncaught exception.
    failed(ex, e);
    return;
  }
  if (r !== undefined) r.then(undefined, (e: unknown) => failed(ex, e));
}

function withEntity(ex: Exchange, route: RouteMethod, entity: EntityParam, args: unknown[] | undefined, read: unknown): Step {
  const value = entityValue(entity, read);
  if (route.form) {
    ex.setProperty(FORM_PROPERTY, value ?? new URLSearchParams());
    const formArgs = resolveArgs(ex, route);
    if (route.validate !== undefined) validateArgs(ex, route.validate, formArgs);
    return call(ex, route, formArgs);
  }
  // VALIDATION slot: after every request filter and the reader, before the method.
  if (entity.validate !== undefined && value !== undefined) {
    if (ex.trace !== undefined) ex.trace.push('validation');
    entity.validate(value);
  }
  args![entity.index] = value;
  if (route.validate !== undefined) validateArgs(ex, route.validate, args!);
  return call(ex, route, args!);
}

/** Parameter, `@BeanParam` field and entity constraints together: one 400 lists every violation. */
function validateArgs(ex: Exchange, validate: ArgumentsValidator, args: unknown[]): void {
  if (ex.trace !== undefined) ex.trace.push('validation');
  validate(args);
}

/** Every argument; values that do not convert are reported together with the others' violations. */
function resolveArgs(ex: Exchange, route: RouteMethod): unknown[] {
  return resolveArguments(ex, route.args, route.validate);
}

/** A per-request resource; a container failure becomes a 500 whose logged cause says why and what to fix. */
function perRequestInstance(ex: Exchange, route: RouteMethod): object {
  try {
    return ex.rt.container.resolve(route.resourceClass) as object;
  } catch (e) {
    throw new Error(diFailure(route.resourceClass, 'a per-request resource', e), { cause: e });
  }
}

function call(ex: Exchange, route: RouteMethod, args: unknown[]): Step {
  const instance = route.instance ?? (route.located ? locatedInstance(ex) : perRequestInstance(ex, route));
  if (ex.trace !== undefined) ex.trace.push(`method:${route.info.resourceClass.name}.${route.info.methodName}`);
  if (channels.methodStart.hasSubscribers) channels.methodStart.publish({ request: ex, resourceInfo: route.info });
  let result: unknown;
  try {
    result = invokeMethod(route.fn, instance, args);
  } catch (e) {
    methodFailed(ex, e);
  }
  if (isThenable(result)) {
    if (route.deadline !== undefined) return withDeadline(ex, route.deadline, result);
    return Promise.resolve(result).then(
      (v) => returned(ex, v),
      (e: unknown) => methodFailed(ex, e),
    );
  }
  return returned(ex, result);
}

/**
 * The method's result raced against its deadline: past it, the request's signal fires, the late
 * result is dropped and the error path answers 503 (or the `onTimeout` response). One timer per
 * request of such a route only.
 */
function withDeadline(ex: Exchange, deadline: DeadlineSpec, result: PromiseLike<unknown>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      // The method already answered through a context value (an event stream is under way).
      if (ex.response !== undefined) return;
      late = true;
      ex.abort(new DOMException(`The method did not answer within ${deadline.ms} ms`, 'TimeoutError'));
      const instead = deadline.onTimeout?.(ex);
      reject(
        new ServiceUnavailableError(`No answer within ${deadline.ms} ms`, {
          retryAfterSeconds: 1,
          code: 'PIPE_DEADLINE',
          response: instead ?? undefined,
        }),
      );
    }, deadline.ms);
    Promise.resolve(result).then(
      (v) => {
        if (late) return;
        clearTimeout(timer);
        try {
          resolve(returned(ex, v));
        } catch (err) {
          reject(err);
        }
      },
      (e: unknown) => {
        if (late) return;
        clearTimeout(timer);
        try {
          methodFailed(ex, e);
        } catch (err) {
          reject(err);
        }
      },
    );
  });
}

/** `fn.apply` without the array-spreading builtin for the usual one to three parameters. */
function invokeMethod(fn: RouteMethod['fn'], instance: object, args: unknown[]): unknown {
  switch (args.length) {
    case 0:
      return fn.call(instance);
    case 1:
      return fn.call(instance, args[0]);
    case 2:
      return fn.call(instance, args[0], args[1]);
    case 3:
      return fn.call(instance, args[0], args[1], args[2]);
    default:
      return fn.apply(instance, args);
  }
}

/** `method:end` also closes a method that threw or rejected (it carries the error), then the error goes on. */
function methodFailed(ex: Exchange, error: unknown): never {
  if (channels.methodEnd.hasSubscribers) channels.methodEnd.publish({ request: ex, resourceInfo: ex.resourceInfo, error });
  throw error;
}

function returned(ex: Exchange, value: unknown): Step {
  if (channels.methodEnd.hasSubscribers) channels.methodEnd.publish({ request: ex, resourceInfo: ex.resourceInfo });
  // A context value (an event sink) already started the response: the result has no say.
  if (ex.response !== undefined) return;
  if (value === undefined || value === null) {
    // Nothing returned: a context value that answers itself (extensions.ts) does, else 204.
    const answer = voidAnswer(ex);
    if (answer !== undefined) return answer();
  }
  return respond(ex, toResponse(value));
}

/** A method's return value as a response: void/null → 204, a builder is built, anything else → 200. */
export function toResponse(value: unknown): Response {
  // The usual value is a plain object: one constructor check instead of two prototype walks.
  if (value !== null && typeof value === 'object' && (value as { constructor?: unknown }).constructor === Object)
    return new Response(200, value);
  if (value instanceof Response) return value;
  if (value instanceof ResponseBuilder) return value.build();
  if (value === undefined || value === null) return new Response(204);
  return new Response(200, value);
}

/**
 * Request targets that are not origin-form (RFC 9112 §3.2): absolute-form is reduced to its path
 * (never `new URL(req.url, base)`, which reads `//host/x` as a host); `*` and
 * anything else are refused with 400 after pre-matching filters had a chance to rewrite them.
 */
function normalizeTarget(ex: Exchange): void {
  const target = ex.path;
  if (/^https?:\/\//i.test(target)) {
    try {
      const u = new URL(ex.requestUri);
      ex.setRequestUri(u.pathname + (u.search === '' ? '' : u.search));
      return;
    } catch {
      /* falls through to 400 */
    }
  }
  ex.badTarget = true;
}
