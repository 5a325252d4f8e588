import type { Constructor, TypeToken } from '../../core/context/contracts.js';

/**
 * A JSON Schema 2020-12 object as OpenAPI 3.1 uses it.
 * @example const money: JsonSchema = { type: 'string', pattern: '^\\d+\\.\\d{2}$' };
 */
export type JsonSchema = { [keyword: string]: unknown };

/**
 * A response header in an {@link ApiResponse}: its description and schema (default: a string).
 * @example const total: ApiHeader = { description: 'Items in all pages', schema: { type: 'integer' } };
 */
export interface ApiHeader {
  readonly description?: string;
  readonly schema?: JsonSchema;
  readonly required?: boolean;
}

/**
 * What {@link ApiResponse} declares about one status of a resource method.
 * @example const created: ApiResponseOptions = { type: User, headers: { Location: 'the new user' } };
 */
export interface ApiResponseOptions {
  /**
   * The entity's type: a class (documented from its constraint decorators), `[Class]` for an
   * array of it, `String`, `Number`, `Boolean`, or a JSON Schema object. Omit it for no body.
   */
  readonly type?: TypeToken | readonly [TypeToken] | JsonSchema;
  /** Default: the status's reason phrase. */
  readonly description?: string;
  /** Response headers by name, e.g. `{ Location: { description: 'the new user' } }`. */
  readonly headers?: Readonly<Record<string, ApiHeader | string>>;
  /** Media types of the body; default: the method's `@Produces`, else `application/json`. */
  readonly mediaTypes?: readonly string[];
}

/**
 * A request body documented by hand, for a method whose entity type says too little (a
 * `MultipartBody` read part by part, an `unknown` body checked by the domain).
 * @example const upload: ApiRequestBodyOptions = { type: { type: 'object', properties: { file: { type: 'string', format: 'binary' } } }, encoding: { file: 'application/octet-stream' } };
 */
export interface ApiRequestBodyOptions {
  /** The body's type, as {@link ApiResponseOptions.type}: a class, `[Class]`, a scalar constructor or a JSON Schema. */
  readonly type: TypeToken | readonly [TypeToken] | JsonSchema;
  readonly description?: string;
  /** Default: whether the method's entity is required (true without one). */
  readonly required?: boolean;
  /** Default: the method's `@Consumes`. */
  readonly mediaTypes?: readonly string[];
  /** Multipart bodies: each part's Content-Type by part name (OpenAPI 3.1 Encoding Object). */
  readonly encoding?: Readonly<Record<string, string>>;
}

/**
 * What {@link ApiOperation} declares.
 * @example const doc: ApiOperationOptions = { summary: 'One user', operationId: 'getUser' };
 */
export interface ApiOperationOptions {
  readonly summary?: string;
  readonly description?: string;
  /** Default `ClassName_method` (deduplicated with a numeric suffix). */
  readonly operationId?: string;
  readonly deprecated?: boolean;
  /**
   * Request headers the operation reads without a `@HeaderParam` (a filter or the method's
   * `ContainerRequestContext` does: `If-Match` for `evaluatePreconditions`, say), by name, as
   * header parameters. A name a `@HeaderParam` already documents (compared case-insensitively,
   * RFC 9110 §5.1) gets the description and keeps its converted schema.
   */
  readonly requestHeaders?: Readonly<Record<string, ApiHeader | string>>;
  /** The request body, replacing the one documented from the method's entity parameter. */
  readonly requestBody?: ApiRequestBodyOptions;
}

/** What the OpenAPI decorators recorded on a class or method. */
export interface ApiMeta {
  responses?: Map<number | 'default', ApiResponseOptions>;
  operation?: ApiOperationOptions;
  tags?: string[];
  hidden?: boolean;
}

// Keyed by constructor, then member ('' for the class itself); written at class definition,
// read once when the document is built.
const store = new WeakMap<object, Map<string, ApiMeta>>();
const elementTypes = new WeakMap<object, Map<string, TypeToken>>();
const typeSchemas = new WeakMap<object, JsonSchema>();

function metaOf(target: object, key: string | symbol | undefined): ApiMeta {
  const ctor = key === undefined ? target : (target as { constructor: object }).constructor;
  let members = store.get(ctor);
  if (members === undefined) store.set(ctor, (members = new Map()));
  const name = key === undefined ? '' : String(key);
  let meta = members.get(name);
  if (meta === undefined) members.set(name, (meta = {}));
  return meta;
}

/** The OpenAPI decorators of a method (`key`) or of the class (`''`), nearest class of the chain first. */
export function apiMeta(cls: Function, key: string): ApiMeta | undefined {
  for (let c: unknown = cls; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    const m = store.get(c)?.get(key);
    if (m !== undefined) return m;
  }
  return undefined;
}

/** The element type `@ArrayOf` declared for an array field of `cls` (or a superclass). */
export function arrayElementType(cls: Function, key: string): TypeToken | undefined {
  for (let c: unknown = cls; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    const t = elementTypes.get(c)?.get(key);
    if (t !== undefined) return t;
  }
  return undefined;
}

const VALID_STATUS = (s: unknown): boolean => s === 'default' || (Number.isInteger(s) && (s as number) >= 100 && (s as number) <= 599);

/**
 * Documents one response of a resource method (or of every method of a class): what TypeScript's
 * metadata cannot say, such as the status a `Response` carries, the type of a `Promise`'s value or
 * the headers set. The statuses the pipeline itself produces (400, 404, 406, 413, 415, 500) are
 * documented without it. Declaring any 2xx/3xx replaces the default success response.
 * @example
 * \@POST() \@ApiResponse(201, { type: User, headers: { Location: 'the new user' } })
 * create(body: CreateUser): Response { ... }
 * \@GET() \@ApiResponse(200, { type: [User], headers: { 'X-Total-Count': { schema: { type: 'integer' } } } })
 * async list(): Promise<User[]> { ... }
 */
export function ApiResponse(status: number | 'default', options: ApiResponseOptions = {}): ClassDecorator & MethodDecorator {
  if (!VALID_STATUS(status))
    throw new TypeError(`@ApiResponse(${String(status)}): the status must be an integer from 100 to 599 or 'default'`);
  if (typeof options !== 'object' || options === null) throw new TypeError(`@ApiResponse(${status}): options must be an object`);
  return ((target: object, key?: string | symbol) => {
    const meta = metaOf(target, key);
    // Decorators apply bottom-up: insert in front so the document lists them in source order.
    meta.responses = new Map([[status, options], ...(meta.responses ?? [])]);
  }) as ClassDecorator & MethodDecorator;
}

/**
 * Summary, description, operation id and deprecation of a resource method.
 * @example
 * \@GET('{id}') \@ApiOperation({ summary: 'One user', operationId: 'getUser' }) get(...) { ... }
 */
export function ApiOperation(options: ApiOperationOptions): MethodDecorator {
  const id = options.operationId;
  if (id !== undefined && (typeof id !== 'string' || id === ''))
    throw new TypeError('@ApiOperation(): operationId must be a non-empty string');
  return (target, key) => {
    metaOf(target, key).operation = options;
  };
}

/**
 * Tags grouping a class's (or one method's) operations; default: the class name.
 * @example
 * \@Path('/users') \@ApiTags('users') class UsersResource { ... }
 */
export function ApiTags(...tags: string[]): ClassDecorator & MethodDecorator {
  for (const t of tags) if (typeof t !== 'string' || t === '') throw new TypeError('@ApiTags(): tags must be non-empty strings');
  return ((target: object, key?: string | symbol) => {
    metaOf(target, key).tags = tags;
  }) as ClassDecorator & MethodDecorator;
}

/**
 * Leaves a resource class or method out of the OpenAPI document (it is still served).
 * @example
 * \@GET('debug') \@ApiHidden() debug() { ... }
 */
export function ApiHidden(): ClassDecorator & MethodDecorator {
  return ((target: object, key?: string | symbol) => {
    metaOf(target, key).hidden = true;
  }) as ClassDecorator & MethodDecorator;
}

/**
 * The element type of an array field, which TypeScript's metadata reduces to `Array`: a class
 * (documented from its decorators), `String`, `Number`, `Int`, `Boolean` or `Date`. Also makes an
 * otherwise undecorated field visible in the document. `@Valid(Type)` says the same for
 * validated arrays and needs no `@ArrayOf`.
 * @example
 * class Order { \@ArrayOf(String) tags!: string[]; \@Valid(Item) \@Size({ min: 1 }) items!: Item[]; }
 */
export function ArrayOf(type: TypeToken): PropertyDecorator {
  if (typeof type !== 'function') throw new TypeError('@ArrayOf(Type): Type must be a class or String, Number, Int, Boolean, Date');
  return (target, key) => {
    if (typeof key !== 'string') throw new TypeError('@ArrayOf(): only on string-named instance fields');
    const ctor = (target as { constructor: Constructor }).constructor;
    let fields = elementTypes.get(ctor);
    if (fields === undefined) elementTypes.set(ctor, (fields = new Map()));
    fields.set(key, type);
  };
}

/**
 * The schema of the values a type stands for, where TypeScript's metadata cannot say it: a
 * parameter converter (a class with a static `fromString` or `valueOf`, Jakarta REST §3.2) that
 * turns the text into a number, or a class whose JSON form is not its fields. Parameters typed
 * with it (`@PathParam('id', { type: Id })`) and fields declared with it are documented with this
 * schema instead of `string`; the parameter's own constraint decorators still add to it.
 * @example
 * \@ApiSchema({ type: 'integer', minimum: 1 })
 * class Id { static fromString(raw: string): number { ... } }
 */
export function ApiSchema(schema: JsonSchema): ClassDecorator {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw new TypeError('@ApiSchema(schema): schema must be a JSON Schema object such as { type: "integer", minimum: 1 }');
  return (target) => {
    typeSchemas.set(target, schema);
  };
}

/** The schema `@ApiSchema` gave `type` (or a superclass). */
export function declaredTypeSchema(type: unknown): JsonSchema | undefined {
  for (let c: unknown = type; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    const s = typeSchemas.get(c);
    if (s !== undefined) return { ...s };
  }
  return undefined;
}

/** Fields `@ArrayOf` made visible on `cls` itself (not its superclasses). */
export function ownArrayFields(cls: Function): readonly string[] {
  return [...(elementTypes.get(cls)?.keys() ?? [])];
}
