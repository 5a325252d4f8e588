import type { ResourceInfo } from '../../core/context/resource-info.js';
import type { JsonSchema } from './decorators.js';
import { DEFAULT_ERROR_SCHEMA, type OpenApiOptions } from './options.js';
import {
  documentOperation,
  ERROR_RESPONSES,
  errorContent,
  headersObject,
  type DocumentedOperation,
  type OperationContext,
} from './operations.js';
import { SchemaRegistry } from './schemas.js';

/**
 * An OpenAPI 3.1 document as this generator writes it (a plain JSON value).
 * @example const doc: OpenApiDocument = buildOpenApi(app, { info: { title: 'Users', version: '1' } });
 */
export interface OpenApiDocument {
  readonly openapi: string;
  readonly info: Readonly<Record<string, unknown>>;
  readonly servers?: ReadonlyArray<Readonly<Record<string, unknown>>>;
  readonly tags?: ReadonlyArray<{ readonly name: string; readonly description?: string }>;
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly components: Readonly<Record<string, unknown>>;
}

/**
 * RFC 9457 problem details as `problemDetailsErrorBody` writes them: `type`, `title`, `status`,
 * `detail` (4xx), `instance`, and the extension members `code` and `errors` (the violations).
 */
const PROBLEM_DETAILS_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['type', 'title', 'status'],
  properties: {
    type: {
      type: 'string',
      format: 'uri-reference',
      description: 'A URI reference identifying the problem type (about:blank: the status says it all)',
    },
    title: { type: 'string', description: 'The status reason phrase' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string', description: 'What went wrong (client errors only)' },
    instance: { type: 'string', format: 'uri-reference', description: 'The request path' },
    code: { type: 'string', description: 'A stable error code' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['field', 'message'],
        properties: { field: { type: 'string' }, message: { type: 'string' }, value: {} },
      },
    },
  },
};

/**
 * The OpenAPI version written; OpenAPI 3.1 uses JSON Schema 2020-12 for its schemas.
 * @example buildOpenApi(app, options).openapi === OPENAPI_VERSION; // '3.1.1'
 */
export const OPENAPI_VERSION = '3.1.1';

/** HTTP methods a Path Item can hold (OpenAPI 3.1 §4.8.9); other extension methods cannot be documented. */
const PATH_ITEM_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/**
 * Collects the operations of one application while it is built (one call per resource method and
 * HTTP method, from the DynamicFeature pass, so exactly the routes the build made), and assembles
 * the document.
 */
export class DocumentBuilder {
  private readonly ctx: OperationContext;
  private readonly operations: DocumentedOperation[] = [];

  /** `errorFormat`: the application's (FeatureContext `configuration`), so error responses say what is written. */
  constructor(
    private readonly options: OpenApiOptions,
    errorFormat: 'json' | 'problem' | 'negotiate' = 'json',
  ) {
    const registry = new SchemaRegistry();
    // Registered first: the error body keeps the name `Error`, whatever the application's classes are called.
    for (const [name, schema] of Object.entries(options.schemas ?? {})) registry.components[name] = { ...schema };
    const e = options.errorSchema ?? DEFAULT_ERROR_SCHEMA;
    let errorRef: JsonSchema;
    if (typeof e === 'function') {
      errorRef = registry.ref(e);
    } else {
      if (Object.hasOwn(registry.components, 'Error'))
        throw new TypeError("OpenApiFeature: option schemas may not define 'Error': give errorSchema instead");
      registry.components.Error = { ...e };
      errorRef = { $ref: '#/components/schemas/Error' };
    }
    let problem: OperationContext['problem'];
    if (errorFormat !== 'json') {
      // An application whose problemBody adds members may describe them under `schemas.ProblemDetails`.
      if (!Object.hasOwn(registry.components, 'ProblemDetails')) registry.components.ProblemDetails = { ...PROBLEM_DETAILS_SCHEMA };
      problem = { format: errorFormat, ref: { $ref: '#/components/schemas/ProblemDetails' } };
    }
    this.ctx = {
      options,
      registry,
      operationIds: new Set(),
      locators: new Map(),
      scanned: new Set(),
      errors: new Set(),
      errorRef,
      problem,
    };
  }

  /** Documents one resource method for one HTTP method (a start-up error surfaces from here, at `build()`). */
  add(info: ResourceInfo): void {
    if (!PATH_ITEM_METHODS.has(info.httpMethod.toLowerCase())) return;
    const op = documentOperation(info, this.ctx);
    if (op !== undefined) this.operations.push(op);
  }

  /**
   * The document of an application whose base path is `basePath` (undefined for the root): with
   * the `servers` option the paths carry the base path; without, the one server is the base path
   * as a relative URL and the paths are relative to it (OpenAPI 3.1 §4.8.8.1).
   */
  document(basePath: string | undefined): OpenApiDocument {
    const paths: Record<string, Record<string, unknown>> = {};
    const tags: string[] = [];
    const servers = this.options.servers ?? [{ url: basePath ?? '/' }];
    const prefix = this.options.servers === undefined ? undefined : basePath;
    for (const op of this.operations) {
      const key = prefix === undefined ? op.path : op.path === '/' ? prefix : prefix + op.path;
      const item = (paths[key] ??= {});
      item[op.method] = op.operation;
      for (const t of op.operation.tags as string[]) if (!tags.includes(t)) tags.push(t);
    }
    if (this.options.automaticMethods === true) for (const item of Object.values(paths)) addAutomatic(item);
    const components: Record<string, unknown> = { schemas: this.ctx.registry.components };
    const responses: Record<string, unknown> = {};
    const mediaType = this.options.errorMediaType ?? 'application/json';
    for (const [status, name] of ERROR_RESPONSES) {
      if (!this.ctx.errors.has(status)) continue;
      const own: Record<string, string> = {};
      if (status === 401) own['WWW-Authenticate'] = 'The authentication scheme to use (RFC 9110 §11.6.1)';
      if (status === 503) own['Retry-After'] = 'Seconds to wait before retrying';
      const headers = headersObject(this.options.headers, own);
      responses[name] = {
        description: ERROR_DESCRIPTIONS[status],
        ...(headers === undefined ? {} : { headers }),
        content: errorContent([mediaType], this.ctx),
      };
    }
    if (Object.keys(responses).length > 0) components.responses = responses;
    if (this.options.securitySchemes !== undefined) components.securitySchemes = this.options.securitySchemes;
    return {
      openapi: OPENAPI_VERSION,
      info: this.options.info,
      servers,
      ...(tags.length === 0 ? {} : { tags: tags.map((name) => tagObject(name, this.options.tags)) }),
      paths,
      components,
    };
  }
}

/** A Tag Object, with the description the `tags` option gives it. */
function tagObject(name: string, descriptions: Readonly<Record<string, string>> | undefined): { name: string; description?: string } {
  const description = descriptions !== undefined && Object.hasOwn(descriptions, name) ? descriptions[name] : undefined;
  return description === undefined ? { name } : { name, description };
}

/** What the pipeline answers each error status for. */
const ERROR_DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: 'A parameter or the body does not convert or violates a constraint (`PIPE_PARAM_CONVERSION`, `PIPE_VALIDATION`, body errors)',
  401: 'No authenticated caller',
  403: 'The caller may not use this operation',
  404: 'Nothing at this path (an unknown id, a locator that found nothing)',
  406: 'The Accept header excludes every media type the operation produces',
  413: 'The body exceeds the size limit',
  415: 'The Content-Type is not one the operation consumes',
  500: 'An unexpected error (its cause is logged, never sent)',
  503: 'The deadline passed, or the application is shutting down',
};

/** The automatic HEAD of a GET (no content) and the automatic OPTIONS (its `Allow`), Processing rules §5. */
function addAutomatic(item: Record<string, unknown>): void {
  const get = item.get as Record<string, unknown> | undefined;
  if (get !== undefined && item.head === undefined) {
    const responses = Object.fromEntries(
      Object.entries(get.responses as Record<string, Record<string, unknown>>).map(([s, r]) => {
        const { content: _content, ...rest } = r;
        return [s, rest];
      }),
    );
    item.head = { ...get, summary: `${String(get.summary)} (headers only)`, operationId: `${String(get.operationId)}_head`, responses };
  }
  if (item.options === undefined) {
    const first = Object.values(item)[0] as Record<string, unknown>;
    item.options = {
      tags: first.tags,
      summary: 'The methods of this path',
      ...(first.security === undefined ? {} : { security: [] }),
      operationId: `${String(first.operationId)}_options`,
      responses: { 200: { description: 'The methods of this path', headers: { Allow: { schema: { type: 'string' } } } } },
    };
  }
}
