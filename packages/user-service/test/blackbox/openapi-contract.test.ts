/**
 * The service's OpenAPI document against the service itself: `/openapi.json` is a valid OpenAPI
 * 3.1 document, and every response this suite receives, from every operation, has a documented
 * status, media type and (for JSON) a body matching the documented schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractOf, schemaTools, type Contract } from '../helpers/openapi-contract.js';
import { http, removeDir, startServer, type HttpResult, type RunningServer } from '../helpers/server.js';
import { filePart, multipartBody, BOUNDARY } from '../domain/files/uploads-multipart.js';

const ADMIN = `Basic ${Buffer.from('admin:password').toString('base64')}`;
const API_KEY = 'test-api-key-123';

describe('the OpenAPI contract (black box)', () => {
  let server: RunningServer;
  let contract: Contract;
  const failures: string[] = [];

  /** One request; its response is checked against the document. */
  async function call(method: string, path: string, init: { headers?: Record<string, string>; body?: unknown } = {}): Promise<HttpResult> {
    const res = await http(server.url, method, path, init);
    failures.push(...contract.problems(method, path, res));
    return res;
  }

  beforeAll(async () => {
    server = await startServer({ env: { AUTH_FAILURES_PER_MINUTE: '0' } });
    const doc = await http(server.url, 'GET', '/openapi.json');
    expect(doc.status).toBe(200);
    contract = await contractOf(doc.json());
  });
  afterAll(async () => {
    await server?.stop();
    if (server !== undefined) removeDir(server.dataDir);
  });

  it('serves a valid OpenAPI 3.1 document with the security schemes and the error body', async () => {
    expect(await (await schemaTools()).openApiProblems(contract.doc)).toEqual([]);
    expect(Object.keys(contract.doc.components.securitySchemes)).toEqual(['basic', 'bearer', 'apiKey']);
    expect(contract.doc.paths['/api/admin/users'].get.security).toEqual([{ basic: [] }]);
    const list = contract.doc.paths['/api/users'].get;
    expect(Object.keys(list.responses['200'].headers)).toEqual(
      expect.arrayContaining(['X-Request-Id', 'X-Rate-Limit-Limit', 'X-Rate-Limit-Remaining', 'X-Rate-Limit-Reset', 'X-Total-Count']),
    );
    expect(contract.doc.paths['/api/users/{id}'].get.responses['200'].headers.ETag).toBeDefined();
    expect(contract.doc.paths['/api/users'].post.responses['201'].headers.Location).toBeDefined();
  });

  it('is exact enough for generated clients: typed ids, request headers, error media types, tags, summaries', () => {
    type Param = { name: string; in: string; required: boolean; schema: Record<string, unknown> };
    type Op = { summary?: string; tags: string[]; security?: unknown[]; parameters?: Param[]; responses: Record<string, any> };
    const doc = contract.doc as { paths: Record<string, Record<string, Op>>; tags: Array<{ name: string; description?: string }> };
    const ops = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([m, op]) => ({ key: `${m} ${path}`, op })));
    const header = (op: Op, name: string): Param | undefined => op.parameters?.find((p) => p.in === 'header' && p.name === name);
    for (const { key, op } of ops) {
      expect(op.summary, key).toMatch(/^[A-Z]/);
      expect(header(op, 'X-API-Version')?.schema, key).toEqual({ type: 'string', enum: ['1'] });
      // User, order and job ids are integers from 1 (what the Id converter takes, what a job id spells).
      for (const p of op.parameters ?? [])
        if (p.in === 'path' && (p.name === 'id' || p.name === 'orderId') && !key.includes('/files/'))
          expect(p.schema, `${key} ${p.name}`).toEqual({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
      // Error bodies are JSON whatever the success type (the event stream, text/plain, XML, a file);
      // only a route producing another JSON type may also answer in it (the user schema's application/schema+json);
      // and problem details when Accept prefers them (errorFormat 'negotiate').
      for (const [status, r] of Object.entries(op.responses)) {
        if (Number(status) < 400 || r.content === undefined) continue;
        if (r.content['application/json']?.schema?.$ref !== '#/components/schemas/Error') continue; // a 503 health body, say
        const json = key === 'get /api/schema/user' ? ['application/schema+json', 'application/json'] : ['application/json'];
        expect(Object.keys(r.content), `${key} ${status}`).toEqual([...json, 'application/problem+json']);
        expect(r.content['application/problem+json'].schema, `${key} ${status}`).toEqual({ $ref: '#/components/schemas/ProblemDetails' });
      }
      expect(op.security === undefined ? 'none' : 'declared', key).toBe('declared');
    }
    const users = doc.paths['/api/users/{id}']!;
    expect(header(users.get!, 'If-None-Match')).toBeDefined();
    for (const m of ['put', 'patch', 'delete']) expect(header(users[m]!, 'If-Match'), m).toBeDefined();
    for (const [path, m] of [
      ['/api/users', 'post'],
      ['/api/users/{id}/orders', 'post'],
      ['/api/async/users', 'post'],
    ] as const)
      expect(header(doc.paths[path]![m]!, 'Idempotency-Key')?.schema, path).toMatchObject({ type: 'string', maxLength: 255 });
    expect(doc.paths['/api/users']!.get!.security).toEqual([]);
    expect(doc.paths['/api/large-data']!.get!.parameters!.find((p) => p.name === 'count')!.schema).toEqual({
      type: 'integer',
      minimum: 0,
      maximum: 1_000_000,
      default: 1000,
    });
    expect(doc.paths['/api/users/search']!.get!.responses['200'].content['application/json'].schema).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/User' },
    });
    expect(doc.paths['/api/async/users/jobs/{id}']!.get!.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Job',
    });
    const upload = doc.paths['/api/files/upload']!.post! as Op & { requestBody: { content: Record<string, any> } };
    expect(upload.requestBody.content['multipart/form-data'].encoding.file).toEqual({ contentType: 'application/octet-stream' });
    const used = new Set(ops.flatMap(({ op }) => op.tags));
    expect(new Set(doc.tags.map((t) => t.name))).toEqual(used);
    for (const t of doc.tags) expect(t.description, t.name).toBeTruthy();
  });

  it('users: list, page, search, create, read, conditional read, replace, patch, delete', async () => {
    expect((await call('GET', '/api/users')).status).toBe(200);
    expect((await call('GET', '/api/users?page=0&size=2&sort=id')).status).toBe(200);
    expect((await call('GET', '/api/users?size=0')).status).toBe(400);
    expect((await call('GET', '/api/users/search?email=example')).status).toBe(200);
    const user = { email: 'contract@example.com', firstName: 'Con', lastName: 'Tract', age: 30 };
    const created = await call('POST', '/api/users', { body: user });
    expect(created.status).toBe(201);
    const id = (created.json() as { id: number }).id;
    expect((await call('POST', '/api/users', { body: { email: 'nope' } })).status).toBe(400);
    expect((await call('POST', '/api/users', { headers: { 'content-type': 'text/plain' }, body: 'x' })).status).toBe(415);
    expect((await call('GET', '/api/users', { headers: { accept: 'text/csv' } })).status).toBe(406);
    expect((await call('POST', '/api/users/create', { body: { name: 'Vari Ant', email: 'variant@example.com' } })).status).toBe(201);
    const read = await call('GET', `/api/users/${id}`);
    expect(read.status).toBe(200);
    const tag = read.headers.etag as string;
    expect((await call('GET', `/api/users/${id}`, { headers: { 'if-none-match': tag } })).status).toBe(304);
    expect((await call('GET', '/api/users/999999')).status).toBe(404);
    expect((await call('GET', '/api/users/abc')).status).toBe(400);
    const replaced = await call('PUT', `/api/users/${id}`, {
      headers: { 'if-match': tag },
      body: { email: 'contract@example.com', firstName: 'Con', lastName: 'Tracted', age: 31 },
    });
    expect(replaced.status).toBe(200);
    expect((await call('PUT', `/api/users/${id}`, { headers: { 'if-match': tag }, body: { ...user, age: 50 } })).status).toBe(412);
    const patched = await call('PATCH', `/api/users/${id}`, {
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ age: 40 }),
    });
    expect(patched.status).toBe(200);
    expect((await call('DELETE', `/api/users/${id}`)).status).toBe(204);
  });

  it('orders of a user', async () => {
    const user = await call('POST', '/api/users', { body: { email: 'buyer@example.com', firstName: 'Buy', lastName: 'Er' } });
    const id = (user.json() as { id: number }).id;
    const order = await call('POST', `/api/users/${id}/orders`, { body: { items: [{ productId: 1, quantity: 2 }] } });
    expect(order.status).toBe(201);
    const orderId = (order.json() as { id: number }).id;
    expect((await call('GET', `/api/users/${id}/orders`)).status).toBe(200);
    expect((await call('GET', `/api/users/${id}/orders/${orderId}`)).status).toBe(200);
    expect((await call('PUT', `/api/users/${id}/orders/${orderId}/status`, { body: { status: 'PROCESSING' } })).status).toBe(200);
    expect((await call('PUT', `/api/users/${id}/orders/${orderId}/status`, { body: { status: 'PENDING' } })).status).toBe(409);
  });

  it('the three authentication schemes, with and without credentials', async () => {
    const login = await call('POST', '/api/auth/login', { body: { username: 'admin', password: 'password' } });
    expect(login.status).toBe(200);
    expect((await call('POST', '/api/auth/login', { body: { username: 'admin', password: 'wrong' } })).status).toBe(401);
    expect((await call('POST', '/api/auth/login', { body: { username: '' } })).status).toBe(400);
    const token = (login.json() as { accessToken: string }).accessToken;
    expect((await call('GET', '/api/protected/users', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await call('GET', '/api/protected/users')).status).toBe(401);
    expect((await call('GET', '/api/admin/users', { headers: { authorization: ADMIN } })).status).toBe(200);
    expect((await call('GET', '/api/admin/users')).status).toBe(401);
    expect((await call('GET', '/api/external/users', { headers: { 'x-api-key': API_KEY } })).status).toBe(200);
    expect((await call('GET', '/api/external/users', { headers: { 'x-api-key': 'wrong' } })).status).toBe(403);
  });

  it('the other endpoints', async () => {
    expect((await call('GET', '/api/health')).status).toBe(200);
    expect((await call('GET', '/api/health/live')).status).toBe(200);
    expect((await call('GET', '/api/health/ready')).status).toBe(200);
    expect((await call('GET', '/health')).status).toBe(200);
    expect((await call('GET', '/test')).status).toBe(200);
    expect((await call('GET', '/api/large-data?count=3')).status).toBe(200);
    // Documented as an integer, still read by the domain: empty is the default, anything else a 400 of its own.
    expect((await call('GET', '/api/large-data?count=')).status).toBe(200);
    const badCount = await call('GET', '/api/large-data?count=abc');
    expect(badCount.status).toBe(400);
    expect(badCount.json().message).toMatch(/count must be an integer/);
    expect((await call('GET', '/api/custom-data')).status).toBe(200);
    expect((await call('GET', '/api/schema/user')).status).toBe(200);
    expect((await call('GET', '/api/products/1')).status).toBe(200);
    expect((await call('GET', '/api/products/99999')).status).toBe(404);
    expect((await call('GET', '/api/xml/users/1')).status).toBe(200);
    const upload = await call('POST', '/api/files/upload', {
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      body: multipartBody([filePart('hello contract')]),
    });
    expect(upload.status).toBe(201);
    const fileId = (upload.json() as { id: string }).id;
    expect((await call('GET', `/api/files/${fileId}`)).status).toBe(200);
    expect((await call('GET', `/api/files/${fileId}/download`)).status).toBe(200);
    const job = await call('POST', '/api/async/users', { body: [{ email: 'async@example.com', firstName: 'A', lastName: 'Sync' }] });
    expect(job.status).toBe(202);
    expect((await call('GET', '/api/async/users/status')).status).toBe(200);
    const jobId = (job.json() as { id: string }).id;
    expect((await call('GET', `/api/async/users/jobs/${jobId}`)).status).toBe(200);
    // A job id is documented as an integer; one that is not is still the domain's 404.
    expect((await call('GET', '/api/async/users/jobs/abc')).status).toBe(404);
    expect((await call('GET', '/api/async/users/jobs/007')).status).toBe(404);
  });

  it('every response conformed, and every documented operation but the event streams was exercised', () => {
    expect(failures).toEqual([]);
    const documented = Object.entries(contract.doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, item]) =>
      Object.keys(item).map((m) => `${m} ${p}`),
    );
    expect(documented.filter((op) => !contract.seen.has(op))).toEqual([
      'get /api/async/users/jobs/{id}/events',
      'get /api/async/users/{jobId}/events',
    ]);
  });
});
