/**
 * The entity of an error response: the application's error body (`errorBody`, default
 * `{status, error, message, code, errors?}`) or RFC 9457 problem details
 * (`application/problem+json`), as `ApplicationOptions.errorFormat` says (docs/errors.md,
 * "Problem details").
 */
import type { ContainerRequestContext } from '../context/request-context.js';
import type { WebApplicationError } from '../http/errors.js';
import { APPLICATION_JSON, EMPTY_PARAMS, make, specificity, type MediaType } from '../http/media-type.js';
import { decidingRange } from '../http/negotiation.js';
import { Response } from '../http/response.js';
import { appendVary } from '../http/vary.js';
import type { ErrorBodyFactory, Runtime } from './runtime.js';

/**
 * Which body an error response gets (`ApplicationOptions.errorFormat`):
 * - `'json'` (default): the `errorBody` factory's, in the type the writers negotiate (JSON).
 * - `'problem'`: RFC 9457 problem details (`problemBody`), `Content-Type: application/problem+json`.
 * - `'negotiate'`: problem details when the request's `Accept` prefers `application/problem+json`
 *   over `application/json` (see {@link prefersProblemDetails}), the `errorBody` otherwise; every
 *   error response then carries `Vary: Accept`.
 */
export type ErrorFormat = 'json' | 'problem' | 'negotiate';

/** The accepted values of {@link ErrorFormat}, for the option check at construction. */
export const ERROR_FORMATS: readonly ErrorFormat[] = ['json', 'problem', 'negotiate'];

/** `application/problem+json` (RFC 9457 §3). */
export const APPLICATION_PROBLEM_JSON = 'application/problem+json';
const PROBLEM_JSON: MediaType = make('application', 'problem+json', EMPTY_PARAMS, 1);

/**
 * RFC 9457 problem details for an HTTP error: `type` `about:blank` (§4.2.1: the status says it
 * all, so `title` is its reason phrase), `title`, `status`, `detail` (the message, for 4xx only:
 * 5xx messages are never shown, as in the default body), `instance` (the request path, without
 * the query, which may hold secrets), and two extension members (§3.2): `code`, the pipeline's
 * stable code, and `errors`, the violations (`{ field, message, value? }`) when there are any.
 * @example
 * // { "type": "about:blank", "title": "Bad Request", "status": 400, "detail": "Validation failed: ...",
 * //   "instance": "/users", "code": "PIPE_VALIDATION", "errors": [{ "field": "query.size", ... }] }
 * new Application({ resources, errorFormat: 'problem' });
 */
export const problemDetailsErrorBody: ErrorBodyFactory = (error, request) => {
  const body: Record<string, unknown> = { type: 'about:blank', title: error.reason, status: error.status };
  if (error.expose) body.detail = error.message;
  body.instance = request.path;
  body.code = error.code;
  if (Array.isArray(error.details)) body.errors = error.details;
  return body;
};

/**
 * Does `accept` prefer `application/problem+json` to `application/json`? Yes when the range that
 * decides problem+json's weight (the most specific matching one, RFC 9110 §12.5.1) gives it a
 * higher q than JSON's, or the same q through a more specific range (`application/problem+json,
 * *\/*`). A tie between two exact ranges, `*\/*` or no Accept at all: no, the default body.
 */
export function prefersProblemDetails(accept: readonly MediaType[]): boolean {
  const problem = decidingRange(accept, PROBLEM_JSON);
  if (problem === undefined || problem.q <= 0) return false;
  const json = decidingRange(accept, APPLICATION_JSON);
  if (json === undefined || json.q < problem.q) return true;
  return json.q === problem.q && specificity(problem) > specificity(json);
}

/** What an error response carries: its entity, an explicit Content-Type, and whether it varies on Accept. */
export interface ErrorEntity {
  readonly body: unknown;
  /** `application/problem+json`, or undefined: the writers negotiate as for any entity. */
  readonly contentType: string | undefined;
  readonly variesByAccept: boolean;
}

/**
 * The error entity for `error` in the application's format. Throws what a factory throws (the
 * callers fall back to a fixed 500 body).
 */
export function errorEntity(rt: Runtime, error: WebApplicationError, request: ContainerRequestContext): ErrorEntity {
  const format = rt.errorFormat;
  if (format === undefined || format === 'json')
    return { body: rt.errorBody(error, request), contentType: undefined, variesByAccept: false };
  const negotiated = format === 'negotiate';
  if (negotiated && !prefersProblemDetails(request.acceptableMediaTypes)) {
    return { body: rt.errorBody(error, request), contentType: undefined, variesByAccept: true };
  }
  const body = (rt.problemBody ?? problemDetailsErrorBody)(error, request);
  return { body, contentType: APPLICATION_PROBLEM_JSON, variesByAccept: negotiated };
}

/** {@link errorEntity} as a response with `error`'s status (its headers are the caller's to copy). */
export function errorResponse(rt: Runtime, error: WebApplicationError, request: ContainerRequestContext): Response {
  const entity = errorEntity(rt, error, request);
  const response = new Response(error.status, entity.body);
  if (entity.contentType !== undefined) response.headers['content-type'] = entity.contentType;
  if (entity.variesByAccept) appendVary(response.headers, 'Accept');
  return response;
}
