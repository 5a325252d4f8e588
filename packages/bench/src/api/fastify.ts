/**
 * The write-path workloads on Fastify 5 (see model.ts), idiomatic: JSON schemas for the body
 * (ajv) and for every answer (fast-json-stringify). ajv is configured as the other peers behave
 * (`allErrors`: every violation listed; `coerceTypes: false`: `"30"` is refused, not coerced),
 * where Fastify's defaults would list only the first violation and accept the string. A schema
 * error becomes the same 400 body as the hand-written server's (`errors: [{ field, message }]`).
 */
import Fastify, { type FastifyError } from 'fastify';
import { announce, exitOnSignal, portFromEnv } from '../common.js';
import { AGE, createUser, etagOf, FIRST_NAME, LAST_NAME, listedUser, listUsers, locationOf, type UserInput } from './model.js';

const inputSchema = {
  type: 'object',
  required: ['email', 'firstName', 'lastName', 'age'],
  properties: {
    email: { type: 'string', format: 'email' },
    firstName: { type: 'string', minLength: FIRST_NAME.min, maxLength: FIRST_NAME.max },
    lastName: { type: 'string', minLength: LAST_NAME.min, maxLength: LAST_NAME.max, pattern: '\\S' },
    age: { type: 'integer', minimum: AGE.min, maximum: AGE.max },
  },
} as const;

const listed = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    email: { type: 'string' },
    firstName: { type: 'string' },
    lastName: { type: 'string' },
    age: { type: 'integer' },
  },
} as const;

const created = { type: 'object', properties: { ...listed.properties, version: { type: 'integer' } } } as const;

const violations = {
  type: 'object',
  properties: {
    status: { type: 'integer' },
    error: { type: 'string' },
    errors: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } } },
  },
} as const;

const app = Fastify({
  logger: false,
  ajv: { customOptions: { allErrors: true, coerceTypes: false } },
});

/** ajv's errors as the shared 400 body: `body.<property>` (a missing one is named by `missingProperty`). */
app.setErrorHandler((err: FastifyError, _req, reply) => {
  if (err.validation !== undefined) {
    const errors = err.validation.map((v) => {
      const missing = (v.params as { missingProperty?: string }).missingProperty;
      const path = missing !== undefined ? `/${missing}` : v.instancePath;
      return { field: `body${path.replaceAll('/', '.')}`, message: v.message ?? 'is invalid' };
    });
    void reply.code(400).send({ status: 400, error: 'Bad Request', errors });
    return;
  }
  void reply.code(err.statusCode ?? 500).send({ status: err.statusCode ?? 500, error: err.message });
});

const createOpts = { schema: { body: inputSchema, response: { 201: created, 400: violations } } };
app.post<{ Body: UserInput }>('/api/users', createOpts, (req, reply) => {
  const user = createUser(req.body);
  void reply.code(201).header('location', locationOf(req.headers.host, user.id)).send(user);
});

app.post<{ Body: UserInput }>('/api/users/unchecked', { schema: { response: { 201: created } } }, (req, reply) => {
  const user = createUser(req.body);
  void reply.code(201).header('location', locationOf(req.headers.host, user.id)).send(user);
});

app.get('/api/users', { schema: { response: { 200: { type: 'array', items: listed } } } }, (_req, reply) => {
  void reply.send(listUsers());
});

app.get<{ Params: { id: string } }>('/api/users/:id', { schema: { response: { 200: listed } } }, (req, reply) => {
  const id = Number(req.params.id);
  if (!Number.isSafeInteger(id) || id < 1) {
    void reply.code(404).send({ status: 404, error: 'Not Found' });
    return;
  }
  const tag = etagOf(id);
  const inm = req.headers['if-none-match'];
  if (inm !== undefined && (inm === tag || inm === `W/${tag}` || inm === '*')) {
    void reply.code(304).header('etag', tag).send();
    return;
  }
  void reply.header('etag', tag).send(listedUser(id));
});

const address = await app.listen({ port: portFromEnv(), host: '127.0.0.1' });
announce(Number(new URL(address).port));
exitOnSignal(() => void app.close());
