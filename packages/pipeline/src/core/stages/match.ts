import { NotAllowedError, NotFoundError, NotSupportedError, BadRequestError } from '../http/errors.js';
import type { MediaType } from '../http/media-type.js';
import { compareNegotiations, consumes, negotiate, negotiateDetailed, type Negotiation } from '../http/negotiation.js';
import type { Exchange } from '../internal/exchange.js';
import { candidatesFor, type PathEntry, type RouteMethod } from '../internal/model.js';
import { locate } from './locate.js';
import type { OpenMatch } from '../routing/router.js';
import { Response } from '../http/response.js';
import { truncate } from '../util/type-name.js';
import { pathUnderBase } from '../context/base-path.js';
import { notAcceptable } from '../internal/writers.js';

/**
 * Request matching (JAX-RS 3.7): path → method (405 + Allow) → Content-Type (415) → Accept (406),
 * in that order. Sets `ex.route`, `ex.pathNames`/`pathValues`, `ex.responseMediaType`; returns a response for
 * automatic OPTIONS, undefined otherwise.
 */
export function match(ex: Exchange): Response | undefined | Promise<Response | undefined> {
  let found;
  // ApplicationOptions.basePath: resources match the path below it; outside it is a 404.
  const path = ex.rt.basePath === undefined ? ex.path : pathUnderBase(ex.path, ex.rt.basePath);
  try {
    found = path === undefined ? undefined : ex.rt.router.match(path);
  } catch (e) {
    if (e instanceof URIError) throw new BadRequestError('Malformed percent-encoding in the request path');
    throw e;
  }
  if (found === undefined) throw new NotFoundError(`No resource matches ${ex.method} ${ex.path}`, { code: 'PIPE_NO_MATCH' });
  const entry = found.values[0]!;
  ex.pathNames = found.names;
  ex.pathValues = found.args;
  if (entry.locator !== undefined) return locate(ex, entry.locator, (found as OpenMatch<PathEntry>).rest, 0);
  return select(ex, entry);
}

/** The method of `entry` for the request: 405 + Allow, automatic HEAD and OPTIONS, 415, 406. */
export function select(ex: Exchange, entry: PathEntry): Response | undefined {
  let candidates = candidatesFor(entry, ex.method);
  if (candidates === undefined) {
    if (ex.method === 'HEAD') {
      candidates = candidatesFor(entry, 'GET');
      ex.isHead = true;
    } else if (ex.method === 'OPTIONS') {
      return Response.ok().header('allow', entry.allow).build();
    }
    if (candidates === undefined) {
      throw new NotAllowedError(entry.allowList, `Method ${ex.method} is not allowed here`, { code: 'PIPE_METHOD_NOT_ALLOWED' });
    }
  } else if (ex.method === 'HEAD') {
    ex.isHead = true;
  }
  const route = candidates.length === 1 ? single(ex, candidates[0]!) : several(ex, candidates);
  ex.route = route;
  ex.resourceInfo = route.info;
  return undefined;
}

function single(ex: Exchange, route: RouteMethod): RouteMethod {
  if (route.consumes.length !== 0 && !consumable(ex, route)) {
    throw unsupported(ex);
  }
  if (route.produces.length !== 0) {
    const mt = negotiated(ex, route);
    if (mt === null) throw notAcceptable();
    ex.responseMediaType = mt;
  }
  return route;
}

function several(ex: Exchange, routes: readonly RouteMethod[]): RouteMethod {
  // Several methods for one verb: those whose @Consumes accepts the request (415 if none), then
  // the best by Accept (client q, then server qs, then distance) wins (JAX-RS 3.8). One pass,
  // no intermediate list.
  let anyConsumes = false;
  const accept = ex.acceptableMediaTypes;
  let best: RouteMethod | undefined;
  let bestNeg: Negotiation | undefined;
  for (const r of routes) {
    if (r.consumes.length !== 0 && !consumable(ex, r)) continue;
    anyConsumes = true;
    if (r.produces.length === 0) {
      if (best === undefined) best = r;
      continue;
    }
    const neg = negotiateDetailed(accept, r.produces);
    if (neg === undefined) continue;
    if (bestNeg === undefined || compareNegotiations(neg, bestNeg) < 0) {
      best = r;
      bestNeg = neg;
    }
  }
  if (!anyConsumes) {
    throw unsupported(ex);
  }
  if (best === undefined) throw notAcceptable();
  if (bestNeg !== undefined) ex.responseMediaType = bestNeg.mediaType;
  return best;
}

/** 415 for the request's Content-Type (Processing rules §5). */
function unsupported(ex: Exchange): NotSupportedError {
  return new NotSupportedError(`Content-Type ${truncate(ex.getHeader('content-type') ?? '')} is not supported`, {
    code: 'PIPE_UNSUPPORTED_MEDIA_TYPE',
  });
}

function consumable(ex: Exchange, route: RouteMethod): boolean {
  // A missing Content-Type matches any @Consumes (Processing rules §5); an unparsable one matches none.
  if (ex.headers['content-type'] === undefined) return true;
  const mt = ex.mediaType;
  if (mt === undefined) return false;
  // The usual request repeats the last accepted Content-Type: one identity check instead of
  // comparing the type names again (strings sliced from headers, compared by content).
  if (mt === route.consumed) return true;
  if (!consumes(mt, route.consumes)) return false;
  route.consumed = mt;
  return true;
}

const MAX_NEGOTIATION_CACHE = 64;

function negotiated(ex: Exchange, route: RouteMethod): MediaType | null {
  const raw = ex.headers.accept;
  const key = raw === undefined ? '' : Array.isArray(raw) ? raw.join(',') : raw;
  let mt = route.negotiated.get(key);
  if (mt === undefined) {
    mt = negotiate(ex.acceptableMediaTypes, route.produces) ?? null;
    if (route.negotiated.size < MAX_NEGOTIATION_CACHE) route.negotiated.set(key, mt);
  }
  return mt;
}
