/**
 * A typed client made from an abstract contract that a server resource extends: every parameter
 * kind, entities in and out (JSON, text, bytes, streams both ways), 204, error statuses, the
 * response proxy, over both transports (in-process `inject()` and undici over a socket).
 */
import 'reflect-metadata';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  Application,
  BeanParam,
  Consumes,
  CookieParam,
  DefaultValue,
  DELETE,
  Entity,
  FormParam,
  GET,
  HeaderParam,
  NotFoundError,
  Path,
  PathParam,
  POST,
  Produces,
  PUT,
  QueryParam,
  Response,
} from '../../src/index.js';
import { clientOf, ClientResponseError, createClient } from '../../src/client/index.js';
import { CLIENT_TRANSPORTS, serveForClients } from '../helpers/client-transports.js';

class NewThing {
  name!: string;
  tags?: string[];
}
interface Thing {
  id: number;
  name: string;
  tags: string[];
}

class Paging {
  @QueryParam('page') @DefaultValue('1') page!: number;
  @QueryParam('size') size?: number;
  @HeaderParam('x-tenant') tenant?: string;
}

const unused = (): never => {
  throw new Error('contract method: the server resource or the client proxy implements it');
};

/** The contract: decorators only, shared by the server resource (which extends it) and the client. */
@Path('/things')
@Produces('application/json')
abstract class ThingsContract {
  @GET('{id: \\d+}') get(@PathParam('id') _id: number): Promise<Thing> {
    return unused();
  }
  @GET('search') search(
    @QueryParam('tag') _tags: string[],
    @QueryParam('since') _since?: Date,
    @QueryParam('exact') _exact?: boolean,
    @QueryParam('q') _q?: string,
  ): Promise<{ tags: string[]; since: string | null; exact: boolean | null; q: string | null }> {
    return unused();
  }
  @GET('echo/headers') headers(
    @HeaderParam('X-Trace') _trace: string,
    @HeaderParam('x-list') _list: string[],
    @CookieParam('session') _session: string,
    @CookieParam('theme') _theme?: string,
  ): Promise<{ trace: string; list: string; session: string; theme: string | null }> {
    return unused();
  }
  @POST('form') @Consumes('application/x-www-form-urlencoded') form(
    @FormParam('name') _name: string,
    @FormParam('tag') _tags: string[],
  ): Promise<{ name: string; tags: string[] }> {
    return unused();
  }
  @GET('paged') paged(@BeanParam() _paging: Paging): Promise<{ page: number; size: number | null; tenant: string | null }> {
    return unused();
  }
  @GET('segment/{name}') segment(@PathParam('name') _name: string): Promise<{ name: string }> {
    return unused();
  }
  @POST() @Consumes('application/json') create(@Entity(NewThing) _body: NewThing): Promise<Response<Thing>> {
    return unused();
  }
  @PUT('{id}/note') @Consumes('text/plain') @Produces('text/plain') note(@PathParam('id') _id: number, _text: string): Promise<string> {
    return unused();
  }
  @PUT('{id}/blob') @Consumes('application/octet-stream') blob(@PathParam('id') _id: number, _bytes: Buffer): Promise<{ size: number }> {
    return unused();
  }
  @POST('upload') @Consumes('application/octet-stream') upload(_body: Readable): Promise<{ bytes: number }> {
    return unused();
  }
  @GET('download') @Produces('application/octet-stream') download(@QueryParam('chunks') _chunks: number): Readable {
    return unused();
  }
  @DELETE('{id: \\d+}') remove(@PathParam('id') _id: number): Promise<void> {
    return unused();
  }
  @GET('missing') missing(): Promise<Thing> {
    return unused();
  }
}

/** The server: overrides without decorators keep the contract's routes and parameters. */
class ThingsResource extends ThingsContract {
  private readonly things = new Map<number, Thing>([[1, { id: 1, name: 'first', tags: [] }]]);

  override async get(id: number): Promise<Thing> {
    const t = this.things.get(id);
    if (t === undefined) throw new NotFoundError(`thing ${id}`);
    return t;
  }
  override async search(tags: string[], since?: Date, exact?: boolean, q?: string) {
    return { tags, since: since?.toISOString() ?? null, exact: exact ?? null, q: q ?? null };
  }
  override async headers(trace: string, list: string[], session: string, theme?: string) {
    return { trace, list: list.join('|'), session, theme: theme ?? null };
  }
  override async form(name: string, tags: string[]) {
    return { name, tags };
  }
  override async paged(paging: Paging) {
    return { page: paging.page, size: paging.size ?? null, tenant: paging.tenant ?? null };
  }
  override async segment(name: string) {
    return { name };
  }
  override create(body: NewThing): Promise<Response<Thing>> {
    const thing = { id: this.things.size + 1, name: body.name, tags: body.tags ?? [] };
    this.things.set(thing.id, thing);
    return Promise.resolve(Response.created(`/things/${thing.id}`).entity(thing).build());
  }
  override async note(id: number, text: string) {
    return `${id}: ${text.toUpperCase()}`;
  }
  override async blob(_id: number, bytes: Buffer) {
    return { size: bytes.length };
  }
  override async upload(body: Readable) {
    let bytes = 0;
    for await (const chunk of body) bytes += (chunk as Buffer).length;
    return { bytes };
  }
  override download(chunks: number): Readable {
    return Readable.from(
      (function* () {
        for (let i = 0; i < chunks; i++) yield Buffer.alloc(1024, 97 + (i % 26));
      })(),
    );
  }
  override async remove(id: number) {
    this.things.delete(id);
  }
  override async missing(): Promise<Thing> {
    throw new NotFoundError('nothing here', { code: 'THING_MISSING' });
  }
}

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe.each(CLIENT_TRANSPORTS)('typed client from a shared contract (%s)', (transport) => {
  const suite = serveForClients(transport, () => new Application({ resources: [ThingsResource] }));
  const things = () => suite.client().proxy(ThingsContract);

  it('path parameters (with a regex template) and a JSON entity out', async () => {
    expect(await things().get(1)).toEqual({ id: 1, name: 'first', tags: [] });
  });

  it('a path value is one segment, encoded whole', async () => {
    expect(await things().segment('a/b c%d')).toEqual({ name: 'a/b c%d' });
  });

  it('query parameters: repeated arrays, dates as ISO 8601, booleans, absent values left out', async () => {
    const since = new Date(Date.UTC(2024, 1, 3, 4, 5, 6));
    expect(await things().search(['x', 'y&z'], since, true, 'a+b c')).toEqual({
      tags: ['x', 'y&z'],
      since: since.toISOString(),
      exact: true,
      q: 'a+b c',
    });
    expect(await things().search([])).toEqual({ tags: [], since: null, exact: null, q: null });
  });

  it('header and cookie parameters (a list is repeated header lines, cookie values encoded)', async () => {
    expect(await things().headers('t-1', ['a', 'b'], 's=1; x', 'dark')).toEqual({
      trace: 't-1',
      list: 'a|b',
      session: 's=1; x',
      theme: 'dark',
    });
  });

  it('form parameters become an urlencoded body', async () => {
    expect(await things().form('Ada & Co', ['x', 'y'])).toEqual({ name: 'Ada & Co', tags: ['x', 'y'] });
  });

  it('@BeanParam fields are sent as their own parameters; absent ones take the server default', async () => {
    const p = new Paging();
    p.size = 20;
    p.tenant = 'acme';
    expect(await things().paged(p)).toEqual({ page: 1, size: 20, tenant: 'acme' });
  });

  it('a JSON entity in (POST) and the created entity out; the response proxy shows status and Location', async () => {
    const created = await things().create({ name: 'second', tags: ['t'] });
    expect(created).toMatchObject({ name: 'second', tags: ['t'] });
    const raw = suite.client().responseProxy(ThingsContract);
    const r = await raw.create({ name: 'third' });
    expect(r.status).toBe(201);
    expect(r.getHeader('location')).toMatch(/\/things\/\d+$/);
    expect(await r.readEntity()).toMatchObject({ name: 'third', tags: [] });
  });

  it('text in and out (@Consumes/@Produces text/plain)', async () => {
    expect(await things().note(3, 'hello')).toBe('3: HELLO');
  });

  it('bytes in (Buffer entity)', async () => {
    expect(await things().blob(1, Buffer.alloc(3000, 1))).toEqual({ size: 3000 });
  });

  it('a request body from a Readable or an async iterable, streamed', async () => {
    expect(await things().upload(Readable.from([Buffer.alloc(10_000), Buffer.alloc(5)]))).toEqual({ bytes: 10_005 });
    const gen = async function* () {
      for (let i = 0; i < 4; i++) yield Buffer.alloc(1000);
    };
    expect(await things().upload(gen())).toEqual({ bytes: 4000 });
  });

  it('a streamed download: a method declared to return Readable resolves with the body stream', async () => {
    const stream = await things().download(40);
    expect(stream).toBeInstanceOf(Readable);
    const bytes = await bytesOf(stream);
    expect(bytes.length).toBe(40 * 1024);
    expect(bytes[1024]).toBe(98);
  });

  it('204: the call resolves with undefined', async () => {
    const created = await things().create({ name: 'gone soon' });
    expect(await things().remove(created.id)).toBeUndefined();
  });

  it('an error status rejects with ClientResponseError: status, headers and the parsed error body', async () => {
    const err = await things()
      .missing()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientResponseError);
    const e = err as ClientResponseError;
    expect(e.status).toBe(404);
    expect(e.code).toBe('THING_MISSING');
    expect(e.headers['content-type']).toMatch(/^application\/json/);
    expect(e.body).toEqual({ status: 404, error: 'Not Found', code: 'THING_MISSING', message: 'nothing here' });
    expect(e.message).toMatch(/^GET http:\/\/[^ ]+\/things\/missing answered 404 Not Found$/);
    const notFound = (await things()
      .get(99)
      .catch((x: unknown) => x)) as ClientResponseError;
    expect(notFound.body).toMatchObject({ status: 404, message: 'thing 99' });
  });

  it('a proxy made from the concrete resource class calls the same routes', async () => {
    const c = suite.client();
    expect(await c.proxy(ThingsResource).get(1)).toMatchObject({ id: 1 });
  });

  it('only resource methods are on the proxy; clientOf gives its client', async () => {
    const c = suite.client();
    const proxy = c.proxy(ThingsContract);
    expect(Object.keys(proxy).sort()).toEqual(
      ['blob', 'create', 'download', 'form', 'get', 'headers', 'missing', 'note', 'paged', 'remove', 'search', 'segment', 'upload'].sort(),
    );
    expect(clientOf(proxy)).toBe(c);
  });
});

describe('createClient', () => {
  it('makes its own client (in-process with application), closed through clientOf', async () => {
    const app = new Application({ resources: [ThingsResource] });
    const things = createClient(ThingsContract, { application: app });
    expect(await things.get(1)).toMatchObject({ name: 'first' });
    await clientOf(things).close();
    expect(clientOf(things).closed).toBe(true);
    await expect(things.get(1)).rejects.toMatchObject({ code: 'CLIENT_CLOSED' });
  });
});
