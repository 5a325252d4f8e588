/**
 * The application base path (`ApplicationOptions.basePath`, Jakarta REST 3.1 §2.3.2
 * `@ApplicationPath`), `UriInfo` with it (§5.3.1), and relative `Location` / `Content-Location`
 * values resolved against the application's base URI (3.1 `ResponseBuilder.location`), over both
 * transports.
 */
import { describe, expect, it } from 'vitest';
import {
  Application,
  Context,
  ContainerRequestContext,
  GET,
  Path,
  PathParam,
  POST,
  PreMatching,
  ResourceInfo,
  Response,
  UriBuilder,
  UriInfo,
  type ContainerRequestFilter,
} from '../../src/index.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

const HOST = 'example.test:8080';

@Path('/')
class Root {
  @GET() root(): unknown {
    return { root: true };
  }
}

@Path('/users')
class Users {
  @GET('{id: [0-9]+}') get(@PathParam('id') id: string): unknown {
    return { id };
  }

  @GET('{id}/uri') uri(@Context() uri: UriInfo, @Context() info: ResourceInfo): unknown {
    return {
      path: uri.path,
      requestUri: uri.requestUri,
      baseUri: uri.baseUri,
      matchedTemplate: uri.matchedTemplate,
      resourceInfoPath: info.path,
      self: uri.baseUriBuilder().path(Users).path(Users, 'get').build(uri.pathParameters.id),
      next: uri.requestUriBuilder().replaceQueryParam('page', 2).build(),
      absolutePath: uri.absolutePathBuilder().build(),
      files: uri.baseUriBuilder().path('files').segment('a/b c').build(),
    };
  }

  @POST() create(): Response {
    return Response.created('users/7').entity({ id: 7 }).build();
  }

  @POST('slash') createSlash(): Response {
    return Response.created('/users/8').build();
  }

  @POST('absolute') createAbsolute(): Response {
    return Response.created('https://elsewhere.example/users/9').build();
  }

  @POST('network-path') createNetworkPath(): Response {
    return Response.created('//cdn.example/users/10').build();
  }

  @GET('content-location') contentLocation(): Response {
    return Response.ok({ id: 7 }).header('content-location', 'users/7?v=2').build();
  }

  @GET('moved') moved(): Response {
    return Response.status(303).location('users/7#top').build();
  }

  @POST('built') createBuilt(@Context() uri: UriInfo): Response {
    return Response.created(uri.baseUriBuilder().path(Users).path(Users, 'get').build(11)).build();
  }
}

/** Aborts with a relative Location before the Host header is checked (that 400 comes after pre-matching filters). */
@PreMatching()
class LoginRedirect implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    if (ctx.getHeader('x-login') !== undefined) ctx.abortWith(Response.status(303).location('login'));
  }
}

const resources = [Root, Users];
const post = (url: string, host = HOST) => ({ method: 'POST', url, headers: { host } });

describe('ApplicationOptions.basePath validation', () => {
  it('accepts a path that starts with / and has no trailing /', () => {
    for (const basePath of ['/api', '/api/v1', '/a-b_c.d~', "/x!$&'()*+,;=:@", '/%7Euser']) {
      expect(() => new Application({ basePath })).not.toThrow();
    }
  });

  it('refuses other values at construction, naming basePath and the fix', () => {
    const cases: Array<[unknown, RegExp]> = [
      ['api', /must start with '\/'/],
      ['/api/', /must not end with '\/'/],
      ['/', /leave basePath out/],
      ['', /leave basePath out/],
      ['/api/{version}', /template variables/],
      ['/api?x=1', /query or fragment/],
      ['/api#x', /query or fragment/],
      ['/a b', /percent-encode/],
      ['/api//v1', /empty, '\.' or '\.\.' segments/],
      ['/api/../x', /empty, '\.' or '\.\.' segments/],
      [42, /is not a string/],
    ];
    for (const [basePath, message] of cases) {
      const make = () => new Application({ basePath: basePath as string });
      expect(make).toThrow(TypeError);
      expect(make).toThrow(/^ApplicationOptions\.basePath .*give a path such as '\/api'/);
      expect(make).toThrow(message);
    }
  });

  it('routes stay relative to the base path', () => {
    const app = new Application({ basePath: '/api', resources: [Root] });
    expect(app.routes).toEqual(['GET / -> Root.root']);
  });
});

describe.each(TRANSPORTS)('base path /api (%s)', (transport) => {
  const send = serveForSuite(transport, () => new Application({ basePath: '/api', resources, providers: [LoginRedirect] }));

  it('matches below the base path, segment-wise', async () => {
    expect((await send('/api/users/42')).json()).toEqual({ id: '42' });
    expect((await send('/api/users/42/')).json()).toEqual({ id: '42' });
    expect((await send('/api')).json()).toEqual({ root: true });
    expect((await send('/api/')).json()).toEqual({ root: true });
    expect((await send('/api?x=1')).json()).toEqual({ root: true });
  });

  it('is 404 outside the base path: the root, /apix, another prefix, a different case', async () => {
    for (const url of ['/', '/users/42', '/apix', '/apix/users/42', '/ap', '/API/users/42', '/v1/api/users/42']) {
      const r = await send(url);
      expect([url, r.status, r.json().code]).toEqual([url, 404, 'PIPE_NO_MATCH']);
    }
  });

  it('UriInfo: the full path, baseUri with the base path, templates relative to it, builders seeded from the request', async () => {
    const r = await send({ url: '/api/users/5/uri?page=1&q=a%20b', headers: { host: HOST } });
    expect(r.json()).toEqual({
      path: '/api/users/5/uri',
      requestUri: '/api/users/5/uri?page=1&q=a%20b',
      baseUri: `http://${HOST}/api`,
      matchedTemplate: '/users/{id}/uri',
      resourceInfoPath: '/users/{id}/uri',
      self: `http://${HOST}/api/users/5`,
      next: `http://${HOST}/api/users/5/uri?q=a%20b&page=2`,
      absolutePath: `http://${HOST}/api/users/5/uri`,
      files: `http://${HOST}/api/files/a%2Fb%20c`,
    });
  });

  it('201 with a relative Location: resolved against the base URI, with or without a leading /', async () => {
    const created = await send(post('/api/users'));
    expect([created.status, created.headers.location, created.json()]).toEqual([201, `http://${HOST}/api/users/7`, { id: 7 }]);
    expect((await send(post('/api/users/slash'))).headers.location).toBe(`http://${HOST}/api/users/8`);
    expect((await send(post('/api/users/built'))).headers.location).toBe(`http://${HOST}/api/users/11`);
    const moved = await send({ url: '/api/users/moved', headers: { host: HOST } });
    expect([moved.status, moved.headers.location]).toEqual([303, `http://${HOST}/api/users/7#top`]);
  });

  it('absolute and network-path Locations are left as they are', async () => {
    expect((await send(post('/api/users/absolute'))).headers.location).toBe('https://elsewhere.example/users/9');
    expect((await send(post('/api/users/network-path'))).headers.location).toBe('//cdn.example/users/10');
  });

  it('a relative Content-Location is resolved too', async () => {
    const r = await send({ url: '/api/users/content-location', headers: { host: HOST } });
    expect([r.status, r.headers['content-location']]).toEqual([200, `http://${HOST}/api/users/7?v=2`]);
  });

  it('an invalid Host never becomes part of a Location: the path alone is sent', async () => {
    const refused = await send(post('/api/users', 'evil.example/steal?x='));
    expect([refused.status, refused.headers.location]).toEqual([400, undefined]);
    // A pre-matching abort answers before the Host check: its Location keeps to the path.
    for (const host of ['a b', 'x@evil.example']) {
      const r = await send({ url: '/api/anything', headers: { host, 'x-login': '1' } });
      expect([host, r.status, r.headers.location]).toEqual([host, 303, '/api/login']);
    }
    const ok = await send({ url: '/api/anything', headers: { host: HOST, 'x-login': '1' } });
    expect(ok.headers.location).toBe(`http://${HOST}/api/login`);
  });

  it('without a Host header (HTTP/1.0, in-process) the Location is the absolute path', async () => {
    if (transport !== 'in-process') return; // an HTTP/1.1 client always sends Host
    const r = await send({ method: 'POST', url: '/api/users' });
    expect([r.status, r.headers.location]).toEqual([201, '/api/users/7']);
  });
});

describe.each(TRANSPORTS)('no base path (%s)', (transport) => {
  const send = serveForSuite(transport, () => new Application({ resources }));

  it('matches from the root and UriInfo.baseUri is scheme://host, as before', async () => {
    expect((await send('/users/3')).json()).toEqual({ id: '3' });
    expect((await send('/api/users/3')).status).toBe(404);
    const r = await send({ url: '/users/5/uri', headers: { host: HOST } });
    expect(r.json()).toMatchObject({
      path: '/users/5/uri',
      baseUri: `http://${HOST}`,
      matchedTemplate: '/users/{id}/uri',
      self: `http://${HOST}/users/5`,
      files: `http://${HOST}/files/a%2Fb%20c`,
    });
  });

  it('relative Locations are resolved against scheme://host/; absolute ones are unchanged', async () => {
    const created = await send(post('/users'));
    expect([created.status, created.headers.location]).toEqual([201, `http://${HOST}/users/7`]);
    expect((await send(post('/users/slash'))).headers.location).toBe(`http://${HOST}/users/8`);
    expect((await send(post('/users/absolute'))).headers.location).toBe('https://elsewhere.example/users/9');
    const r = await send({ url: '/users/content-location', headers: { host: HOST } });
    expect(r.headers['content-location']).toBe(`http://${HOST}/users/7?v=2`);
  });

  it('UriBuilder is the exported class', () => {
    expect(UriBuilder.fromResource(Users).path(Users, 'get').build(1)).toBe('/users/1');
  });
});
