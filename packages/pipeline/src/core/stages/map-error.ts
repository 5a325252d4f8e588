import { InternalServerError, WebApplicationError } from '../http/errors.js';
import type { Exchange } from '../internal/exchange.js';
import type { MapperEntry } from '../internal/model.js';
import type { Constructor } from '../context/contracts.js';
import { Response } from '../http/response.js';
import { isThenable } from '../util/thenable.js';
import { isAbortReason } from '../context/request-context.js';
import { errorResponse } from '../internal/error-format.js';

/**
 * Turns an error into a response (Processing rules §4): an HTTP error carrying a response is used
 * as is; otherwise the mapper for the NEAREST error type (then lowest priority) runs; a mapper
 * returning null gives 204; with no mapper, the default one keeps HTTP statuses and hides 5xx causes.
 */
export function mapError(ex: Exchange, error: unknown): Response | Promise<Response> {
  ex.error = error;
  if (error instanceof WebApplicationError && error.response !== undefined) {
    if (ex.trace !== undefined) ex.trace.push('mapper:carried-response');
    return error.response;
  }
  const entry = findMapper(ex, error);
  if (entry === undefined) return defaultMapper(ex, error);
  if (ex.trace !== undefined) ex.trace.push(`mapper:${entry.name}`);
  const r = entry.mapper.toResponse(error, ex);
  if (isThenable(r)) return Promise.resolve(r).then((v) => completeMapped(error, v));
  return completeMapped(error, r);
}

/** Null → 204; keep the error's own headers (`Allow`, `WWW-Authenticate`) the mapper did not set. */
function completeMapped(error: unknown, r: Response | null | undefined): Response {
  const response = r ?? new Response(204);
  if (error instanceof WebApplicationError) {
    for (const k in error.headers) if (response.headers[k] === undefined) response.headers[k] = error.headers[k]!;
  }
  return response;
}

function findMapper(ex: Exchange, error: unknown): MapperEntry | undefined {
  const rt = ex.rt;
  if (rt.mappers.length === 0 || error === null || typeof error !== 'object') return undefined;
  const ctor = (error as object).constructor as Constructor;
  const cached = rt.mapperCache.get(ctor);
  if (cached !== undefined) return cached ?? undefined;
  let found: MapperEntry | undefined;
  // Walk the prototype chain: the first level with any mapper wins; mappers are priority-sorted.
  for (
    let proto: object | null = Object.getPrototypeOf(error) as object | null;
    proto !== null && found === undefined;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    const level = (proto as { constructor?: unknown }).constructor;
    found = rt.mappers.find((m) => m.errorType === level);
  }
  if (rt.mapperCache.size < 1024) rt.mapperCache.set(ctor, found ?? null);
  return found;
}

/** The built-in mapper: HTTP errors keep status and headers; everything else is a 500 whose cause is logged, not sent. */
export function defaultMapper(ex: Exchange, error: unknown): Response {
  if (ex.trace !== undefined) ex.trace.push('mapper:default');
  const http = error instanceof WebApplicationError ? error : new InternalServerError(undefined, { cause: error });
  // Unexpected failures are logged; a 5xx the application chose to answer (503 load shedding, 507)
  // is not, unless it wraps a cause (an upstream failure, an I/O error) someone should look at.
  // A method that failed because the request's signal fired (the client left) is not a bug either.
  if (http.status >= 500 && (http !== error || http.status === 500 || http.cause !== undefined) && !isAbortReason(ex, error))
    ex.rt.logError(error, ex);
  const response = errorResponse(ex.rt, http, ex);
  for (const k in http.headers) response.headers[k] = http.headers[k]!;
  return response;
}
