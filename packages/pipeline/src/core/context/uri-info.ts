import { BadRequestError } from '../http/errors.js';
import { lastValueMemo } from '../util/memo.js';
import type { ContainerRequestContext } from './request-context.js';
import { UriBuilder } from './uri-builder.js';
import { SERVER_ONLY, type ServerOnly } from './server-only.js';

/**
 * uri-host [":" port] (RFC 3986 §3.2.2-3.2.3): an IP literal (IPv6 with an optional `%25` zone,
 * or IPvFuture) or a non-empty reg-name of unreserved characters, sub-delims and %XX escapes
 * (`user_service`, `my~host`), then an optional port of at most five digits. What it never lets
 * through is what would change the meaning of a `Location` built from it: `/ ? # @`, spaces,
 * a bare `%`, and an empty host.
 */
const AUTHORITY =
  /^(?:\[[0-9A-Fa-f:.]+(?:%25(?:[A-Za-z0-9\-._~]|%[0-9A-Fa-f]{2})+)?\]|\[v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+)(?::\d{0,5})?$/;

/**
 * Is `host` a valid Host field value (uri-host [":" port], RFC 9112 §3.2, grammar above)?
 * Checked for every request before matching, so an invalid Host is a 400 before any method runs.
 * Clients send the same value on every request: the last answer is remembered.
 */
export const isValidHost: (host: string) => boolean = lastValueMemo((host) => AUTHORITY.test(host), 256);

/** 400 for an invalid Host header. */
export function invalidHost(): BadRequestError {
  return new BadRequestError('Invalid Host header', { code: 'PIPE_INVALID_HOST' });
}

/** JAX-RS `UriInfo`: the request URI and its parts, for `@Context() uri: UriInfo`. */
export class UriInfo implements ServerOnly {
  /** Injected by the server: a typed client leaves such a parameter out ({@link ServerOnly}). */
  declare readonly [SERVER_ONLY]: true;
  constructor(private readonly ctx: ContainerRequestContext) {}
  /** Raw request path (percent-encoded). */
  get path(): string {
    return this.ctx.path;
  }
  /** Path plus query as received. */
  get requestUri(): string {
    return this.ctx.requestUri;
  }
  /** Decoded path template variables. */
  get pathParameters(): Readonly<Record<string, string>> {
    return this.ctx.pathParams;
  }
  get queryParameters(): URLSearchParams {
    return this.ctx.query;
  }
  /**
   * The matched template, e.g. `/users/{id}`: relative to the application's base path
   * (`ApplicationOptions.basePath`), like `ResourceInfo.path`.
   */
  get matchedTemplate(): string | undefined {
    return this.ctx.resourceInfo?.path;
  }
  /**
   * Absolute base URI of the application from the Host header, including the application's base
   * path (`ApplicationOptions.basePath`) and without a trailing `/`: `http://127.0.0.1:8080`, or
   * `http://127.0.0.1:8080/api` with `basePath: '/api'` (Jakarta REST 3.1 §5.3.1 `getBaseUri`).
   * @throws BadRequestError (400) for an invalid Host header: never a `Location` built from one.
   */
  get baseUri(): string {
    return `${requestScheme(this.ctx)}://${this.authority()}${this.ctx.basePath}`;
  }
  /**
   * A {@link UriBuilder} seeded with {@link baseUri} (Jakarta REST `getBaseUriBuilder`).
   * @example Response.created(uri.baseUriBuilder().path(UserResource).path(UserResource, 'get').build(user.id))
   */
  baseUriBuilder(): UriBuilder {
    return UriBuilder.fromRequest(requestScheme(this.ctx), this.authority(), this.ctx.basePath);
  }
  /** A {@link UriBuilder} seeded with the absolute request URI, query included (`getRequestUriBuilder`). */
  requestUriBuilder(): UriBuilder {
    return UriBuilder.fromRequest(requestScheme(this.ctx), this.authority(), this.ctx.path, this.ctx.rawQuery);
  }
  /** A {@link UriBuilder} seeded with the absolute request path, without the query (`getAbsolutePathBuilder`). */
  absolutePathBuilder(): UriBuilder {
    return UriBuilder.fromRequest(requestScheme(this.ctx), this.authority(), this.ctx.path);
  }

  /**
   * The Host header, else HTTP/2's `:authority` (RFC 9113 §8.3.1; `listen()` copies it to Host,
   * the handler mounted on a server of your own may not), `localhost` without either.
   */
  private authority(): string {
    const authority = this.ctx.headers[':authority'];
    const host = this.ctx.getHeader('host') ?? (typeof authority === 'string' ? authority : 'localhost');
    // Refused before matching (lifecycle.ts), after pre-matching filters had their say; checked
    // again for a pre-matching filter or an error mapper that asks before (or for) that 400:
    // never build a Location from an invalid Host.
    if (!isValidHost(host)) throw invalidHost();
    return host;
  }
}

/** `https` on a TLS socket, `http` otherwise. */
export function requestScheme(ctx: ContainerRequestContext): 'http' | 'https' {
  return (ctx.raw.socket as { encrypted?: boolean } | undefined)?.encrypted === true ? 'https' : 'http';
}
