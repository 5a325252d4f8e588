import type { TypeToken } from '../core/context/contracts.js';
import type { ContainerRequestContext } from '../core/context/request-context.js';
import type { ResourceInfo } from '../core/context/resource-info.js';
import { headerName } from '../core/http/header-name.js';
import { parseMediaType, type MediaType } from '../core/http/media-type.js';
import { Response, type ResponseBuilder } from '../core/http/response.js';
import { listGet, listNames, listRemove, listSet } from '../core/util/property-list.js';

/** Request headers: lower-case names; a list is sent as repeated header lines. */
export type ClientHeaders = Record<string, string | string[]>;

/**
 * One outgoing request as client filters and interceptors see it (JAX-RS `ClientRequestContext`).
 * Request filters may change everything here; once they ran, the entity is written and the
 * request sent.
 * @example
 * filterClientRequest(request: ClientRequestContext) {
 *   if (request.resourceInfo?.hasBinding(Cached) && cache.has(request.uri)) {
 *     request.abortWith(Response.ok(cache.get(request.uri)).build());
 *   }
 * }
 */
export class ClientRequestContext {
  /** HTTP method, upper case. */
  method: string;
  /** The absolute request URI (query included). */
  uri: string;
  /** The request headers (lower-case names); change them freely in request filters. */
  readonly headers: ClientHeaders;
  /** The entity to send, `undefined` for none. */
  entity: unknown;
  /** Declared type of the entity, used to choose the writer (default: the entity's class). */
  entityType: TypeToken | undefined;
  /** The contract method being called (class, method, HTTP method, path, binding decorators); undefined for fluent calls. */
  readonly resourceInfo: ResourceInfo | undefined;
  /** The server request this call was made for, when one was given (see the client's `propagate` option). */
  readonly propagatedFrom: ContainerRequestContext | undefined;
  /** The response set by {@link abortWith}: the call ends with it and nothing is sent. */
  abortResponse: Response | undefined;
  private props: unknown[] | undefined;

  constructor(
    method: string,
    uri: string,
    headers: ClientHeaders,
    entity: unknown,
    entityType: TypeToken | undefined,
    resourceInfo: ResourceInfo | undefined,
    propagatedFrom: ContainerRequestContext | undefined,
  ) {
    this.method = method;
    this.uri = uri;
    this.headers = headers;
    this.entity = entity;
    this.entityType = entityType;
    this.resourceInfo = resourceInfo;
    this.propagatedFrom = propagatedFrom;
    this.abortResponse = undefined;
    this.props = undefined;
  }

  /** A header value; a list is joined with `, ` (RFC 9110 §5.3). */
  getHeader(name: string): string | undefined {
    const v = this.headers[headerName(name)];
    return Array.isArray(v) ? v.join(', ') : v;
  }

  /** Sets (a list: repeated lines) or, with `undefined`, removes a header. */
  setHeader(name: string, value: string | number | readonly string[] | undefined): void {
    const key = headerName(name);
    if (value === undefined) delete this.headers[key];
    else this.headers[key] = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : [...value];
  }

  /** The entity's media type (`Content-Type`), parsed; undefined when not set or unparsable. */
  get mediaType(): MediaType | undefined {
    const ct = this.getHeader('content-type');
    return ct === undefined ? undefined : parseMediaType(ct);
  }

  /**
   * Ends the call with `response` instead of sending the request (JAX-RS `abortWith`): later
   * request filters do not run, the response filters do, and the caller reads its entity as it
   * was given (no serialization).
   */
  abortWith(response: Response | ResponseBuilder): void {
    this.abortResponse = response instanceof Response ? response : response.build();
  }

  getProperty(name: string): unknown {
    return listGet(this.props, name);
  }

  setProperty(name: string, value: unknown): void {
    this.props = listSet(this.props, name, value);
  }

  removeProperty(name: string): void {
    listRemove(this.props, name);
  }

  get propertyNames(): string[] {
    return listNames(this.props);
  }
}
