import {
  APPLICATION_PROBLEM_JSON,
  prefersProblemDetails,
  problemDetailsErrorBody,
  type ContainerRequestContext,
  type ErrorBodyFactory,
  type WebApplicationError,
} from '@jaxrs-node/pipeline';
import { InvalidTokenError } from '../domain/auth/bearer-tokens.js';
import { formatTimestamp } from '../domain/users/model.js';

/**
 * The service's error body (`docs/api.md` rule 37): `timestamp`, `status`, `error` (the reason text, e.g.
 * `Bad Request`), `errors` (every violation for validation failures, else empty), plus `message`
 * and `path`. Two documented exceptions to `error`: `invalid_token` for rejected bearer tokens
 * (RFC 6750 §3.1, `docs/api.md` rule 33). 5xx messages are never shown.
 */
export const serviceErrorBody: ErrorBodyFactory = (error: WebApplicationError, request: ContainerRequestContext) => ({
  timestamp: formatTimestamp(new Date()),
  status: error.status,
  error: error instanceof InvalidTokenError ? 'invalid_token' : error.reason,
  message: error.expose ? error.message : error.reason,
  path: request.path,
  errors: Array.isArray(error.details) ? error.details.map(plainField) : [],
});

/**
 * The service's problem details (RFC 9457), answered instead of {@link serviceErrorBody} when the
 * client's `Accept` prefers `application/problem+json` (the application's `errorFormat:
 * 'negotiate'`): the pipeline's `problemDetailsErrorBody` (`type`, `title`, `status`, `detail`,
 * `instance`, `code`, `errors`) with the items named as in the service's body (`size`, `email`).
 */
export const serviceProblemBody: ErrorBodyFactory = (error: WebApplicationError, request: ContainerRequestContext) => {
  const body = problemDetailsErrorBody(error, request) as Record<string, unknown>;
  if (Array.isArray(body.errors)) body.errors = body.errors.map(plainField);
  return body;
};

/**
 * The error answer for `error` as the application would make it, for the places that build one
 * themselves (an exception mapper, a response filter replacing an answer): the body, its
 * Content-Type, and `Vary: Accept`, since the format follows the client's Accept.
 */
export function serviceErrorEntity(
  error: WebApplicationError,
  request: ContainerRequestContext,
): { body: unknown; headers: Record<string, string> } {
  const problem = prefersProblemDetails(request.acceptableMediaTypes);
  return {
    body: problem ? serviceProblemBody(error, request) : serviceErrorBody(error, request),
    headers: { 'content-type': problem ? APPLICATION_PROBLEM_JSON : 'application/json', vary: 'Accept' },
  };
}

/**
 * The pipeline names a violation by where it came from (`body.email`, `query.size`); the service's
 * errors name the input alone (`email`, `size`; `body` for the entity as a whole), as its own
 * validation of users always has.
 */
function plainField(item: unknown): unknown {
  if (typeof item !== 'object' || item === null) return item;
  const field = (item as { field?: unknown }).field;
  if (typeof field !== 'string') return item;
  // `body` alone (the entity itself) stays: the service's own validation names it so too.
  const plain = field.replace(/^(?:body|query|path|header|cookie|form)(?:\.|(?=\[))/, '');
  return plain === field ? item : { ...item, field: plain };
}
