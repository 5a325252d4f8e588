/**
 * Relative `Location` and `Content-Location` values, made absolute when the response is written
 * (after the response filters): Jakarta REST 3.1 `ResponseBuilder.location` / `contentLocation`
 * resolve "a relative URI ... relative to the base URI of the application" (`UriInfo.getBaseUri`).
 */
import type { OutgoingHeaders } from '../http/response.js';
import { isValidHost, requestScheme } from '../context/uri-info.js';
import type { Exchange } from '../internal/exchange.js';

/** A URI with a scheme (RFC 3986 §3.1), or a network-path reference `//host/...` (§4.2): left as they are. */
const NOT_RELATIVE = /^(?:[A-Za-z][A-Za-z0-9+.-]*:|\/\/)/;

/**
 * Resolves the relative `Location` / `Content-Location` values of `headers` against the
 * application's base URI, `scheme://host` + base path + `/`: `users/7` and `/users/7` both become
 * `http://host/api/users/7` with `basePath: '/api'` (the base URI, not the server root, is what a
 * leading `/` is relative to, as in Jakarta REST). Absolute values are unchanged. Without a valid
 * Host header (absent, or one the pipeline refused with 400) the value becomes the absolute path
 * `/api/users/7`: a `Location` is never built from an invalid Host.
 */
export function resolveLocations(ex: Exchange, headers: OutgoingHeaders): void {
  const location = headers.location;
  if (typeof location === 'string') headers.location = resolve(ex, location);
  const contentLocation = headers['content-location'];
  if (typeof contentLocation === 'string') headers['content-location'] = resolve(ex, contentLocation);
}

function resolve(ex: Exchange, ref: string): string {
  let path: string;
  if (ref.charCodeAt(0) === 47 /* '/' */ && ref.charCodeAt(1) !== 47) {
    // The usual value (`Response.created('/users/7')`): an absolute path is neither a URI with a
    // scheme nor a network-path reference, so no expression runs, and without a base path it is
    // the path as it is (issue 27: the 201's Location).
    const base = ex.basePath;
    path = base === '' ? ref : base + ref;
  } else if (NOT_RELATIVE.test(ref)) return ref;
  else path = `${ex.basePath}/${ref}`;
  const host = ex.headers.host;
  return host === undefined || !isValidHost(host) ? path : `${requestScheme(ex)}://${host}${path}`;
}
