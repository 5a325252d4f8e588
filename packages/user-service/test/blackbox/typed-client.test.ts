/**
 * The service called through typed clients of `@jaxrs-node/pipeline/client` made from its own
 * resource classes (src/http/resources), against the BUILT service in a child process, with the
 * statuses and bodies the other black-box suites expect. Covered, per resource:
 * - UsersResource: list (array and page), search, get, create (201 + Location), createVariant,
 *   replace, patch, remove (204, then 404), listOrders, createOrder, getOrder, transition (200,
 *   then 409), a 400 naming the bad query parameter;
 * - ProductsResource: get (embedded catalogue), 404;
 * - AuthResource: login, 401 for bad credentials;
 * - AdminUsersResource, ProtectedUsersResource, ExternalUsersResource: with credentials added by
 *   client filters bound to the same binding decorators (@BasicAuth, @BearerAuth, @ApiKeyAuth), and 401 without;
 * - HealthResource (both paths), TestResource (text), CustomDataResource, SchemaResource, LargeDataResource;
 * - XmlUsersResource: the XML representation, read as text;
 * - AsyncUsersResource: status, submit (202 + Location), job, the job's events (client.events);
 * - FilesResource: upload (multipart, ClientMultipartFeature), metadata, download, and 404.
 * Every endpoint of the service is called; /openapi.json is not a resource of its own. What the
 * server supplies (`@Context()` parameters) is no argument of the client's methods, and methods
 * returning `Response<T>` resolve with `T`: the calls below need no casts.
 */
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Client,
  ClientMultipartFeature,
  ClientResponseError,
  EntityPart,
  type ClientRequestContext,
  type ClientRequestFilter,
  type Contract,
  withCallOptions,
} from '@jaxrs-node/pipeline/client';
import { ApiKeyAuth, BasicAuth, BearerAuth } from '../../src/http/bindings.js';
import { AsyncUsersResource } from '../../src/http/resources/async-resource.js';
import { AuthResource, LoginRequest } from '../../src/http/resources/auth-resource.js';
import { FilesResource } from '../../src/http/resources/files-resource.js';
import { Readable } from 'node:stream';
import { CustomDataResource } from '../../src/http/resources/custom-data-resource.js';
import { HealthResource } from '../../src/http/resources/health-resource.js';
import { LargeDataResource } from '../../src/http/resources/large-data-resource.js';
import { SchemaResource } from '../../src/http/resources/schema-resource.js';
import { TestResource } from '../../src/http/resources/test-resource.js';
import { ProductsResource } from '../../src/http/resources/products-resource.js';
import { AdminUsersResource } from '../../src/http/resources/admin-users-resource.js';
import { ExternalUsersResource } from '../../src/http/resources/external-users-resource.js';
import { ProtectedUsersResource } from '../../src/http/resources/protected-users-resource.js';
import { UserListQuery, UserSearchQuery } from '../../src/http/resources/user-queries.js';
import { UsersResource } from '../../src/http/resources/users-resource.js';
import { XmlUsersResource } from '../../src/http/resources/xml-resource.js';
import { removeDir, startServer, type RunningServer } from '../helpers/server.js';

/** Sends the admin account with HTTP Basic, only on resources carrying @BasicAuth. */
@BasicAuth()
class AdminCredentials implements ClientRequestFilter {
  filterClientRequest(request: ClientRequestContext): void {
    request.setHeader('authorization', `Basic ${Buffer.from('admin:password').toString('base64')}`);
  }
}
/** Sends the development API key, only on resources carrying @ApiKeyAuth. */
@ApiKeyAuth()
class ApiKey implements ClientRequestFilter {
  filterClientRequest(request: ClientRequestContext): void {
    request.setHeader('x-api-key', 'test-api-key-123');
  }
}
/** Sends a bearer token, only on resources carrying @BearerAuth. */
@BearerAuth()
class Bearer implements ClientRequestFilter {
  constructor(private readonly token: () => string) {}
  filterClientRequest(request: ClientRequestContext): void {
    request.setHeader('authorization', `Bearer ${this.token()}`);
  }
}

const query = <T extends object>(cls: new () => T, fields: Partial<T>): T => Object.assign(new cls(), fields);

describe('the service through typed clients of its own resource classes (black box)', () => {
  let server: RunningServer;
  let client: Client;
  let plain: Client;
  let token = '';

  beforeAll(async () => {
    server = await startServer();
    client = new Client({ baseUrl: server.url, providers: [new AdminCredentials(), new ApiKey(), new Bearer(() => token)] });
    plain = new Client({ baseUrl: server.url });
  });
  afterAll(async () => {
    await client?.close();
    await plain?.close();
    expect(await server.stop('SIGTERM')).toBe(0);
    removeDir(server.dataDir);
  });

  const failure = async (call: Promise<unknown>): Promise<ClientResponseError> => {
    const e = await call.catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ClientResponseError);
    return e as ClientResponseError;
  };

  it('UsersResource: read the seeded user, list, page, search; 400 names a bad query parameter', async () => {
    const users = client.proxy(UsersResource);
    expect(await users.get(1)).toMatchObject({ id: 1, firstName: 'John', lastName: 'Doe', email: 'test@example.com' });
    const all = await users.list(new UserListQuery());
    expect((Array.isArray(all) ? all : all.content).map((u) => u.id)).toContain(1);
    expect(await users.list(query(UserListQuery, { page: 0, size: 1 }))).toMatchObject({ page: 0, size: 1, content: [{ id: 1 }] });
    expect(await users.search(query(UserSearchQuery, { email: 'TEST@example' }))).toMatchObject([{ id: 1 }]);
    const bad = await failure(users.list(query(UserListQuery, { size: 0 })));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ status: 400, error: 'Bad Request' });
    expect(JSON.stringify(bad.body)).toContain('size');
    expect((await failure(users.get(424242))).status).toBe(404);
  });

  it('UsersResource: create (201 + Location), variant, replace, patch, remove (204, then 404)', async () => {
    const raw = client.responseProxy(UsersResource);
    const created = await raw.create({ email: 'typed@example.com', firstName: 'Ty', lastName: 'Ped' });
    expect(created.status).toBe(201);
    const user = await created.readEntity();
    expect(created.getHeader('location')).toBe(`${server.url}/api/users/${user.id}`);
    const users = client.proxy(UsersResource);
    expect(await users.createVariant({ name: 'Vari Ant', email: 'variant-typed@example.com' })).toMatchObject({
      name: 'Vari Ant',
      email: 'variant-typed@example.com',
    });
    expect(await users.replace(user.id, { email: 'typed2@example.com', firstName: 'Ty', lastName: 'Two' })).toMatchObject({
      id: user.id,
      lastName: 'Two',
    });
    expect(await users.patch(user.id, { firstName: 'Patched' })).toMatchObject({ id: user.id, firstName: 'Patched', lastName: 'Two' });
    const removed = await raw.remove(user.id);
    expect(removed.status).toBe(204);
    expect((await failure(users.get(user.id))).status).toBe(404);
  });

  it('UsersResource: orders (list, create with Location, get, transition; 409 for a bad transition)', async () => {
    const users = client.proxy(UsersResource);
    expect(await users.listOrders(1)).toEqual(expect.any(Array));
    const raw = await client.responseProxy(UsersResource).createOrder(1, { items: [{ productId: 1, quantity: 2 }] });
    expect(raw.status).toBe(201);
    const order = await raw.readEntity();
    expect(order.status).toBe('PENDING');
    expect(raw.getHeader('location')).toBe(`${server.url}/api/users/1/orders/${order.id}`);
    expect(await users.getOrder(1, order.id)).toMatchObject({ id: order.id, status: 'PENDING' });
    expect(await users.transition(1, order.id, { status: 'PROCESSING' })).toMatchObject({ status: 'PROCESSING' });
    expect((await failure(users.transition(1, order.id, { status: 'PENDING' }))).status).toBe(409);
  });

  it('ProductsResource: the embedded catalogue; 404 for an unknown product', async () => {
    const products = client.proxy(ProductsResource);
    expect(await products.get(1)).toMatchObject({ id: 1, name: 'Laptop' });
    expect((await failure(products.get(999))).status).toBe(404);
  });

  it('AuthResource and the protected resources: credentials from client filters bound like the resources', async () => {
    const login = Object.assign(new LoginRequest(), { username: 'admin', password: 'password' });
    const answer = await client.proxy(AuthResource).login(login);
    token = answer.accessToken;
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(
      (await failure(plain.proxy(AuthResource).login(Object.assign(new LoginRequest(), { username: 'admin', password: 'x' })))).status,
    ).toBe(401);
    const resources: Array<Contract<{ list(): unknown }>> = [AdminUsersResource, ProtectedUsersResource, ExternalUsersResource];
    for (const resource of resources) {
      expect(await client.proxy(resource).list()).toEqual(expect.arrayContaining([expect.objectContaining({ id: 1 })]));
      expect((await failure(plain.proxy(resource).list())).status, resource.name).toBe(401);
    }
  });

  it('HealthResource, TestResource, CustomDataResource, SchemaResource, LargeDataResource', async () => {
    const health = client.proxy(HealthResource);
    expect(await health.api()).toMatchObject({ status: 'UP' });
    expect(await health.root()).toMatchObject({ status: 'UP' });
    expect(await client.proxy(TestResource).text()).toBe('Test endpoint OK');
    // The @Enriched response filter adds customField to the declared CustomData.
    expect(await client.proxy(CustomDataResource).get()).toMatchObject({ customField: expect.any(String), message: expect.any(String) });
    expect(await client.proxy(SchemaResource).get()).toEqual(expect.any(Object));
    expect(JSON.stringify(await client.proxy(LargeDataResource).stream('3'))).toContain('"id"');
  });

  it('XmlUsersResource: the XML representation', async () => {
    const r = await client.responseProxy(XmlUsersResource).get(1);
    expect(r.status).toBe(200);
    expect(r.getHeader('content-type')).toMatch(/^application\/xml/);
    expect(await r.text()).toContain('<email>test@example.com</email>');
  });

  it('AsyncUsersResource: status, submit (202 + Location), the job', async () => {
    const jobs = client.proxy(AsyncUsersResource);
    expect(await jobs.status()).toEqual(expect.objectContaining({ status: expect.any(String) }));
    const raw = await client
      .responseProxy(AsyncUsersResource)
      .submit([{ email: 'async-typed@example.com', firstName: 'A', lastName: 'S' }]);
    expect(raw.status).toBe(202);
    const job = await raw.readEntity();
    expect(job.total).toBe(1);
    expect(raw.getHeader('location')).toBe(`${server.url}/api/async/users/jobs/${job.id}`);
    expect(await jobs.job(String(job.id))).toMatchObject({ id: job.id, total: 1 });
  });

  it("AsyncUsersResource: a job's progress as server-sent events through the client, ending with the job", async () => {
    const job = await client
      .proxy(AsyncUsersResource)
      .submit([{ email: 'async-events-typed@example.com', firstName: 'Ev', lastName: 'Ents' }]);
    const seen: Array<{ status: string }> = [];
    // The stream ends after COMPLETED; the client's reconnect then gets a 204, which ends the loop.
    for await (const event of client.events(`api/async/users/jobs/${job.id}/events`, { reconnectDelay: 10 })) {
      expect(event.event).toBe('progress');
      seen.push((await event.json()) as { status: string });
    }
    expect(seen.at(-1)?.status).toBe('COMPLETED');
  });

  it('FilesResource: an unknown file is 404', async () => {
    expect((await failure(client.proxy(FilesResource).metadata('999999'))).status).toBe(404);
  });

  it('FilesResource: upload (multipart through the client), metadata and download', async () => {
    const files = new Client({ baseUrl: server.url, providers: [new ClientMultipartFeature()] });
    try {
      const content = Buffer.from('typed client upload\n'.repeat(100));
      const parts = [
        EntityPart.of('file', Readable.from([content]), { filename: 'notes.txt', mediaType: 'text/plain' }),
        EntityPart.of('description', 'sent by the typed client'),
      ];
      const created = await files.responseProxy(FilesResource).upload(parts);
      expect(created.status).toBe(201);
      const record = await created.readEntity();
      expect(record.size).toBe(content.length);
      expect(await files.proxy(FilesResource).metadata(String(record.id))).toMatchObject({ id: record.id, size: content.length });
      const download = await files.responseProxy(FilesResource).download(String(record.id));
      expect(download.status).toBe(200);
      expect(Buffer.compare(await download.readEntity(Buffer), content)).toBe(0);
      // A byte range of it (RFC 9110 §14): the per-call range option, and the 206's Content-Range.
      const part = await withCallOptions(files.responseProxy(FilesResource), { range: { start: 20, end: 39 } }).download(String(record.id));
      expect(part.status).toBe(206);
      expect(part.contentRange).toEqual({ start: 20, end: 39, length: content.length });
      expect(Buffer.compare(await part.readEntity(Buffer), content.subarray(20, 40))).toBe(0);
    } finally {
      await files.close();
    }
  });
});
