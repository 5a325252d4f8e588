/**
 * The two `@PreMatching` filters of example 17. They run before matching, the only moment the
 * method, the URI and the headers may still change (JAX-RS 6.4; after it `setMethod` and
 * `setRequestUri` throw), so what they write decides which resource method the request finds.
 */
import {
  BadRequestError,
  PreMatching,
  Priorities,
  Priority,
  type ContainerRequestContext,
  type ContainerRequestFilter,
  type ContainerResponseContext,
  type ContainerResponseFilter,
} from '@jaxrs-node/pipeline';

/** The methods a POST may turn into. Upper case: the header is compared after `toUpperCase()`. */
export const OVERRIDABLE_METHODS: readonly string[] = ['PUT', 'PATCH', 'DELETE'];

/** The header clients send when a proxy or their HTTP library lets only GET and POST through. */
export const METHOD_OVERRIDE_HEADER = 'x-http-method-override';

/**
 * `X-HTTP-Method-Override` (the Google/Jersey convention): a POST carrying `X-HTTP-Method-Override:
 * DELETE` is matched and run as a DELETE.
 *
 * Decisions, each for safety rather than convenience:
 * - only a POST is overridden: on a GET the header is IGNORED, so a link, a crawler or an `<img>`
 *   (a cross-site GET) can never become a DELETE;
 * - only {@link OVERRIDABLE_METHODS}: anything else on a POST is REFUSED with 400 rather than
 *   ignored. Ignoring would run the POST the client did not ask for (a create instead of, say, a
 *   `TRACE` it should not get); refusing tells it plainly. GET/HEAD are not in the list because a
 *   POST's body has no meaning for them, and CONNECT/TRACE never belong to an application.
 *
 * Runs first among the pre-matching filters (AUTHENTICATION priority) so that anything after it,
 * pre-matching or not, sees the effective method.
 */
@PreMatching()
@Priority(Priorities.AUTHENTICATION)
export class MethodOverrideFilter implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    const wanted = ctx.getHeader(METHOD_OVERRIDE_HEADER);
    if (wanted === undefined || ctx.method !== 'POST') return;
    const method = wanted.trim().toUpperCase();
    if (!OVERRIDABLE_METHODS.includes(method)) {
      // A throw from a pre-matching filter is mapped once (here: the default 400 error body).
      throw new BadRequestError(`X-HTTP-Method-Override must be one of ${OVERRIDABLE_METHODS.join(', ')}`, {
        code: 'EXAMPLE_METHOD_OVERRIDE',
      });
    }
    ctx.setMethod(method);
  }
}

/** `Accept-Version` value → the path prefix of that API version (version 1 is unprefixed). */
export const VERSION_PREFIXES: Readonly<Record<string, string>> = { '1': '', '2': '/v2' };

/**
 * Header-based versioning mapped onto URI-based routing: `Accept-Version: 2` on `/items/7` is
 * rewritten to `/v2/items/7`, so a different resource class (`@Path('/v2/items')`) answers while
 * the client keeps one URL. Resources stay plain `@Path` classes, and `/v2/...` also works when
 * typed directly (handy with curl).
 *
 * An unknown version is a 400 rather than silently serving version 1: a client pinned to a
 * version that does not exist should find out now, not when the shapes differ.
 *
 * It is a response filter too (one class, two kinds): every answer depends on `Accept-Version`
 * now, and a shared cache that is not told so (`Vary`) would serve version 2 to a version-1 client.
 */
@PreMatching()
export class VersionRewriteFilter implements ContainerRequestFilter, ContainerResponseFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    const version = ctx.getHeader('accept-version')?.trim();
    if (version === undefined) return;
    // Own-property check: `Accept-Version: constructor` must not find Object.prototype's.
    const prefix = Object.hasOwn(VERSION_PREFIXES, version) ? VERSION_PREFIXES[version] : undefined;
    if (prefix === undefined) {
      throw new BadRequestError(`Accept-Version must be one of ${Object.keys(VERSION_PREFIXES).join(', ')}`, {
        code: 'EXAMPLE_UNKNOWN_VERSION',
      });
    }
    // requestUri keeps the query string, so `?q=` survives the rewrite; never prefix twice.
    if (prefix !== '' && !ctx.path.startsWith(`${prefix}/`)) ctx.setRequestUri(prefix + ctx.requestUri);
  }

  filterResponse(_req: ContainerRequestContext, res: ContainerResponseContext): void {
    res.addHeader('vary', 'Accept-Version');
  }
}
