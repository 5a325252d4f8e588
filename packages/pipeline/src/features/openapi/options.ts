import type { Constructor } from '../../core/context/contracts.js';
import type { ResourceInfo } from '../../core/context/resource-info.js';
import type { NameBindingDecorator } from '../../core/context/resource-info.js';
import type { ApiHeader, ApiOperationOptions, ApiResponseOptions, JsonSchema } from './decorators.js';

/**
 * Which operations a security scheme protects.
 * @example const rule: SecurityRule = { binding: RolesAllowed, schemes: ['bearer'] };
 */
export interface SecurityRule {
  /**
   * Operations carrying this name binding (on the method or its class). `RolesAllowed` follows
   * `RolesAllowedFeature`'s rules: a method-level `PermitAll` is public, `DenyAll` is forbidden.
   * Without `binding` and `when`, the rule covers every operation (a global authentication filter).
   */
  readonly binding?: NameBindingDecorator<never> | NameBindingDecorator<string[]>;
  /** Operations this predicate accepts (e.g. by path), alone or together with `binding`. */
  readonly when?: (info: ResourceInfo) => boolean;
  /** Names in `securitySchemes`; any one of them is enough (OpenAPI security requirement alternatives). */
  readonly schemes: readonly string[];
}

/**
 * What {@link OpenApiOptions.operations} can add to one operation (the decorators' options, for classes you do not edit).
 * @example const doc: OperationDoc = { summary: 'Delete a user', responses: { 204: {} } };
 */
export interface OperationDoc extends ApiOperationOptions {
  readonly responses?: Readonly<Record<string, ApiResponseOptions>>;
  readonly tags?: readonly string[];
  readonly hidden?: boolean;
}

/**
 * What a filter adds to the operations it covers (a rate limit's headers and its 429, say): with
 * `binding`, the operations carrying that name binding; without, every operation (a global filter).
 * @example const limits: FilterDoc = { binding: RateLimited, headers: { 'X-Rate-Limit-Remaining': 'Requests left' }, responses: { 429: {} } };
 */
export interface FilterDoc {
  readonly binding?: NameBindingDecorator<never> | NameBindingDecorator<string[]>;
  /** Headers on every response of those operations. */
  readonly headers?: Readonly<Record<string, ApiHeader | string>>;
  /** Responses of those operations, by status (an operation's own declaration of a status wins). */
  readonly responses?: Readonly<Record<string, ApiResponseOptions>>;
  /**
   * Request headers the filter reads on those operations (an API version, a tenant), documented
   * as header parameters of each; an operation's own `requestHeaders` of that name win.
   */
  readonly requestHeaders?: Readonly<Record<string, ApiHeader | string>>;
}

/**
 * Options of {@link OpenApiFeature} and {@link buildOpenApi}.
 * @example const options: OpenApiOptions = { info: { title: 'Users', version: '1.0.0' }, docsPath: false };
 */
export interface OpenApiOptions {
  /** The document's Info Object: `title` and `version` are required. */
  readonly info: { readonly title: string; readonly version: string; readonly [field: string]: unknown };
  /**
   * Server Objects, e.g. the public URL `[{ url: 'https://api.example.com' }]`; the paths then keep
   * the application's base path. Default: one relative server, the base path (`/api`, or `/` at the
   * root), which the paths are relative to (OpenAPI 3.1 §4.8.1: relative to the document's URL).
   */
  readonly servers?: ReadonlyArray<{ readonly url: string; readonly description?: string }>;
  /**
   * Descriptions of tags, by name: `{ users: 'Create, read, update and delete users' }`. Every tag
   * an operation uses is listed at the top level (default tag: the resource class's name).
   */
  readonly tags?: Readonly<Record<string, string>>;
  /** Where the document is served, under the application's base path; `false` serves none. Default `/openapi.json`. */
  readonly path?: string | false;
  /**
   * Where Swagger UI is served (under the base path) when the application has the optional
   * `swagger-ui-dist` package installed; `false` serves nothing. Default `/docs`.
   */
  readonly docsPath?: string | false;
  /**
   * Where the application's `swagger-ui-dist` is looked up from: a directory, or the
   * `import.meta.url` of one of its modules. Default `process.cwd()`.
   */
  readonly resolveFrom?: string | URL;
  /** Security Scheme Objects by name, e.g. `{ bearer: { type: 'http', scheme: 'bearer' } }`. */
  readonly securitySchemes?: Readonly<Record<string, JsonSchema>>;
  /** Which operations each scheme protects; protected operations also list 401 (and 403). */
  readonly security?: readonly SecurityRule[];
  /**
   * The application's error body (its `errorBody` option), once: a JSON Schema or a class with
   * constraint decorators. Default: the pipeline's `{ status, error, code, message?, errors? }`.
   */
  readonly errorSchema?: JsonSchema | Constructor;
  /** Media type of error bodies. Default `application/json`. */
  readonly errorMediaType?: string;
  /** Headers every response carries (set by global response filters), e.g. `X-Request-Id`. */
  readonly headers?: Readonly<Record<string, ApiHeader | string>>;
  /** What filters add to the operations they cover: headers and responses. */
  readonly filters?: readonly FilterDoc[];
  /** Schemas of your own for `components.schemas`, to refer to as `{ $ref: '#/components/schemas/Name' }`. */
  readonly schemas?: Readonly<Record<string, JsonSchema>>;
  /** Documentation by `'ClassName.method'`, merged over the decorators' (for classes you do not edit). */
  readonly operations?: Readonly<Record<string, OperationDoc>>;
  /** Also document the automatic HEAD (for GET) and OPTIONS methods. Default false. */
  readonly automaticMethods?: boolean;
}

const KEYS = new Set([
  'info',
  'servers',
  'tags',
  'path',
  'docsPath',
  'resolveFrom',
  'securitySchemes',
  'security',
  'errorSchema',
  'errorMediaType',
  'headers',
  'operations',
  'filters',
  'schemas',
  'automaticMethods',
]);

const SERVED_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;

function checkPath(value: unknown, option: string): void {
  if (value === false || value === undefined) return;
  if (typeof value !== 'string' || !SERVED_PATH.test(value) || value.includes('//') || (value.length > 1 && value.endsWith('/'))) {
    throw new TypeError(
      `OpenApiFeature: option ${option} must be a literal path such as '/openapi.json' (or false), got ${JSON.stringify(value)}`,
    );
  }
}

/** Checks the options at construction, naming the option and the fix. */
export function checkOptions(options: OpenApiOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError("OpenApiFeature: options must be an object like { info: { title: 'My API', version: '1.0.0' } }");
  }
  for (const key of Object.keys(options)) {
    if (!KEYS.has(key)) throw new TypeError(`OpenApiFeature: unknown option ${key}; the options are ${[...KEYS].join(', ')}`);
  }
  const info = options.info as { title?: unknown; version?: unknown } | undefined;
  if (typeof info?.title !== 'string' || typeof info.version !== 'string') {
    throw new TypeError("OpenApiFeature: option info needs a title and a version, e.g. { title: 'Users API', version: '1.0.0' }");
  }
  checkPath(options.path, 'path');
  checkPath(options.docsPath, 'docsPath');
  if (typeof options.path === 'string' && options.path === options.docsPath) {
    throw new TypeError('OpenApiFeature: options path and docsPath must differ');
  }
  if (options.path === false && typeof options.docsPath === 'string') {
    // The page loads the document from `path`: without it, every request to docsPath would be a 404.
    throw new TypeError(
      `OpenApiFeature: docsPath ${options.docsPath} shows the document served at path, but path is false: serve the document (leave path out or give one), or set docsPath: false`,
    );
  }
  const schemes = options.securitySchemes ?? {};
  for (const [i, rule] of (options.security ?? []).entries()) {
    if (!Array.isArray(rule.schemes) || rule.schemes.length === 0) {
      throw new TypeError(`OpenApiFeature: security[${i}] needs schemes, a list of names from securitySchemes`);
    }
    for (const name of rule.schemes) {
      if (!Object.hasOwn(schemes, name)) {
        throw new TypeError(`OpenApiFeature: security[${i}] names scheme '${String(name)}', which securitySchemes does not define`);
      }
    }
    if (rule.binding !== undefined && typeof rule.binding !== 'function') {
      throw new TypeError(`OpenApiFeature: security[${i}].binding must be a binding decorator made by NameBinding()`);
    }
    if (rule.when !== undefined && typeof rule.when !== 'function') {
      throw new TypeError(`OpenApiFeature: security[${i}].when must be a function of the ResourceInfo`);
    }
  }
  const from = options.resolveFrom;
  if (from !== undefined && typeof from !== 'string' && !(from instanceof URL)) {
    throw new TypeError('OpenApiFeature: option resolveFrom must be a directory or a module URL (import.meta.url)');
  }
  const e = options.errorSchema;
  if (e !== undefined && (e === null || (typeof e !== 'object' && typeof e !== 'function') || Array.isArray(e))) {
    throw new TypeError('OpenApiFeature: option errorSchema must be a JSON Schema object or a class with constraint decorators');
  }
  for (const [i, f] of (options.filters ?? []).entries()) {
    if (typeof f !== 'object' || f === null || (f.binding !== undefined && typeof f.binding !== 'function')) {
      throw new TypeError(
        `OpenApiFeature: filters[${i}] must be { binding?, headers?, requestHeaders?, responses? } with a binding made by NameBinding()`,
      );
    }
  }
  for (const [name, description] of Object.entries(options.tags ?? {})) {
    if (typeof description !== 'string')
      throw new TypeError(`OpenApiFeature: tags['${name}'] must be the tag's description (a string), got ${typeof description}`);
  }
  for (const [i, server] of (options.servers ?? []).entries()) {
    if (typeof server?.url !== 'string' || server.url === '')
      throw new TypeError(`OpenApiFeature: servers[${i}] needs a url, e.g. { url: 'https://api.example.com' } or { url: '/api' }`);
  }
  for (const name of Object.keys(options.schemas ?? {})) {
    if (!/^[A-Za-z0-9._-]+$/.test(name))
      throw new TypeError(`OpenApiFeature: schemas name '${name}' may hold only letters, digits, '.', '_' and '-'`);
  }
  for (const key of Object.keys(options.operations ?? {})) {
    if (!/^[^.]+\.[^.]+$/.test(key)) throw new TypeError(`OpenApiFeature: operations key '${key}' must be 'ClassName.method'`);
  }
}

/** The default error body (`defaultErrorBody` in application.ts), as a schema. */
export const DEFAULT_ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    status: { type: 'integer' },
    error: { type: 'string' },
    code: { type: 'string' },
    message: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: { field: { type: 'string' }, message: { type: 'string' }, value: {} },
        required: ['field', 'message'],
      },
    },
  },
  required: ['status', 'error', 'code'],
};
