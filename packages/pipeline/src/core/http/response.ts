import type { CacheControl } from './cache-control.js';
import { headerName } from './header-name.js';
import type { NewCookie } from './new-cookie.js';

/** The key of {@link Response}'s type-only entity mark. */
const ENTITY_TYPE: unique symbol = Symbol('jaxrs-node.entityType');

/** Outgoing headers: lower-case names, as passed to `ServerResponse.writeHead`. */
export type OutgoingHeaders = Record<string, string | number | string[]>;

/**
 * An HTTP response a resource method, filter or mapper can return (JAX-RS `Response`).
 * Build one with the fluent {@link ResponseBuilder}.
 *
 * `T` declares the entity of the method's successful answer for typed clients (a method declared
 * `create(...): Promise<Response<User>>` gives a client method resolving with `User`, and a
 * `ClientResponse<User>` from `responseProxy`). It is a statement about the contract only: any
 * built `Response` (a 304 from `evaluatePreconditions` too) can be returned as a `Response<T>`, and
 * `entity` stays `unknown` for filters and writers. Without it, `Response` is `Response<unknown>`.
 * @example
 * \@POST() create(body: NewUser): Response<User> {
 *   const user = this.users.add(body);
 *   return Response.created(`/api/users/${user.id}`).entity(user).build();
 * }
 */
export class Response<T = unknown> {
  /**
   * Carries `T` for the type checker only (declared: no value at run time). A method's parameter
   * types are compared both ways (method bivariance), so any `Response` is a `Response<T>` and a
   * `Response<User>` a `Response`, but a `Response<User>` is not a `Response<Order>`.
   */
  declare readonly [ENTITY_TYPE]?: { bivariant(entity: T): void }['bivariant'];
  status: number;
  entity: unknown;
  /** Lower-case header names. `content-type` is kept in sync with {@link Response.mediaType}. */
  headers: OutgoingHeaders;
  /** Declared type of the entity (JAX-RS `GenericType`); defaults to the entity's constructor. */
  entityType: unknown;

  constructor(status: number, entity?: unknown, headers?: OutgoingHeaders, entityType?: unknown) {
    this.status = status;
    this.entity = entity;
    this.headers = headers ?? {};
    this.entityType = entityType;
  }

  /** The `Content-Type` of the response, if one was chosen. */
  get mediaType(): string | undefined {
    const v = this.headers['content-type'];
    return v === undefined ? undefined : String(v);
  }

  /** Does the response carry an entity? (`null` and `undefined` mean no.) */
  hasEntity(): boolean {
    return this.entity !== undefined && this.entity !== null;
  }

  /** Replaces the entity object (filters may do this; they cannot touch the byte stream). */
  setEntity(entity: unknown, mediaType?: string, entityType?: unknown): void {
    this.entity = entity;
    this.entityType = entityType;
    if (mediaType !== undefined) this.headers['content-type'] = mediaType;
  }

  /** Sets (or with `undefined`, removes) a header. */
  setHeader(name: string, value: string | number | string[] | undefined): void {
    const key = headerName(name);
    if (value === undefined) delete this.headers[key];
    else this.headers[key] = value;
  }

  /** Appends a value to a possibly multi-valued header (`Vary`, `Set-Cookie`). */
  addHeader(name: string, value: string): void {
    const key = headerName(name);
    const prev = this.headers[key];
    if (prev === undefined) this.headers[key] = value;
    else this.headers[key] = Array.isArray(prev) ? [...prev, value] : [String(prev), value];
  }

  removeHeader(name: string): void {
    delete this.headers[headerName(name)];
  }

  /** Header value as a string (multi-valued headers are joined with `, `). */
  getHeader(name: string): string | undefined {
    const v = this.headers[headerName(name)];
    if (v === undefined) return undefined;
    return Array.isArray(v) ? v.join(', ') : String(v);
  }

  static status(status: number): ResponseBuilder {
    return new ResponseBuilder(status);
  }
  static ok(entity?: unknown, type?: string): ResponseBuilder {
    const b = new ResponseBuilder(200).entity(entity);
    return type === undefined ? b : b.type(type);
  }
  static created(location: string): ResponseBuilder {
    const b = new ResponseBuilder(201);
    // Headers in an object literal: one shape at once, where setting `location` was a keyed store
    // on an empty object (megamorphic: every response's headers go through it), issue 27.
    b.build().headers = { location: headerValue('location', location) };
    return b;
  }
  static accepted(entity?: unknown): ResponseBuilder {
    return new ResponseBuilder(202).entity(entity);
  }
  static noContent(): ResponseBuilder {
    return new ResponseBuilder(204);
  }
  /**
   * 304 Not Modified (RFC 9110 §15.4.5), with `ETag` when a tag is given. The pipeline never sends
   * a body or its Content-Type/Content-Length with a 304; it keeps Cache-Control, Content-Location,
   * Date, ETag, Expires, Vary and Last-Modified.
   * @example
   * return Response.notModified(tag).cacheControl(new CacheControl({ maxAge: 60 })).build();
   */
  static notModified(tag?: EntityTagLike | string): ResponseBuilder {
    const b = new ResponseBuilder(304);
    return tag === undefined ? b : b.tag(tag);
  }
  /** 303 See Other with `Location` (RFC 9110 §15.4.4): the client GETs `location` (after a POST, say). */
  static seeOther(location: string): ResponseBuilder {
    return new ResponseBuilder(303).location(location);
  }
  /** 307 Temporary Redirect with `Location` (RFC 9110 §15.4.8): same method and body, this time. */
  static temporaryRedirect(location: string): ResponseBuilder {
    return new ResponseBuilder(307).location(location);
  }
  /** 308 Permanent Redirect with `Location` (RFC 9110 §15.4.9): same method and body, from now on. */
  static permanentRedirect(location: string): ResponseBuilder {
    return new ResponseBuilder(308).location(location);
  }
  static notFound(): ResponseBuilder {
    return new ResponseBuilder(404);
  }
  static serverError(): ResponseBuilder {
    return new ResponseBuilder(500);
  }
  /** Start from a copy of an existing response. */
  static fromResponse(r: Response): ResponseBuilder {
    const b = new ResponseBuilder(r.status).entity(r.entity, r.entityType);
    for (const k in r.headers) b.header(k, r.headers[k]);
    return b;
  }
}

/** Fluent builder for {@link Response} (JAX-RS `Response.ResponseBuilder`). */
export class ResponseBuilder {
  private readonly r: Response;
  constructor(status: number) {
    this.r = new Response(status);
  }

  status(status: number): this {
    this.r.status = status;
    return this;
  }
  /** Sets the entity; `entityType` overrides the runtime type used to pick a writer. */
  entity(entity: unknown, entityType?: unknown): this {
    this.r.entity = entity;
    this.r.entityType = entityType;
    return this;
  }
  /** Sets (or with `undefined`, removes) a header; arrays give a multi-valued header. */
  header(name: string, value: string | number | string[] | undefined): this {
    this.r.setHeader(name, value);
    return this;
  }
  /** Appends a value to a possibly multi-valued header (e.g. `Set-Cookie`, `Vary`). */
  addHeader(name: string, value: string): this {
    this.r.addHeader(name, value);
    return this;
  }
  /** Sets `Location` (a URI reference, relative ones allowed: RFC 9110 §10.2.2). */
  location(uri: string): this {
    return this.header('location', headerValue('location', uri));
  }
  /** Sets `Content-Location` (RFC 9110 §8.7): the URI of the representation in this response. */
  contentLocation(uri: string): this {
    return this.header('content-location', headerValue('contentLocation', uri));
  }
  /**
   * Sets `ETag` (RFC 9110 §8.8.3; JAX-RS `tag`): an `EntityTag`, or a string, which is the opaque
   * value of a strong tag (`'v7'` gives `"v7"`) unless it is already a tag (`'W/"v7"'`).
   * `undefined` removes it.
   * @example
   * Response.ok(user).tag(new EntityTag(String(user.version)))
   */
  tag(tag: EntityTagLike | string | undefined): this {
    if (tag === undefined) return this.header('etag', undefined);
    if (typeof tag !== 'string') return this.header('etag', tag.toString());
    if (TAG.test(tag)) return this.header('etag', tag);
    if (!ETAGC.test(tag))
      throw new TypeError(`ResponseBuilder.tag: an entity tag may not contain '"', spaces or controls: ${JSON.stringify(tag)}`);
    return this.header('etag', `"${tag}"`);
  }
  /** Sets `Last-Modified` (RFC 9110 §8.8.2) from a Date; `undefined` removes it. */
  lastModified(date: Date | undefined): this {
    return this.header('last-modified', date === undefined ? undefined : httpDate('lastModified', date));
  }
  /** Sets `Expires` (RFC 9111 §5.3) from a Date; `undefined` removes it. `Cache-Control: max-age` wins over it. */
  expires(date: Date | undefined): this {
    return this.header('expires', date === undefined ? undefined : httpDate('expires', date));
  }
  /**
   * Sets `Cache-Control` (RFC 9111 §5.2; JAX-RS `cacheControl`); `undefined` removes it.
   * @example
   * Response.ok(doc).cacheControl(new CacheControl({ maxAge: 300, public: true }))
   */
  cacheControl(cacheControl: CacheControl | undefined): this {
    return this.header('cache-control', cacheControl === undefined ? undefined : cacheControl.toString());
  }
  /** Sets `Allow` (RFC 9110 §10.2.1) to these methods (an empty list says none is allowed). */
  allow(...methods: string[]): this {
    for (const m of methods) {
      if (!TOKEN.test(m)) throw new TypeError(`ResponseBuilder.allow: ${JSON.stringify(m)} is not a method name (a token)`);
    }
    return this.header('allow', [...new Set(methods)].join(', '));
  }
  /** Sets `Content-Language` (RFC 9110 §8.5), e.g. `'en'`, `'de-CH'`; `undefined` removes it. */
  language(language: string | undefined): this {
    return this.header('content-language', language === undefined ? undefined : headerValue('language', language));
  }
  /**
   * Sets `Content-Encoding` (RFC 9110 §8.4) of an entity that is already encoded (the gzip
   * interceptor then leaves it alone); `undefined` removes it.
   */
  encoding(encoding: string | undefined): this {
    return this.header('content-encoding', encoding === undefined ? undefined : headerValue('encoding', encoding));
  }
  /** Sets `Content-Type`. */
  type(mediaType: string): this {
    return this.header('content-type', mediaType);
  }
  /**
   * Adds `Set-Cookie` headers (RFC 6265 §4.1), one per cookie: a `NewCookie`, or a string already
   * in the header's form.
   * @example
   * Response.ok().cookie(new NewCookie('sid', id, { httpOnly: true, secure: true, sameSite: 'Lax' }))
   */
  cookie(...cookies: ReadonlyArray<NewCookie | string>): this {
    for (const c of cookies) this.addHeader('set-cookie', typeof c === 'string' ? headerValue('cookie', c) : c.toString());
    return this;
  }
  /** Adds `Link` header values (RFC 8288), one per link. */
  links(...links: ReadonlyArray<{ toString(): string }>): this {
    for (const l of links) this.addHeader('link', l.toString());
    return this;
  }
  build(): Response {
    return this.r;
  }
}

/** An entity tag as the builder takes it (`EntityTag`, whose module builds responses, so it is not imported here). */
export interface EntityTagLike {
  /** The header form: `"v"` or `W/"v"`. */
  toString(): string;
}

/** `etagc` of RFC 9110 §8.8.3, and a whole tag (the same rules as `EntityTag`). */
const ETAGC = /^[\x21\x23-\x7e\x80-\xff]*$/;
const TAG = /^(W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;
/** `token` of RFC 9110 §5.6.2 (a method name). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Does `value` hold a control character other than HTAB (not allowed in a field value, RFC 9110
 * §5.5)? A loop, not a RegExp: on the usual short value (a `Location` path) the expression's call
 * into the regular-expression engine cost more than the scan (about 280 instructions per
 * `Response.created`, issue 27's profile).
 */
function hasControl(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return true;
  }
  return false;
}

/** `value`, refused when it holds a CR, LF or other control (a header-injection attempt or a bug). */
function headerValue(member: string, value: string): string {
  if (hasControl(value)) {
    throw new TypeError(`ResponseBuilder.${member}: the value may not contain control characters: ${JSON.stringify(value)}`);
  }
  return value;
}

/** An IMF-fixdate (RFC 9110 §5.6.7) of a valid Date. */
function httpDate(member: string, date: Date): string {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) throw new TypeError(`ResponseBuilder.${member}: needs a valid Date`);
  return date.toUTCString();
}
