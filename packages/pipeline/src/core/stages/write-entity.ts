import type { Exchange } from '../internal/exchange.js';
import type { WriterInterceptor } from '../context/contracts.js';
import type { Response } from '../http/response.js';
import type { TypeToken } from '../context/contracts.js';
import { isThenable, type Step } from '../util/thenable.js';
import { send } from './send.js';
import { appendVary } from '../http/vary.js';
import { resolveLocations } from './location.js';
import {
  chooseMediaType,
  contentTypeOf,
  isConcrete,
  responseMediaType,
  selectWriter,
  typeOf,
  WriteCtx,
  type WritePlan,
} from '../internal/writers.js';

/**
 * Writes the response: writer interceptors (ascending) around the MessageBodyWriter, which is
 * chosen AFTER the interceptors from the last type and media type they set (Processing rules §1),
 * then one `writeHead` + one `end(body)` (or a backpressured pipe for streams).
 */
export function writeResponse(ex: Exchange, response: Response, interceptors: readonly WriterInterceptor[]): Step {
  // Accept chose this route (or its @Produces type) at matching: docs/decisions.md 14.
  const route = ex.route;
  if (route !== undefined && route.variesByAccept) appendVary(response.headers, 'Accept');
  const headers = response.headers;
  if (headers.location !== undefined || headers['content-location'] !== undefined) resolveLocations(ex, headers);
  if (!response.hasEntity()) return send(ex, response, undefined);
  const type = typeOf(response);
  if (interceptors.length === 0) {
    const plan = planFor(ex, response, type);
    if (plan.variesByAccept) appendVary(response.headers, 'Accept');
    response.headers['content-type'] = plan.contentType;
    const body = plan.writer.writeTo(response.entity, type, plan.mediaType, { request: ex, response });
    if (isThenable(body)) return Promise.resolve(body).then((b) => send(ex, response, b));
    return send(ex, response, body);
  }
  const mediaType = responseMediaType(ex, response, type);
  const ctx = new WriteCtx(ex, response, type, mediaType, interceptors);
  return ctx.proceed().then(() => send(ex, response, ctx.body));
}

/**
 * The writer decision for this response. A route keeps its last decision (a monomorphic inline
 * cache): the same entity type, negotiated type and (when it matters) Accept header give the same
 * answer, so the usual request skips negotiation and the writer lookups. Explicit Content-Type,
 * error responses (whose fallback differs) and tracing always take the full path.
 */
function planFor(ex: Exchange, response: Response, type: TypeToken): WritePlan {
  const route = ex.route;
  const accept = ex.headers.accept;
  const produced = ex.responseMediaType;
  const cacheable =
    route !== undefined && ex.trace === undefined && response.status < 400 && !ex.mapped && response.headers['content-type'] === undefined;
  if (cacheable) {
    const p = route.writePlan;
    if (p !== undefined && p.type === type && p.produced === produced && (p.accept === accept || isConcrete(produced))) return p;
  }
  const { mediaType, variesByAccept } = chooseMediaType(ex, response, type);
  const plan: WritePlan = {
    type,
    accept,
    produced,
    mediaType,
    writer: selectWriter(ex, type, mediaType),
    contentType: contentTypeOf(mediaType),
    variesByAccept,
  };
  if (cacheable) route.writePlan = plan;
  return plan;
}
