/**
 * The fluent client API (Jakarta REST 3.1 §5.6): `client.target(uri)` gives a {@link WebTarget}
 * (immutable: each method returns a new one), `request()` an {@link InvocationBuilder} that sets
 * headers and sends.
 */
import type { TypeToken } from '../core/context/contracts.js';
import type { ContainerRequestContext } from '../core/context/request-context.js';
import { headerName } from '../core/http/header-name.js';
import { UriBuilder } from '../core/model/resource-paths.js';
import { call } from './invoke.js';
import type { CallOptions } from './options.js';
import { eachValue, paramText } from './params.js';
import { setRangeHeaders, type ByteRangeRequest } from './range.js';
import type { ClientHeaders } from './request-context.js';
import type { ClientResponse, EntityOf } from './response.js';
import { entityResult } from './result.js';
import type { ClientState } from './state.js';

/**
 * An entity with its media type (JAX-RS `Entity`), for a request whose `Content-Type` is not the
 * writers' default for the value.
 * @example
 * await target.request().post(ClientEntity.of({ op: 'add' }, 'application/json-patch+json'));
 */
export class ClientEntity<T = unknown> {
  private constructor(
    readonly value: T,
    readonly mediaType: string,
    readonly type: TypeToken | undefined,
  ) {}

  /** `value` sent as `mediaType`; `type` chooses the writer (default: the value's class). */
  static of<T>(value: T, mediaType: string, type?: TypeToken): ClientEntity<T> {
    return new ClientEntity(value, mediaType, type);
  }

  /** `value` as `application/json`. */
  static json<T>(value: T): ClientEntity<T> {
    return new ClientEntity(value, 'application/json', undefined);
  }

  /** Fields as `application/x-www-form-urlencoded` (a list repeats the field). */
  static form(fields: Readonly<Record<string, string | readonly string[]>> | URLSearchParams): ClientEntity<URLSearchParams> {
    const params = new URLSearchParams();
    if (fields instanceof URLSearchParams) for (const [k, v] of fields) params.append(k, v);
    else for (const [k, v] of Object.entries(fields)) for (const one of typeof v === 'string' ? [v] : v) params.append(k, one);
    return new ClientEntity(params, 'application/x-www-form-urlencoded', URLSearchParams);
  }
}

/**
 * A resource URI to call (JAX-RS `WebTarget`): `path`, `queryParam` and `resolveTemplate` return
 * new targets; `request()` starts an invocation. Paths are URI templates (`users/{id}`); values
 * bound with `resolveTemplate` and query values are encoded whole.
 * @example
 * const user = await client.target('https://api.example.com').path('users/{id}').resolveTemplate('id', 7)
 *   .queryParam('fields', 'name', 'email').request('application/json').get(Object);
 */
export class WebTarget {
  /** @internal Targets come from `Client.target`. */
  constructor(
    private readonly state: ClientState,
    private readonly builder: UriBuilder,
    private readonly values: Readonly<Record<string, unknown>>,
  ) {}

  /** The URI, every template variable bound (throws naming one that is not). */
  getUri(): string {
    return this.builder.buildFromMap(this.values);
  }

  /** Appends a path (a template, joined with one `/`). */
  path(path: string): WebTarget {
    return new WebTarget(this.state, this.builder.clone().path(path), this.values);
  }

  /** Adds `name=value` for each value (arrays repeat it; undefined and null are skipped), encoded whole. */
  queryParam(name: string, ...values: unknown[]): WebTarget {
    const texts: string[] = [];
    for (const v of values) eachValue(v, (x) => paramText(x, `queryParam('${name}')`), texts);
    if (texts.length === 0) return this;
    const builder = this.builder.clone();
    const bound: Record<string, unknown> = { ...this.values };
    // Each value is bound through a template variable of its own, so it is encoded whole (a
    // literal `{`, `%` or `&` in it stays text); bound values only grow, so the count names a new one.
    for (const t of texts) {
      const variable = `__query${Object.keys(bound).length}`;
      builder.queryParam(name, `{${variable}}`);
      bound[variable] = t;
    }
    return new WebTarget(this.state, builder, bound);
  }

  /** Binds a template variable (its value encoded whole: `a/b` stays one segment). */
  resolveTemplate(name: string, value: unknown): WebTarget {
    return new WebTarget(this.state, this.builder, { ...this.values, [name]: paramText(value, `resolveTemplate('${name}')`) });
  }

  /** Binds several template variables. */
  resolveTemplates(values: Readonly<Record<string, unknown>>): WebTarget {
    const bound: Record<string, unknown> = { ...this.values };
    for (const [k, v] of Object.entries(values)) bound[k] = paramText(v, `resolveTemplates({ ${k} })`);
    return new WebTarget(this.state, this.builder, bound);
  }

  /** Starts a request, accepting `accept` media types (none: no `Accept` header). */
  request(...accept: string[]): InvocationBuilder {
    const b = new InvocationBuilder(this.state, this);
    return accept.length === 0 ? b : b.accept(...accept);
  }
}

/**
 * Headers and per-call settings of one request, then the method that sends it (JAX-RS
 * `Invocation.Builder`). Without a type the call resolves with the {@link ClientResponse}, whatever
 * its status; with one (`get(Type)`) it resolves with the entity, and error statuses throw
 * (`ResponseExceptionMapper`s, else `ClientResponseError`).
 * @example
 * const r = await target.request('application/json').header('x-trace', id).post({ name: 'Ada' });
 * const created = await target.request().post({ name: 'Ada' }, Object);
 */
export class InvocationBuilder {
  private readonly headerValues: ClientHeaders = {};
  private readonly callOptions: { -readonly [K in keyof CallOptions]: CallOptions[K] } = {};
  private cookies: string | undefined;

  /** @internal Builders come from `WebTarget.request`. */
  constructor(
    private readonly state: ClientState,
    private readonly target: WebTarget,
  ) {}

  /** Sets a header (a list: repeated lines; undefined removes it). */
  header(name: string, value: string | number | readonly string[] | undefined): this {
    const key = headerName(name);
    if (value === undefined) delete this.headerValues[key];
    else this.headerValues[key] = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : [...value];
    return this;
  }

  /** Sets several headers. */
  headers(values: Readonly<Record<string, string | readonly string[]>>): this {
    for (const [k, v] of Object.entries(values)) this.header(k, v);
    return this;
  }

  /** Adds a cookie (`Cookie: name=value`, the value percent-encoded). */
  cookie(name: string, value: string): this {
    const pair = `${name}=${encodeURIComponent(value)}`;
    this.cookies = this.cookies === undefined ? pair : `${this.cookies}; ${pair}`;
    return this;
  }

  /** The acceptable media types (`Accept`). */
  accept(...mediaTypes: string[]): this {
    return this.header('accept', mediaTypes.join(', '));
  }

  /** Aborts the call (and a body still being read) with the signal's reason. */
  signal(signal: AbortSignal): this {
    this.callOptions.signal = signal;
    return this;
  }

  /** This call's deadline in ms (replaces the client's). */
  deadline(ms: number): this {
    this.callOptions.deadline = ms;
    return this;
  }

  /** The server request this call is made for: its propagated headers are sent (see the `propagate` option). */
  propagateFrom(request: ContainerRequestContext): this {
    this.callOptions.request = request;
    return this;
  }

  /** The largest response body this call reads, in bytes. */
  maxResponseBytes(bytes: number): this {
    this.callOptions.maxResponseBytes = bytes;
    return this;
  }

  /**
   * Asks for a byte range (`Range`, and `If-Range` with `ifRange`; RFC 9110 §14): a 206 answer
   * says which bytes in `ClientResponse.contentRange`, a 200 carries the whole representation.
   * @throws TypeError for a negative or fractional offset, or `end` before `start`.
   * @example const part = await client.target(url).request().range({ start: 0, end: 1023 }).get();
   */
  range(range: ByteRangeRequest): this {
    setRangeHeaders(this.headerValues, range);
    return this;
  }

  /** GET: the response, or with `type` its entity. */
  get(): Promise<ClientResponse>;
  get<C extends TypeToken>(type: C): Promise<EntityOf<C>>;
  get(type?: TypeToken): Promise<unknown> {
    return this.method('GET', undefined, type as TypeToken);
  }

  /** HEAD: the response (no entity). */
  head(): Promise<ClientResponse> {
    return this.method('HEAD');
  }

  /** OPTIONS: the response. */
  options(): Promise<ClientResponse> {
    return this.method('OPTIONS');
  }

  /** DELETE: the response, or with `type` its entity. */
  delete(): Promise<ClientResponse>;
  delete<C extends TypeToken>(type: C): Promise<EntityOf<C>>;
  delete(type?: TypeToken): Promise<unknown> {
    return this.method('DELETE', undefined, type as TypeToken);
  }

  /** POST `entity` (a value, or a {@link ClientEntity} with its media type). */
  post(entity: unknown): Promise<ClientResponse>;
  post<C extends TypeToken>(entity: unknown, type: C): Promise<EntityOf<C>>;
  post(entity: unknown, type?: TypeToken): Promise<unknown> {
    return this.method('POST', entity, type as TypeToken);
  }

  /** PUT `entity`. */
  put(entity: unknown): Promise<ClientResponse>;
  put<C extends TypeToken>(entity: unknown, type: C): Promise<EntityOf<C>>;
  put(entity: unknown, type?: TypeToken): Promise<unknown> {
    return this.method('PUT', entity, type as TypeToken);
  }

  /** PATCH `entity`. */
  patch(entity: unknown): Promise<ClientResponse>;
  patch<C extends TypeToken>(entity: unknown, type: C): Promise<EntityOf<C>>;
  patch(entity: unknown, type?: TypeToken): Promise<unknown> {
    return this.method('PATCH', entity, type as TypeToken);
  }

  /** Any method, with an optional entity; with `type`, resolves with the entity. */
  method(name: string, entity?: unknown): Promise<ClientResponse>;
  method<C extends TypeToken>(name: string, entity: unknown, type: C): Promise<EntityOf<C>>;
  method(name: string, entity?: unknown, type?: TypeToken): Promise<unknown> {
    const state = this.state;
    state.used = true;
    const headers = state.headers();
    Object.assign(headers, this.headerValues);
    if (this.cookies !== undefined) headers.cookie = this.cookies;
    let value = entity;
    let entityType: TypeToken | undefined;
    if (entity instanceof ClientEntity) {
      value = entity.value;
      entityType = entity.type;
      headers['content-type'] = entity.mediaType;
    }
    const chains = state.providers.global;
    const input = {
      method: name.toUpperCase(),
      uri: this.target.getUri(),
      headers,
      entity: value,
      entityType,
      resourceInfo: undefined,
      chains,
      options: { ...this.callOptions },
    };
    if (type === undefined) return call(state, input, (r) => r);
    return call(state, input, (r) => entityResult(r, type, chains));
  }
}

/** A target for `uri`: absolute, or relative to the client's base URL. */
export function targetFor(state: ClientState, uri: string | URL | undefined): WebTarget {
  const text = uri === undefined ? undefined : typeof uri === 'string' ? uri : uri.href;
  if (text !== undefined && /^[A-Za-z][A-Za-z0-9+.-]*:/.test(text)) return new WebTarget(state, UriBuilder.fromUri(text), {});
  if (state.baseUrl === undefined) {
    throw new TypeError(
      `client.target(${JSON.stringify(text ?? '')}): a relative target needs the client's baseUrl option, or give an absolute URI`,
    );
  }
  const b = UriBuilder.fromUri(state.baseUrl);
  return new WebTarget(state, text === undefined || text === '' ? b : b.path(text), {});
}
