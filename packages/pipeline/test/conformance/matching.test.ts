// Processing rules §5: matching order 404 → 405 → 415 → 406, automatic HEAD/OPTIONS, templates, negotiation.
import { describe, expect, it } from 'vitest';
import {
  Application,
  Consumes,
  Context,
  DELETE,
  GET,
  HEAD,
  Path,
  PathParam,
  POST,
  Produces,
  PUT,
  Response,
  UriInfo,
} from '../../src/index.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

@Path('/users')
class Users {
  @GET() list(): unknown {
    return [{ id: 1 }];
  }
  @GET('search') search(): string {
    return 'search';
  }
  @GET('{id: \\d+}') byId(@PathParam('id') id: number): unknown {
    return { id, kind: 'numeric' };
  }
  @GET('{name}') byName(@PathParam('name') name: string): unknown {
    return { name, kind: 'name' };
  }
  @POST()
  @Consumes('application/json')
  @Produces('application/json')
  create(body: unknown): unknown {
    return { created: body };
  }
  @PUT('{id: \\d+}') @Consumes('application/json') replace(@PathParam('id') id: string): unknown {
    return { id };
  }
  @DELETE('{id: \\d+}') remove(): void {
    /* 204 */
  }
}

@Path('/neg')
class Negotiation {
  @GET()
  @Produces('application/json', 'text/plain;qs=0.5')
  json(): string {
    return 'hello';
  }
  @GET() @Produces('text/csv') csv(): string {
    return 'a,b';
  }
}

/** Several methods for one verb, told apart by @Consumes and then by @Produces. */
@Path('/by-type')
class ByType {
  @POST() @Consumes('application/json') @Produces('application/json') json(): unknown {
    return { got: 'json' };
  }
  @POST() @Consumes('text/plain') @Produces('text/plain') text(): string {
    return 'text';
  }
  @POST() @Consumes('text/plain') @Produces('text/csv') csv(): string {
    return 'a,csv';
  }
}

let hostCalls = 0;
@Path('/host')
class HostCheck {
  @POST() create(@Context() uri: UriInfo): Response {
    hostCalls++;
    return Response.created(`${uri.baseUri}/host/1`).build();
  }
}

@Path('/explicit-head')
class ExplicitHead {
  @GET() get(): unknown {
    return { body: true };
  }
  @HEAD() head(): void {
    /* explicit */
  }
}

@Path('/files/{path: .+}')
class Files {
  @GET() get(@PathParam('path') path: string): unknown {
    return { path };
  }
}

const build = (): Application =>
  new Application({ resources: [Users, Negotiation, ByType, HostCheck, ExplicitHead, Files], logger: () => undefined });

describe.each(TRANSPORTS)('matching and negotiation (%s)', (transport) => {
  const send = serveForSuite(transport, () => build());

  it('literal beats template; regex template beats default; trailing slash tolerated', async () => {
    expect((await send('/users/search')).text).toBe('search');
    expect((await send('/users/42')).json()).toEqual({ id: 42, kind: 'numeric' });
    expect((await send('/users/bob')).json()).toEqual({ name: 'bob', kind: 'name' });
    expect((await send('/users/')).json()).toEqual([{ id: 1 }]);
    expect((await send('/users/a%20b')).json()).toEqual({ name: 'a b', kind: 'name' });
    expect((await send('/files/a/b/c.txt')).json()).toEqual({ path: 'a/b/c.txt' });
  });

  it('404 for no path, 405 + Allow for a wrong method, before 415 and 406', async () => {
    expect((await send('/nope')).status).toBe(404);
    const r = await send({ method: 'PATCH', url: '/users', headers: { 'content-type': 'text/xml', accept: 'image/png' }, body: '<a/>' });
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('GET, HEAD, OPTIONS, POST');
  });

  it('415 for an unsupported Content-Type, checked before Accept (406)', async () => {
    const r = await send({ method: 'POST', url: '/users', headers: { 'content-type': 'text/xml', accept: 'image/png' }, body: '<a/>' });
    expect(r.status).toBe(415);
    const bad = await send({ method: 'POST', url: '/users', headers: { 'content-type': 'not a media type' }, body: '{}' });
    expect(bad.status).toBe(415);
    // The client's value is echoed in the message, cut to 40 characters.
    const long = await send({ method: 'POST', url: '/users', headers: { 'content-type': `text/${'x'.repeat(2000)}` }, body: 'x' });
    expect([long.status, long.json().message]).toEqual([415, `Content-Type text/${'x'.repeat(35)}... is not supported`]);
  });

  it("an accepted Content-Type does not stand in for the next request's: 200, 415, 200, 415 in turn", async () => {
    const post = (type: string) => send({ method: 'POST', url: '/users', headers: { 'content-type': type }, body: '{"a":1}' });
    for (const [type, status] of [
      ['application/json', 200],
      ['text/plain', 415],
      ['application/json', 200],
      ['application/json; charset=utf-8', 200],
      ['application/jsonx', 415],
      ['application/json', 200],
    ] as const) {
      expect((await post(type)).status, type).toBe(status);
    }
  });

  it('several methods for one verb: @Consumes first (415 if none takes the body), then Accept (406)', async () => {
    const post = (type: string, accept?: string) =>
      send({
        method: 'POST',
        url: '/by-type',
        headers: { 'content-type': type, ...(accept === undefined ? {} : { accept }) },
        body: type === 'application/json' ? '{}' : 'x',
      });
    expect((await post('application/json')).json()).toEqual({ got: 'json' });
    expect((await post('text/plain', 'text/plain')).text).toBe('text');
    expect((await post('text/plain', 'text/csv')).text).toBe('a,csv');
    expect((await post('application/xml')).status).toBe(415);
    expect((await post('application/xml', 'image/png')).status).toBe(415); // 415 before 406
    expect((await post('text/plain', 'application/json')).status).toBe(406);
  });

  it('an invalid Host is 400 PIPE_INVALID_HOST before matching, so no method runs; a valid one builds the Location', async () => {
    const before = hostCalls;
    const refused = ['evil.example/steal?x=', 'a b', 'x@evil.example', 'example.com:port', 'a#b', 'a%zz', '[zz]', 'example.com:123456'];
    for (const host of refused) {
      const r = await send({ method: 'POST', url: '/host', headers: { host } });
      expect([host, r.status, r.json().code]).toEqual([host, 400, 'PIPE_INVALID_HOST']);
      expect(r.headers.location).toBeUndefined();
    }
    expect((await send({ url: '/nowhere', headers: { host: 'a b' } })).status).toBe(400); // before 404
    expect(hostCalls).toBe(before);
    // RFC 3986 reg-names are more than letters, digits, dots and hyphens (Docker Compose service
    // names have underscores), and IPv6 literals may carry a zone.
    const accepted = ['example.com:8080', '[::1]:3000', '127.0.0.1', 'user_service:8080', 'my~host', '[fe80::1%25eth0]:80', 'a%41b'];
    for (const host of accepted) {
      const ok = await send({ method: 'POST', url: '/host', headers: { host } });
      expect([host, ok.status, ok.headers.location]).toEqual([host, 201, `http://${host}/host/1`]);
    }
    expect(hostCalls).toBe(before + accepted.length);
  });

  it('406 when Accept excludes every produced type', async () => {
    const r = await send({
      method: 'POST',
      url: '/users',
      headers: { 'content-type': 'application/json', accept: 'image/png' },
      body: '{}',
    });
    expect(r.status).toBe(406);
  });

  it('Accept q-values choose the type; qs breaks ties; */* takes the server preference', async () => {
    const json = await send({ url: '/neg', headers: { accept: 'text/plain;q=0.9, application/json' } });
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    const text = await send({ url: '/neg', headers: { accept: 'text/plain, application/json;q=0.5' } });
    expect(text.headers['content-type']).toMatch(/^text\/plain/);
    const csv = await send({ url: '/neg', headers: { accept: 'text/csv' } });
    expect(csv.text).toBe('a,b');
    const any = await send({ url: '/neg', headers: { accept: '*/*' } });
    expect(any.headers['content-type']).toMatch(/^application\/json/);
    const none = await send({ url: '/neg' });
    expect(none.headers['content-type']).toMatch(/^application\/json/);
  });

  it('automatic HEAD runs GET and drops the body, keeping Content-Length', async () => {
    const get = await send('/users/7');
    const head = await send({ method: 'HEAD', url: '/users/7' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
  });

  it('an explicit HEAD method wins over the automatic one', async () => {
    const head = await send({ method: 'HEAD', url: '/explicit-head' });
    expect(head.status).toBe(204);
  });

  it('automatic OPTIONS lists the methods of the path in Allow', async () => {
    const r = await send({ method: 'OPTIONS', url: '/users/9' });
    expect(r.status).toBe(200);
    expect(r.headers.allow).toBe('DELETE, GET, HEAD, OPTIONS, PUT');
  });

  it('the most specific matching template decides the methods (JAX-RS 3.7.2): no fallback to a less specific one', async () => {
    const r = await send({ method: 'DELETE', url: '/users/bob' });
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('GET, HEAD, OPTIONS');
  });

  it('a method returning nothing gives 204 without a body', async () => {
    const r = await send({ method: 'DELETE', url: '/users/9' });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
  });

  it('a body-less request without Content-Type matches a @Consumes method', async () => {
    const r = await send({ method: 'PUT', url: '/users/3' });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ id: '3' });
  });

  it('malformed percent-encoding in the path is 400', async () => {
    expect((await send('/users/%E0%A4%A')).status).toBe(400);
  });
});
