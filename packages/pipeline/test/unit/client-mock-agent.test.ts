/**
 * The client against undici's MockAgent (`dispatcher` option): typed and fluent calls without a
 * server, and the answers a test double can give that a real application would not (corrupt gzip,
 * a gzip bomb, broken JSON, unknown media types), plus retries and the error mapping.
 */
import 'reflect-metadata';
import { gzipSync } from 'node:zlib';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AVAILABLE_CONTENT_CODINGS, GET, Path, PathParam, POST, Produces, QueryParam } from '../../src/index.js';
import {
  Client,
  ClientEntity,
  ClientResponseError,
  GzipResponseDecoder,
  type ClientRequestContext,
  type ClientRequestFilter,
} from '../../src/client/index.js';

interface User {
  id: number;
  name: string;
}

const unused = (): never => {
  throw new Error('contract method');
};

@Path('/users')
@Produces('application/json')
abstract class Users {
  @GET('{id}') get(@PathParam('id') _id: number): Promise<User> {
    return unused();
  }
  @GET() find(@QueryParam('name') _name: string): Promise<User[]> {
    return unused();
  }
  @POST() create(_user: Omit<User, 'id'>): Promise<User> {
    return unused();
  }
}

const ORIGIN = 'http://users.test';
const JSON_HEADERS = { 'content-type': 'application/json' };

describe('client with a MockAgent', () => {
  let agent: MockAgent;
  let client: Client;
  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
  });
  afterEach(async () => {
    await client.close();
    agent.assertNoPendingInterceptors();
    await agent.close();
  });
  const make = (options: ConstructorParameters<typeof Client>[0] = {}): Client =>
    (client = new Client({ baseUrl: ORIGIN, dispatcher: agent, ...options }));

  it('typed calls: path, query, a JSON entity in and out, the Accept of @Produces', async () => {
    const pool = agent.get(ORIGIN);
    pool
      .intercept({ path: '/users/7', method: 'GET', headers: { accept: 'application/json' } })
      .reply(200, { id: 7, name: 'Ada' }, { headers: JSON_HEADERS });
    pool.intercept({ path: '/users?name=Ada%20L', method: 'GET' }).reply(200, [{ id: 7, name: 'Ada L' }], { headers: JSON_HEADERS });
    pool
      .intercept({ path: '/users', method: 'POST', body: '{"name":"Bob"}', headers: { 'content-type': 'application/json' } })
      .reply(201, { id: 8, name: 'Bob' }, { headers: JSON_HEADERS });
    const users = make().proxy(Users);
    expect(await users.get(7)).toEqual({ id: 7, name: 'Ada' });
    expect(await users.find('Ada L')).toEqual([{ id: 7, name: 'Ada L' }]);
    expect(await users.create({ name: 'Bob' })).toEqual({ id: 8, name: 'Bob' });
  });

  it('fluent calls: target, path, templates, query, headers, cookies; the response or the entity', async () => {
    const pool = agent.get(ORIGIN);
    pool
      .intercept({ path: '/users/a%2Fb/files?q=x%20y&q=%26', method: 'GET', headers: { 'x-trace': 't', cookie: 'sid=a%3Bb' } })
      .reply(200, 'hello', { headers: { 'content-type': 'text/plain' } });
    pool.intercept({ path: '/users/7', method: 'PUT', body: 'name=Ada+L' }).reply(204);
    const c = make();
    const target = c.target().path('users/{id}/files').resolveTemplate('id', 'a/b').queryParam('q', 'x y', '&');
    expect(target.getUri()).toBe(`${ORIGIN}/users/a%2Fb/files?q=x%20y&q=%26`);
    const text = await target.request('text/plain').header('X-Trace', 't').cookie('sid', 'a;b').get(String);
    expect(text).toBe('hello');
    const r = await c
      .target('users/7')
      .request()
      .put(ClientEntity.form({ name: 'Ada L' }));
    expect([r.status, r.hasEntity(), await r.readEntity()]).toEqual([204, false, undefined]);
  });

  it('an error status: ClientResponseError with the JSON body; the response itself for untyped calls', async () => {
    const pool = agent.get(ORIGIN);
    pool
      .intercept({ path: '/users/9', method: 'GET' })
      .reply(404, { code: 'USER_NOT_FOUND', message: 'no user 9' }, { headers: JSON_HEADERS });
    pool.intercept({ path: '/users/9', method: 'GET' }).reply(404, { code: 'USER_NOT_FOUND' }, { headers: JSON_HEADERS });
    const c = make();
    const e = (await c
      .proxy(Users)
      .get(9)
      .catch((x: unknown) => x)) as ClientResponseError;
    expect(e).toBeInstanceOf(ClientResponseError);
    expect([e.status, e.code, e.body]).toEqual([404, 'USER_NOT_FOUND', { code: 'USER_NOT_FOUND', message: 'no user 9' }]);
    const r = await c.target('users/9').request().get();
    expect([r.status, await r.readEntity()]).toEqual([404, { code: 'USER_NOT_FOUND' }]);
  });

  it('retries a GET on 503 with Retry-After: 0', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/users/1', method: 'GET' }).reply(503, '', { headers: { 'retry-after': '0' } });
    pool.intercept({ path: '/users/1', method: 'GET' }).reply(200, { id: 1, name: 'A' }, { headers: JSON_HEADERS });
    expect(
      await make({ retry: { maxRetries: 1 } })
        .proxy(Users)
        .get(1),
    ).toEqual({ id: 1, name: 'A' });
  });

  it('responses a reader refuses: broken JSON, a corrupt gzip body, a gzip bomb', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/users/1', method: 'GET' }).reply(200, '{"id":', { headers: JSON_HEADERS });
    pool
      .intercept({ path: '/users/2', method: 'GET' })
      .reply(200, Buffer.from('not gzip at all'), { headers: { ...JSON_HEADERS, 'content-encoding': 'gzip' } });
    pool
      .intercept({ path: '/users/3', method: 'GET' })
      .reply(200, gzipSync(Buffer.alloc(1_000_000, 32)), { headers: { ...JSON_HEADERS, 'content-encoding': 'gzip' } });
    pool
      // The decoder asks for every coding this Node decodes (issue 25: was gzip alone).
      .intercept({ path: '/users/4', method: 'GET', headers: { 'accept-encoding': AVAILABLE_CONTENT_CODINGS.join(', ') } })
      .reply(200, gzipSync('{"id":4,"name":"zipped"}'), { headers: { ...JSON_HEADERS, 'content-encoding': 'gzip' } });
    const users = make({ providers: [new GzipResponseDecoder()], maxResponseBytes: 64 * 1024 }).proxy(Users);
    await expect(users.get(1)).rejects.toMatchObject({
      code: 'CLIENT_RESPONSE_UNREADABLE',
      cause: expect.objectContaining({ code: 'PIPE_INVALID_JSON' }),
    });
    await expect(users.get(2)).rejects.toMatchObject({
      code: 'CLIENT_RESPONSE_UNREADABLE',
      cause: expect.objectContaining({ code: 'PIPE_GZIP_CORRUPT' }),
    });
    await expect(users.get(3)).rejects.toMatchObject({ code: 'CLIENT_RESPONSE_TOO_LARGE' });
    expect(await users.get(4)).toEqual({ id: 4, name: 'zipped' });
  });

  it('untyped reads by media type: no Content-Type gives the bytes, text gives a string; bufferEntity reads twice', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/raw', method: 'GET' }).reply(200, Buffer.from([1, 2, 3]));
    pool.intercept({ path: '/text', method: 'GET' }).reply(200, 'plain', { headers: { 'content-type': 'text/plain; charset=utf-8' } });
    const c = make();
    expect(await c.target('raw').request().get(Object)).toEqual(Buffer.from([1, 2, 3]));
    const r = await c.target('text').request().get();
    await r.bufferEntity();
    expect([await r.readEntity(), await r.readEntity(String), await r.text()]).toEqual(['plain', 'plain', 'plain']);
  });

  it('a second read without bufferEntity fails with CLIENT_ENTITY_CONSUMED', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/once', method: 'GET' })
      .reply(200, 'x', { headers: { 'content-type': 'text/plain' } });
    const r = await make().target('once').request().get();
    expect(await r.readEntity()).toBe('x');
    await expect(r.readEntity()).rejects.toMatchObject({ code: 'CLIENT_ENTITY_CONSUMED' });
  });

  it('a request filter sees the contract method and may rewrite the request', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/v2/users/5', method: 'GET', headers: { authorization: 'Bearer t' } })
      .reply(200, { id: 5, name: 'v2' }, { headers: JSON_HEADERS });
    class Rewrite implements ClientRequestFilter {
      filterClientRequest(request: ClientRequestContext): void {
        expect(request.resourceInfo?.methodName).toBe('get');
        request.uri = request.uri.replace(`${ORIGIN}/users`, `${ORIGIN}/v2/users`);
        request.setHeader('Authorization', 'Bearer t');
      }
    }
    expect(
      await make({ providers: [new Rewrite()] })
        .proxy(Users)
        .get(5),
    ).toEqual({ id: 5, name: 'v2' });
  });
});
