import { OpenApiFeature, type ApiResponseOptions, type JsonSchema, type OpenApiOptions } from '@jaxrs-node/pipeline';
import { USER_JSON_SCHEMA } from '../domain/users/schema.js';
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
/** What `GET`, `PUT` and `PATCH /api/users/{id}` answer: a User, or the variant shape for a user made by `POST /api/users/create`. */
const ANY_USER = { anyOf: [ref('User'), ref('VariantUser')] } as JsonSchema;
/** The lists and pages hold Users only: variant users are left out of them (domain/users/service.ts). */
const USERS: JsonSchema = { type: 'array', items: ref('User') };
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

/** Request headers the operations read through `evaluatePreconditions` (RFC 9110 §13.1) or the idempotency store. */
const IF_MATCH = {
  'If-Match': "Write only if the user's current ETag is one of these (else 412, RFC 9110 §13.1.1); without it the write goes ahead",
};
const IF_NONE_MATCH = { 'If-None-Match': "304 Not Modified when the user's current ETag is one of these (RFC 9110 §13.1.2)" };
/** What a file download states about its bytes (RFC 9110 §14.3, §8.8). */
const FILE_HEADERS = {
  'Accept-Ranges': '`bytes`: a Range request gets a 206 (RFC 9110 §14.3)',
  ETag: "The file's entity tag (strong: its size and modification time), for If-Range and If-None-Match",
  'Last-Modified': 'When the file was stored',
};
const IDEMPOTENCY_KEY = {
  'Idempotency-Key': {
    description:
      'Up to 255 visible ASCII characters; a retry with the same key and request gets the first answer again (Idempotent-Replayed: true), for 24 hours',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
  },
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
  properties: { id: { type: 'integer', minimum: 1 }, name: { type: 'string' }, email: { type: 'string' } },
};

const USER_PAGE: JsonSchema = {
  type: 'object',
  required: ['content', 'page', 'size', 'totalElements', 'totalPages'],
  properties: {
    content: USERS,
    page: { type: 'integer' },
    size: { type: 'integer' },
    totalElements: { type: 'integer' },
    totalPages: { type: 'integer' },
  },
};

/** An order as `toOrderRepresentation` (domain/orders/model.ts) writes it; amounts are decimal numbers. */
const ORDER_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'orderNumber', 'customer', 'items', 'totalAmount', 'status', 'createdAt'],
  properties: {
    id: { type: 'integer', minimum: 1 },
    orderNumber: { type: 'string', pattern: '^ORD-\\d+$' },
    customer: {
      type: 'object',
      required: ['id', 'email'],
      properties: { id: { type: 'integer', minimum: 1 }, email: { type: 'string' } },
    },
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['product', 'quantity', 'unitPrice', 'lineTotal'],
        properties: {
          product: {
            type: 'object',
            required: ['id', 'name', 'price'],
            properties: { id: { type: 'integer' }, name: { type: 'string' }, price: { type: 'number' } },
          },
          quantity: { type: 'integer', minimum: 1 },
          unitPrice: { type: 'number' },
          lineTotal: { type: 'number' },
        },
      },
    },
    totalAmount: { type: 'number' },
    status: { type: 'string', enum: ['PENDING', 'PROCESSING', 'COMPLETED'] },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

/** An asynchronous creation job (domain/jobs/model.ts `Job`), the body of its status resources. */
const JOB_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'status', 'total', 'processed', 'created', 'failed', 'submittedAt'],
  properties: {
    id: { type: 'integer', minimum: 1 },
    status: { type: 'string', enum: ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED'] },
    total: { type: 'integer', minimum: 0, description: 'Items submitted' },
    processed: { type: 'integer', minimum: 0, description: 'Items whose outcome is in created or failed' },
    created: { type: 'array', items: { type: 'integer', minimum: 1 }, description: 'Ids of the users created, in item order' },
    failed: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'errors'],
        properties: { index: { type: 'integer', minimum: 0, description: 'Position of the item' }, errors: { type: 'array', items: {} } },
      },
    },
    submittedAt: { type: 'string', format: 'date-time' },
    startedAt: { type: 'string', format: 'date-time' },
    completedAt: { type: 'string', format: 'date-time' },
    reason: { type: 'string', description: 'Why the job FAILED' },
  },
};

/** `GET /api/async/users/status` before any job ran (`NO_JOB_STATUS`): nothing is pending. */
const NO_JOB: JsonSchema = {
  type: 'object',
  required: ['status', 'total', 'processed'],
  properties: { status: { const: 'COMPLETED' }, total: { const: 0 }, processed: { const: 0 } },
};

/** The streamed body of `/api/large-data` (domain/large-data/stream.ts). */
const LARGE_DATA: JsonSchema = {
  type: 'object',
  required: ['items', 'count'],
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'value'],
        properties: { id: { type: 'integer', minimum: 1 }, name: { type: 'string' }, value: { type: 'number' } },
      },
    },
    count: { type: 'integer', minimum: 0, maximum: 1_000_000 },
  },
};

const HEALTH: JsonSchema = {
  type: 'object',
  required: ['status', 'users'],
  properties: {
    status: { type: 'string', enum: ['UP', 'DEGRADED'] },
    users: { type: 'integer', minimum: 0 },
    reason: { type: 'string', description: 'DEGRADED: why the last write failed (its errno)' },
    since: { type: 'string', description: 'DEGRADED: since when' },
  },
};

/** The job's event stream, at its path and at its deprecated first path. */
const JOB_EVENTS: Record<string, ApiResponseOptions> = {
  200: { type: { type: 'string' }, mediaTypes: ['text/event-stream'], description: 'progress events' },
  204: { description: 'The client has seen the end (Last-Event-ID)' },
};

/** The feature's options: exported for tests, which read the document the service serves. */
export const SERVICE_OPENAPI: OpenApiOptions = {
  info: {
    title: 'User service',
    version: '1.0.0',
    description: 'The reference server of @jaxrs-node/pipeline',
    license: { name: 'MIT', identifier: 'MIT' },
  },
  // Swagger UI at /docs when the operator installs swagger-ui-dist beside the service (looked up from this module upward).
  docsPath: '/docs',
  resolveFrom: import.meta.url,
  errorSchema: ERROR_SCHEMA,
  schemas: { User: userSchema as JsonSchema, VariantUser: VARIANT_USER_SCHEMA, Order: ORDER_SCHEMA, Job: JOB_SCHEMA },
  tags: {
    users: 'Create, read, update and delete users (JSON; one user also as XML)',
    orders: "A user's orders and their status",
    auth: 'Bearer tokens from a username and password',
    authenticated: 'The user list behind each authentication scheme',
    async: 'Creating many users in a background job, and following its progress',
    files: 'Uploading and downloading files',
    products: 'The product catalogue, from an upstream service',
    health: 'Whether the service takes writes',
    misc: 'Streaming, writer interceptors, the user JSON Schema and a plain-text endpoint',
  },
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
    'Referrer-Policy': 'no-referrer',
    'Content-Security-Policy': "frame-ancestors 'none' (the /docs page sends its own policy)",
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Resource-Policy': 'same-origin',
  },
  filters: [
    {
      // ApiVersionFilter refuses an X-API-Version other than 1; close() answers 503 while draining.
      requestHeaders: {
        'X-API-Version': {
          description: 'The API version the client speaks; absent means 1, any other value is a 400',
          schema: { type: 'string', enum: ['1'] },
        },
      },
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
        'RateLimit-Policy': 'The quota, draft-ietf-httpapi-ratelimit-headers-09: "default";q=<limit>;w=60',
        RateLimit: 'What is left of it: "default";r=<remaining>;t=<seconds until reset>',
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
      summary: 'List users, or one page of them',
      description: 'All users as a JSON array (at most 1000, by id); with page, size or sort, a page of them with X-Total-Count and Link.',
      responses: {
        200: {
          type: { oneOf: [USERS, USER_PAGE] },
          headers: { 'X-Total-Count': integer('Users in all pages (paged answers)'), Link: 'first, prev, next and last pages (RFC 8288)' },
        },
      },
    },
    'UsersResource.search': { summary: 'Search users by email', responses: { 200: { type: USERS } } },
    'UsersResource.create': {
      summary: 'Create a user',
      requestHeaders: IDEMPOTENCY_KEY,
      responses: { 201: { type: ref('User'), headers: { ...LOCATION, ...REPLAYED } }, 422: KEY_REUSED, 507: NO_SPACE },
    },
    'UsersResource.createVariant': {
      summary: 'Create a user from a name and an email',
      responses: { 201: { type: ref('VariantUser'), headers: LOCATION }, 507: NO_SPACE },
    },
    'UsersResource.get': {
      summary: 'Get a user',
      requestHeaders: IF_NONE_MATCH,
      responses: { 200: { type: ANY_USER, headers: ETAG }, 304: { description: 'Not Modified (If-None-Match)', headers: ETAG } },
    },
    'UsersResource.replace': {
      summary: 'Replace a user',
      requestHeaders: IF_MATCH,
      responses: { 200: { type: ANY_USER, headers: ETAG }, 412: PRECONDITION_FAILED, 507: NO_SPACE },
    },
    'UsersResource.patch': {
      summary: 'Update a user (JSON merge patch)',
      requestHeaders: IF_MATCH,
      responses: { 200: { type: ANY_USER, headers: ETAG }, 412: PRECONDITION_FAILED, 507: NO_SPACE },
    },
    'UsersResource.remove': {
      summary: 'Delete a user',
      requestHeaders: IF_MATCH,
      responses: { 204: {}, 412: PRECONDITION_FAILED, 507: NO_SPACE },
    },
    'UsersResource.listOrders': { summary: "List a user's orders", tags: ['orders'], responses: { 200: { type: [ref('Order')] } } },
    'UsersResource.createOrder': {
      summary: 'Place an order',
      tags: ['orders'],
      requestHeaders: IDEMPOTENCY_KEY,
      responses: { 201: { type: ref('Order'), headers: { ...LOCATION, ...REPLAYED } }, 422: KEY_REUSED, 507: NO_SPACE },
    },
    'UsersResource.getOrder': { summary: 'Get an order', tags: ['orders'], responses: { 200: { type: ref('Order') } } },
    'UsersResource.transition': {
      summary: "Change an order's status",
      tags: ['orders'],
      responses: { 200: { type: ref('Order') }, 409: CONFLICT, 507: NO_SPACE },
    },
    'AuthResource.login': {
      summary: 'Log in for a bearer token',
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
    'AdminUsersResource.list': { summary: 'List users (HTTP Basic, admin)', responses: { 200: { type: USERS } } },
    'ProtectedUsersResource.list': { summary: 'List users (bearer token)', responses: { 200: { type: USERS } } },
    'ExternalUsersResource.list': { summary: 'List users (API key)', responses: { 200: { type: USERS } } },
    'HealthResource.api': {
      summary: 'Health',
      responses: { 200: { type: HEALTH }, 503: { type: HEALTH, description: 'DEGRADED: the store cannot write' } },
    },
    'HealthResource.root': {
      summary: 'Health (root path)',
      responses: { 200: { type: HEALTH }, 503: { type: HEALTH, description: 'DEGRADED: the store cannot write' } },
    },
    'TestResource.text': { summary: 'Plain-text test endpoint' },
    'LargeDataResource.stream': {
      summary: 'Stream a large JSON document',
      responses: {
        200: { type: LARGE_DATA },
        429: error('Too many large-data downloads from this client at once', { 'Retry-After': 'Seconds to wait' }),
      },
    },
    'CustomDataResource.get': {
      summary: 'Data enriched by a writer interceptor',
      responses: {
        200: {
          type: {
            type: 'object',
            required: ['message', 'generatedAt'],
            properties: { message: { type: 'string' }, generatedAt: { type: 'string' }, customField: {} },
          },
        },
      },
    },
    'SchemaResource.get': { summary: 'The JSON Schema of a user', responses: { 200: { type: OBJECT } } },
    'ProductsResource.get': {
      summary: 'Get a product',
      responses: {
        200: { type: OBJECT },
        502: error('The product catalogue answered badly'),
        504: error('The product catalogue did not answer in time'),
      },
    },
    'XmlUsersResource.get': {
      summary: 'Get a user as XML',
      responses: { 200: { type: { type: 'string' }, mediaTypes: ['application/xml', 'text/xml'] } },
    },
    'FilesResource.upload': {
      summary: 'Upload a file',
      // FilesResource reads the parts itself (a MultipartBody, streamed to disk): its entity type cannot say which.
      requestBody: {
        type: {
          type: 'object',
          required: ['file'],
          properties: {
            file: { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream', description: 'The file' },
            description: { type: 'string', description: 'What the file is' },
          },
        },
        encoding: { file: 'application/octet-stream', description: 'text/plain' },
      },
      responses: { 201: { type: OBJECT, headers: LOCATION }, 507: error('No space left for the file') },
    },
    'FilesResource.metadata': { summary: "Get a file's metadata", responses: { 200: { type: OBJECT } } },
    'FilesResource.download': {
      summary: 'Download a file',
      requestHeaders: {
        Range: 'Only these bytes (RFC 9110 §14.2), e.g. `bytes=0-1023`, `bytes=1024-`, `bytes=-500`, or several: 206',
        'If-Range':
          "Serve the Range only if this ETag or Last-Modified is still the file's; otherwise 200 with all of it (RFC 9110 §13.1.5)",
        'If-None-Match': "304 Not Modified when the file's ETag is one of these (RFC 9110 §13.1.2)",
      },
      responses: {
        200: {
          type: { type: 'string', contentMediaType: 'application/octet-stream' },
          mediaTypes: ['application/octet-stream'],
          headers: { 'Content-Disposition': 'The file name (RFC 6266)', ...FILE_HEADERS },
        },
        206: {
          description: 'The bytes asked for with Range: one range, or several as multipart/byteranges',
          type: { type: 'string', contentMediaType: 'application/octet-stream' },
          mediaTypes: ['application/octet-stream', 'multipart/byteranges'],
          headers: {
            'Content-Range': 'Which bytes of how many (one range)',
            'Content-Disposition': 'The file name (RFC 6266)',
            ...FILE_HEADERS,
          },
        },
        304: { description: 'Not Modified (If-None-Match)', headers: { ETag: FILE_HEADERS.ETag } },
        416: error('No byte of the file is in the Range', { 'Content-Range': '`bytes */<size>`: the file has <size> bytes' }),
      },
    },
    'AsyncUsersResource.submit': {
      summary: 'Create users in a background job',
      requestHeaders: IDEMPOTENCY_KEY,
      responses: { 202: { type: ref('Job'), headers: { Location: 'The job', ...REPLAYED } }, 422: KEY_REUSED, 507: NO_SPACE },
    },
    'AsyncUsersResource.status': {
      summary: 'Status of the latest job',
      responses: { 200: { type: { anyOf: [ref('Job'), NO_JOB] } } },
    },
    'AsyncUsersResource.job': { summary: 'Get a job', responses: { 200: { type: ref('Job') } } },
    'AsyncUsersResource.events': { summary: "Follow a job's progress (server-sent events)", responses: JOB_EVENTS },
    'AsyncUsersResource.legacyEvents': { summary: "Follow a job's progress (deprecated path)", responses: JOB_EVENTS },
  },
};

/** The feature serving the document at `/openapi.json`. */
export function openApiFeature(): OpenApiFeature {
  return new OpenApiFeature(SERVICE_OPENAPI);
}
