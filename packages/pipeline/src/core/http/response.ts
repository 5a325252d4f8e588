import { headerName } from './header-name.js';

/** Outgoing headers: lower-case names, as passed to `ServerResponse.writeHead`. */
export type OutgoingHeaders = Record<string, string | number | string[]>;

/**
 * An HTTP response a resource method, filter or mapper can return (JAX-RS `Response`).
 * Build one with the fluent {@link ResponseBuilder}:
 * @example
 * return Response.created(`/api/users/${user.id}`).entity(user).build();
 */
export class Response {
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
    return new ResponseBuilder(201).location(location);
  }
  static accepted(entity?: unknown): ResponseBuilder {
    return new ResponseBuilder(202).entity(entity);
  }
  static noContent(): ResponseBuilder {
    return new ResponseBuilder(204);
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
  location(uri: string): this {
    return this.header('location', uri);
  }
  /** Sets `Content-Type`. */
  type(mediaType: string): this {
    return this.header('content-type', mediaType);
  }
  cookie(serialized: string): this {
    return this.addHeader('set-cookie', serialized);
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
