import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { parseAccept, parseMediaType, type MediaType } from '../http/media-type.js';
import { Response, type ResponseBuilder } from '../http/response.js';
import type { ResourceInfo } from './resource-info.js';
import { ANONYMOUS, type SecurityContext } from './security-context.js';
import { evaluatePreconditions, type PreconditionState } from '../http/entity-tag.js';
import { headerName } from '../http/header-name.js';
import { paramsObject } from '../routing/router.js';
import { listGet, listNames, listRemove, listSet } from '../util/property-list.js';
import { SERVER_ONLY, type ServerOnly } from './server-only.js';
import { http2HasBody, isHttp2, responseCompleted } from './http-version.js';

/** Request phases; method/URI/headers may change only before matching (JAX-RS 6.4). */
export const Phase = { PreMatching: 0, PostMatching: 1, Responding: 2 } as const;
export type Phase = (typeof Phase)[keyof typeof Phase];

/**
 * The lazily created AbortController of a request, kept beside it rather than in a field: most
 * requests never ask for a signal, and the context's shape stays as small as the hot path wants.
 */
const abortControllers = new WeakMap<ContainerRequestContext, AbortController>();

/**
 * Did `error` come from the request's own signal (the client went away, or the deadline passed)?
 * True for the signal's reason itself and for an error caused by it (`timers/promises`, `fetch`
 * and undici reject with an AbortError whose `cause` is the reason): such a failure is expected,
 * not a bug to log.
 */
export function isAbortReason(ctx: ContainerRequestContext, error: unknown): boolean {
  const signal = abortControllers.get(ctx)?.signal;
  if (signal === undefined || !signal.aborted) return false;
  return error === signal.reason || (typeof error === 'object' && error !== null && (error as { cause?: unknown }).cause === signal.reason);
}

/**
 * The request as seen by filters, interceptors and resources (JAX-RS `ContainerRequestContext`).
 * One per request; every field is initialised in the constructor so V8 keeps one shape, and the
 * costly views (query, cookies, media types, properties) are built only when asked for.
 */
export class ContainerRequestContext implements ServerOnly {
  /** Injected by the server: a typed client leaves such a parameter out ({@link ServerOnly}). */
  declare readonly [SERVER_ONLY]: true;
  readonly raw: IncomingMessage;
  readonly rawResponse: ServerResponse;
  phase: Phase;
  private _method: string;
  private _path: string;
  private _rawQuery: string;
  private _headers: IncomingHttpHeaders;
  /** Names of the matched template's variables (set by matching; see {@link pathParam}). */
  pathNames: readonly string[];
  /** Decoded value of each of {@link pathNames}, in the same order. */
  pathValues: readonly string[];
  /** The matched resource method, set by matching (undefined before and on 404/405/415/406). */
  resourceInfo: ResourceInfo | undefined;
  /** Set by authentication filters; anonymous by default. */
  securityContext: SecurityContext;
  /** Set by `abortWith`. */
  abortResponse: Response | undefined;
  /** Negotiated response media type (set by matching when the method declares `@Produces`). */
  responseMediaType: MediaType | undefined;
  /** Names of the components that ran, when tracing is on. */
  trace: string[] | undefined;
  private _query: URLSearchParams | undefined;
  /** Properties as a flat `[name, value, name, value...]` list: a request has a handful, and a Map costs ~200 bytes. */
  private _props: unknown[] | undefined;
  private _cookies: Record<string, string> | undefined;
  private _mediaType: MediaType | null | undefined;

  constructor(req: IncomingMessage, res: ServerResponse, method: string, path: string, rawQuery: string, trace: boolean) {
    this.raw = req;
    this.rawResponse = res;
    this.phase = Phase.PreMatching;
    this._method = method;
    this._path = path;
    this._rawQuery = rawQuery;
    this._headers = req.headers;
    this.pathNames = NO_VALUES;
    this.pathValues = NO_VALUES;
    this.resourceInfo = undefined;
    this.securityContext = ANONYMOUS;
    this.abortResponse = undefined;
    this.responseMediaType = undefined;
    this.trace = trace ? [] : undefined;
    this._query = undefined;
    this._props = undefined;
    this._cookies = undefined;
    this._mediaType = undefined;
  }

  /**
   * Fires when the client goes away before the response is complete (an `AbortError`) or the
   * method's deadline passes (a `TimeoutError`, see `@Deadline`); hand it to what the method
   * awaits (`fetch`, undici, timers, streams) so abandoned work stops. Created on first use, so
   * a request that never asks for it pays nothing. Also injectable: `@Context() signal: AbortSignal`.
   */
  get signal(): AbortSignal {
    return this.abortController().signal;
  }

  /** Aborts {@link signal} with `reason` (the pipeline does this at a deadline). */
  abort(reason: unknown): void {
    this.abortController().abort(reason);
  }

  private abortController(): AbortController {
    let c = abortControllers.get(this);
    if (c !== undefined) return c;
    c = new AbortController();
    abortControllers.set(this, c);
    const res = this.rawResponse;
    const gone = (): void => {
      if (!responseCompleted(this.raw, res))
        c.abort(new DOMException('The client went away before the response was complete', 'AbortError'));
    };
    if (res.destroyed) gone();
    else res.once('close', gone);
    return c;
  }

  /** HTTP method (upper case). */
  get method(): string {
    return this._method;
  }
  /** Raw (percent-encoded) request path, without the query. */
  get path(): string {
    return this._path;
  }
  /**
   * The application's base path (`ApplicationOptions.basePath`, e.g. `/api`), `''` without one.
   * {@link path} includes it; resources match what follows it.
   */
  get basePath(): string {
    return '';
  }
  /** Raw query string without `?` (empty when none). */
  get rawQuery(): string {
    return this._rawQuery;
  }
  /** Request headers (lower-case names). */
  get headers(): IncomingHttpHeaders {
    return this._headers;
  }
  /** Request URI as received, path plus query. */
  get requestUri(): string {
    return this._rawQuery === '' ? this._path : `${this._path}?${this._rawQuery}`;
  }

  /** Changes the method; pre-matching filters only (e.g. `X-HTTP-Method-Override`). */
  setMethod(method: string): void {
    this.assertPreMatching('setMethod');
    this._method = method.toUpperCase();
  }

  /** Changes the request URI (path and query); pre-matching filters only. */
  setRequestUri(uri: string): void {
    this.assertPreMatching('setRequestUri');
    const q = uri.indexOf('?');
    this._path = q < 0 ? uri : uri.slice(0, q);
    this._rawQuery = q < 0 ? '' : uri.slice(q + 1);
    this._query = undefined;
  }

  /** Sets or removes a request header; pre-matching filters only. */
  setHeader(name: string, value: string | undefined): void {
    this.assertPreMatching('setHeader');
    if (this._headers === this.raw.headers) this._headers = { ...this.raw.headers };
    const key = headerName(name);
    if (value === undefined) delete this._headers[key];
    else this._headers[key] = value;
    if (key === 'content-type') this._mediaType = undefined;
  }

  /** The decoded value of a path template variable, or undefined (no such variable, or before matching). */
  pathParam(name: string): string | undefined {
    const names = this.pathNames;
    for (let i = 0; i < names.length; i++) if (names[i] === name) return this.pathValues[i];
    return undefined;
  }

  /** Every path template variable, decoded (a new object per call: the request path uses {@link pathParam}). */
  get pathParams(): Readonly<Record<string, string>> {
    return paramsObject(this.pathNames, this.pathValues);
  }

  /**
   * JAX-RS `Request.evaluatePreconditions`: the 304 or 412 to answer instead of running the
   * method, or undefined when the request may proceed (RFC 9110 §13.2.2 order; see entity-tag.ts).
   *
   * @example
   * const stop = ctx.evaluatePreconditions({ tag: new EntityTag(user.version) });
   * if (stop) return stop;
   */
  evaluatePreconditions(state: PreconditionState): Response | undefined {
    return evaluatePreconditions(this, state);
  }

  /** A header value; repeated headers are joined with `, ` (RFC 9110 §5.3). */
  getHeader(name: string): string | undefined {
    const v = this._headers[headerName(name)];
    return Array.isArray(v) ? v.join(', ') : v;
  }

  /** Parsed query parameters. */
  get query(): URLSearchParams {
    if (this._query === undefined) this._query = new URLSearchParams(this._rawQuery);
    return this._query;
  }

  /** Request `Content-Type`, parsed; undefined when absent; 415 when unparsable (Processing rules §5). */
  get mediaType(): MediaType | undefined {
    if (this._mediaType === undefined) {
      const ct = this._headers['content-type'];
      if (ct === undefined || ct === '') this._mediaType = null;
      else {
        const parsed = parseMediaType(ct);
        if (parsed === undefined) this._mediaType = null;
        else this._mediaType = parsed;
      }
    }
    return this._mediaType ?? undefined;
  }

  /** Accept header as a sorted list; `*\/*` when absent. */
  get acceptableMediaTypes(): readonly MediaType[] {
    const accept = this._headers.accept;
    return parseAccept(Array.isArray(accept) ? accept.join(',') : accept);
  }

  /** Cookies from the `Cookie` header (first occurrence of a name wins, RFC 6265 §5.4). */
  get cookies(): Readonly<Record<string, string>> {
    if (this._cookies === undefined) this._cookies = parseCookies(this._headers.cookie);
    return this._cookies;
  }

  /**
   * Does the request carry a body? On HTTP/1.1, Content-Length > 0 or Transfer-Encoding (RFC 9112
   * §6.3); on HTTP/2, a HEADERS frame without END_STREAM, with or without Content-Length (RFC 9113
   * §8.1), unless Content-Length says 0.
   */
  hasEntity(): boolean {
    const h = this._headers;
    if (h['transfer-encoding'] !== undefined) return true;
    const cl = h['content-length'];
    if (cl !== undefined) return cl !== '0';
    return isHttp2(this.raw) && http2HasBody(this.raw);
  }

  /** Socket address of the client. */
  get remoteAddress(): string | undefined {
    return this.raw.socket?.remoteAddress;
  }

  /**
   * Stops the request with this response (JAX-RS `abortWith`). Not an exception: the current filter
   * returns normally, later request filters and the method do not run, response filters do.
   */
  abortWith(response: Response | ResponseBuilder): void {
    this.abortResponse = response instanceof Response ? response : response.build();
  }

  getProperty(name: string): unknown {
    return listGet(this._props, name);
  }
  setProperty(name: string, value: unknown): void {
    this._props = listSet(this._props, name, value);
  }
  removeProperty(name: string): void {
    listRemove(this._props, name);
  }
  get propertyNames(): string[] {
    return listNames(this._props);
  }

  private assertPreMatching(what: string): void {
    if (this.phase !== Phase.PreMatching) {
      throw new Error(`${what}() is only allowed in a @PreMatching request filter (JAX-RS 6.4)`);
    }
  }
}

const NO_VALUES: readonly string[] = Object.freeze([]);

function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  if (header === undefined) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (name === '' || name in out) continue;
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    try {
      out[name] = decodeURIComponent(value);
    } catch {
      // Cookies set by other software on the domain often hold a raw '%' ("50%off"): keep the
      // value as sent (jshttp/cookie does the same) instead of failing every request carrying it.
      out[name] = value;
    }
  }
  return out;
}
