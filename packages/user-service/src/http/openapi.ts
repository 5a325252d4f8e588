import { OpenApiFeature, type ApiResponseOptions, type JsonSchema, type OpenApiOptions } from '@jaxrs-node/pipeline';
import { USER_JSON_SCHEMA } from '../domain/user-schema.js';
import { ApiKeyAuth, BasicAuth, BearerAuth, RateLimited } from './bindings.js';

/**
 * The service's OpenAPI 3.1 document (`GET /openapi.json`): the routes, parameters, media types,
 * the statuses the pipeline produces and the request bodies come from the resources themselves
 * (bodies from the entity classes of `entities/`, whose validation decorators the pipeline checks);
 * this module adds what their declarations cannot say (the resources return `Response`s): the
 * statuses and headers of each operation, the User schema the service already publishes
 * (`/api/schema/user`), the error body and the authentication schemes.
 */

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
/** A user as stored: the full User, or the variant resource's `{id, name, email}` (`POST /api/users/create`). */
const USER = { anyOf: [ref('User'), ref('VariantUser')] } as JsonSchema;
const ERROR = ref('Error');
const OBJECT: JsonSchema = { type: 'object' };
const integer = (description: string): { description: string; schema: JsonSchema } => ({ description, schema: { type: 'integer' } });

const ETAG = { ETag: "The user's version: send it in If-Match (writes) or If-None-Match (reads)" };
const LOCATION = { Location: 'The new resource' };
const error = (description: string, headers?: Record<string, string>): ApiResponseOptions => ({ type: ERROR, description, headers });
const PRECONDITION_FAILED = error('The record changed since the entity tag in If-Match');
const CONFLICT = error('The order cannot move to that status');
const NO_SPACE = error('The store cannot write (a full disk); reads still work');
const KEY_REUSED = error('The Idempotency-Key was used for a different request (method, path or body)');
const REPLAYED = {
  'Idempotent-Replayed': '`true` when this is the stored first answer to an earlier request with the same Idempotency-Key',
};

const { $schema: _schema, $id: _id, ...userSchema } = USER_JSON_SCHEMA;

/** The error body of `serviceErrorBody` (error-body.ts). */
const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['timestamp', 'status', 'error', 'message', 'path', 'errors'],
  properties: {
    timestamp: { type: 'string' },
    status: { type: 'integer' },
    error: { type: 'string' },
    message: { type: 'string' },
    path: { type: 'string' },
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

/** What `POST /api/users/create` stores and every read of that user answers. */
const VARIANT_USER_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'email'],
  properties: { id: { type: 'integer' }, name: { type: 'string' }, email: { type: 'string' } },
};

const USER_PAGE: JsonSchema = {
  type: 'object',
  required: ['content', 'page', 'size', 'totalElements', 'totalPages'],
  properties: {
    content: { type: 'array', items: USER },
    page: { type: 'integer' },
    size: { type: 'integer' },
    totalElements: { type: 'integer' },
    totalPages: { type: 'integer' },
  },
};

/** The job's event stream, at its path and at its deprecated first path. */
const JOB_EVENTS: Record<string, ApiResponseOptions> = {
  200: { type: { type: 'string' }, mediaTypes: ['text/event-stream'], description: 'progress events' },
  204: { description: 'The client has seen the end (Last-Event-ID)' },
};

/** The feature's options: exported for tests, which read the document the service serves. */
export const SERVICE_OPENAPI: OpenApiOptions = {
  info: { title: 'User service', version: '1.0.0', description: 'The reference server of @jaxrs-node/pipeline' },
  // Swagger UI at /docs when the operator installs swagger-ui-dist beside the service (looked up from this module upward).
  docsPath: '/docs',
  resolveFrom: import.meta.url,
  errorSchema: ERROR_SCHEMA,
  schemas: { User: userSchema as JsonSchema, VariantUser: VARIANT_USER_SCHEMA },
  securitySchemes: {
    basic: { type: 'http', scheme: 'basic' },
    bearer: { type: 'http', scheme: 'bearer', description: 'A token from POST /api/auth/login' },
    apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
  },
  security: [
    { binding: BasicAuth, schemes: ['basic'] },
    { binding: BearerAuth, schemes: ['bearer'] },
    { binding: ApiKeyAuth, schemes: ['apiKey'] },
  ],
  headers: {
    'X-Request-Id': "The request id (the client's X-Request-Id when it is a safe token)",
    'X-API-Version': 'The API version that answered',
    'X-Content-Type-Options': 'nosniff',
  },
  filters: [
    {
      // ApiVersionFilter refuses an X-API-Version other than 1; close() answers 503 while draining.
      responses: {
        400: error('Invalid input, or an unsupported X-API-Version'),
        503: error('Shutting down, or busy: retry later', { 'Retry-After': 'Seconds' }),
      },
    },
    {
      binding: RateLimited,
      headers: {
        'X-Rate-Limit-Limit': integer('Requests allowed per window'),
        'X-Rate-Limit-Remaining': integer('Requests left in this window'),
        'X-Rate-Limit-Reset': integer('Seconds until the window resets'),
      },
      responses: { 429: error('Over the rate limit', { 'Retry-After': 'Seconds to wait' }) },
    },
    ...[BasicAuth, BearerAuth, ApiKeyAuth].map((binding) => ({
      binding,
      responses: { 429: error('Too many failed authentications', { 'Retry-After': 'Seconds to wait' }) },
    })),
    { binding: ApiKeyAuth, responses: { 403: error('The API key is not valid') } },
  ],
  operations: {
    'UsersResource.list': {
      summary: 'All users (a JSON array), or a page of them with page, size or sort',
      responses: {
        200: {
          type: { oneOf: [{ type: 'array', items: USER }, USER_PAGE] },
          headers: { 'X-Total-Count': integer('Users in all pages (paged answers)'), Link: 'first, prev, next and last pages (RFC 8288)' },
        },
      },
    },
    'UsersResource.search': { responses: { 200: { type: { type: 'array', items: USER } } } },
    'UsersResource.create': { responses: { 201: { type: USER, headers: { ...LOCATION, ...REPLAYED } }, 422: KEY_REUSED, 507: NO_SPACE } },
    'UsersResource.createVariant': { responses: { 201: { type: OBJECT, headers: LOCATION }, 507: NO_SPACE } },
    'UsersResource.get': {
      responses: { 200: { type: USER, headers: ETAG }, 304: { description: 'Not Modified (If-None-Match)', headers: ETAG } },
    },
    'UsersResource.replace': {
      responses: { 200: { type: USER, headers: ETAG }, 412: PRECONDITION_FAILED, 507: NO_SPACE },
    },
    'UsersResource.patch': {
      responses: { 200: { type: USER, headers: ETAG }, 412: PRECONDITION_FAILED, 507: NO_SPACE },
    },
    'UsersResource.remove': { responses: { 204: {}, 412: PRECONDITION_FAILED, 507: NO_SPACE } },
    'UsersResource.listOrders': { responses: { 200: { type: { type: 'array', items: OBJECT } } } },
    'UsersResource.createOrder': {
      responses: { 201: { type: OBJECT, headers: { ...LOCATION, ...REPLAYED } }, 422: KEY_REUSED, 507: NO_SPACE },
    },
    'UsersResource.getOrder': { responses: { 200: { type: OBJECT } } },
    'UsersResource.transition': { responses: { 200: { type: OBJECT }, 409: CONFLICT, 507: NO_SPACE } },
    'AuthResource.login': {
      responses: {
        200: {
          type: {
            type: 'object',
            required: ['accessToken', 'tokenType', 'expiresIn'],
            properties: { accessToken: { type: 'string' }, tokenType: { const: 'Bearer' }, expiresIn: { type: 'integer' } },
          },
        },
        401: error('Wrong username or password'),
      },
    },
    'AdminUsersResource.list': { responses: { 200: { type: { type: 'array', items: USER } } } },
    'ProtectedUsersResource.list': { responses: { 200: { type: { type: 'array', items: USER } } } },
    'ExternalUsersResource.list': { responses: { 200: { type: { type: 'array', items: USER } } } },
    'HealthResource.api': { responses: { 200: { type: OBJECT }, 503: { type: OBJECT, description: 'DEGRADED: the store cannot write' } } },
    'HealthResource.root': { responses: { 200: { type: OBJECT }, 503: { type: OBJECT, description: 'DEGRADED: the store cannot write' } } },
    'LargeDataResource.stream': {
      responses: {
        200: { type: { type: 'object', required: ['items', 'count'] } },
        429: error('Too many large-data downloads from this client at once', { 'Retry-After': 'Seconds to wait' }),
      },
    },
    'CustomDataResource.get': { responses: { 200: { type: OBJECT } } },
    'SchemaResource.get': { responses: { 200: { type: OBJECT } } },
    'ProductsResource.get': {
      responses: {
        200: { type: OBJECT },
        502: error('The product catalogue answered badly'),
        504: error('The product catalogue did not answer in time'),
      },
    },
    'XmlUsersResource.get': {
      responses: {
        200: { type: { type: 'string' }, mediaTypes: ['application/xml', 'text/xml'] },
        400: { ...error('The id is not a positive integer'), mediaTypes: ['application/json'] },
      },
    },
    'FilesResource.upload': { responses: { 201: { type: OBJECT, headers: LOCATION }, 507: error('No space left for the file') } },
    'FilesResource.metadata': { responses: { 200: { type: OBJECT } } },
    'FilesResource.download': {
      responses: {
        200: {
          type: { type: 'string' },
          mediaTypes: ['application/octet-stream'],
          headers: { 'Content-Disposition': 'The file name (RFC 6266)' },
        },
      },
    },
    'AsyncUsersResource.submit': {
      responses: { 202: { type: OBJECT, headers: { Location: 'The job', ...REPLAYED } }, 422: KEY_REUSED, 507: NO_SPACE },
    },
    'AsyncUsersResource.status': { responses: { 200: { type: OBJECT } } },
    'AsyncUsersResource.job': { responses: { 200: { type: OBJECT } } },
    'AsyncUsersResource.events': { responses: JOB_EVENTS },
    'AsyncUsersResource.legacyEvents': { responses: JOB_EVENTS },
  },
};

/** The feature serving the document at `/openapi.json`. */
export function openApiFeature(): OpenApiFeature {
  return new OpenApiFeature(SERVICE_OPENAPI);
}
