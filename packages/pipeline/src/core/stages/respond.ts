import { channels } from '../internal/diagnostics.js';
import { InternalServerError } from '../http/errors.js';
import type { ContainerResponseFilter, WriterInterceptor } from '../context/contracts.js';
import type { Exchange } from '../internal/exchange.js';
import { mapError } from './map-error.js';
import { nameOf } from '../util/type-name.js';
import { Phase } from '../context/request-context.js';
import { Response } from '../http/response.js';
import { isThenable, type Step } from '../util/thenable.js';
import { writeResponse } from './write-entity.js';
import { errorEntity, errorResponse } from '../internal/error-format.js';
import { provideResponder } from '../internal/extensions.js';

/**
 * The response half of the lifecycle: response filters (descending) then writer interceptors and
 * the writer. Uses the route's G+B chains when a method matched, the global chains otherwise
 * (Processing rules §2). Never throws: failures are mapped once, then become a plain 500.
 */
export function respond(ex: Exchange, response: Response): Step {
  ex.phase = Phase.Responding;
  ex.response = response;
  const chains = ex.route ?? ex.rt.global;
  let r: Step;
  try {
    r = runResponseFilters(ex, response, chains.responseFilters, 0);
  } catch (e) {
    return handleError(ex, e);
  }
  if (r !== undefined)
    return r.then(
      () => write(ex, response, chains.writerInterceptors),
      (e: unknown) => handleError(ex, e),
    );
  return write(ex, response, chains.writerInterceptors);
}

// Features that start a response themselves (an event sink) reach it through extensions.ts `respondWith`.
provideResponder(respond);

function runResponseFilters(ex: Exchange, response: Response, filters: readonly ContainerResponseFilter[], i: number): Step {
  for (; i < filters.length; i++) {
    const filter = filters[i]!;
    if (ex.trace !== undefined) ex.trace.push(`response-filter:${nameOf(filter)}`);
    const r = filter.filterResponse(ex, response);
    if (r !== undefined && isThenable(r)) {
      const next = i + 1;
      return Promise.resolve(r).then(() => runResponseFilters(ex, response, filters, next));
    }
  }
}

function write(ex: Exchange, response: Response, interceptors: readonly WriterInterceptor[]): Step {
  let r: Step;
  try {
    r = writeResponse(ex, response, interceptors);
  } catch (e) {
    return handleError(ex, e);
  }
  if (r !== undefined) return r.then(undefined, (e: unknown) => handleError(ex, e));
}

/**
 * One place turns errors into responses: map once, then run the response chains on
 * the mapped response; a second failure is a plain 500; after the first byte, abort the connection.
 */
export function handleError(ex: Exchange, error: unknown): Step {
  const res = ex.rawResponse;
  if (res.headersSent || ex.done) {
    if (!ex.done) ex.rt.logError(error, ex);
    if (!res.destroyed) res.destroy();
    ex.rt.finish(ex, res.statusCode);
    return;
  }
  if (ex.mapped) return plain500(ex, error);
  ex.mapped = true;
  publishError(ex, error);
  let mapped: Response | Promise<Response>;
  try {
    mapped = mapError(ex, error);
  } catch (mapperError) {
    // A mapper that throws gives a plain 500, not mapped again; response filters still run.
    ex.rt.logError(mapperError, ex);
    return respond(ex, internalError(ex));
  }
  if (mapped instanceof Response) return respond(ex, publishMapped(ex, error, mapped));
  return mapped.then(
    (r) => respond(ex, publishMapped(ex, error, r)),
    (mapperError: unknown) => {
      ex.rt.logError(mapperError, ex);
      return respond(ex, internalError(ex));
    },
  );
}

function internalError(ex: Exchange): Response {
  try {
    return errorResponse(ex.rt, PLAIN_500, ex);
  } catch (factoryError) {
    // A throwing error-body factory must not take the request down with it.
    ex.rt.logError(factoryError, ex);
    return new Response(500, { status: 500, error: 'Internal Server Error' });
  }
}

const PLAIN_500 = new InternalServerError();
const PLAIN_500_BODY = '{"status":500,"error":"Internal Server Error"}';

/** Last resort when handling an already-mapped response failed: no filters, no writers. */
function plain500(ex: Exchange, error: unknown): Step {
  ex.rt.logError(error, ex);
  const res = ex.rawResponse;
  if (!res.headersSent) {
    const { body, contentType, vary } = lastResortBody(ex);
    const headers: Record<string, string | number> = { 'content-type': contentType, 'content-length': Buffer.byteLength(body) };
    if (vary) headers.vary = 'Accept';
    res.writeHead(500, headers);
    res.end(ex.isHead ? undefined : body);
  } else if (!res.destroyed) res.destroy();
  ex.rt.finish(ex, 500);
}

/** The application's error body for a 500, serialised without writers; the fixed one if that fails too. */
function lastResortBody(ex: Exchange): { body: string; contentType: string; vary: boolean } {
  try {
    const entity = errorEntity(ex.rt, PLAIN_500, ex);
    const body = JSON.stringify(entity.body);
    if (body !== undefined) return { body, contentType: entity.contentType ?? 'application/json', vary: entity.variesByAccept };
  } catch {
    /* the fixed body below */
  }
  return { body: PLAIN_500_BODY, contentType: 'application/json', vary: false };
}

function publishError(ex: Exchange, error: unknown): void {
  if (channels.error.hasSubscribers) channels.error.publish({ request: ex, error });
}

/** `jaxrs-node:error:mapped` (documented in diagnostics.ts): the error and the status it was mapped to. */
function publishMapped(ex: Exchange, error: unknown, response: Response): Response {
  if (channels.mapped.hasSubscribers) channels.mapped.publish({ request: ex, error, status: response.status });
  return response;
}
