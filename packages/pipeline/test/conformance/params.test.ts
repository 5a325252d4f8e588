// Processing rules §6: parameter sources, conversion order (ParamConverterProvider, built-ins,
// static fromString), @DefaultValue converted at start-up, failures → 400 naming the parameter
// (README "Decisions" 3), @Context injection, one entity parameter at most.
import { describe, expect, it } from 'vitest';
import {
  Application,
  Context,
  ContainerRequestContext,
  CookieParam,
  DefaultValue,
  DELETE,
  FormParam,
  GET,
  HeaderParam,
  HttpHeaders,
  NotFoundError,
  Path,
  PathParam,
  POST,
  Priority,
  Priorities,
  QueryParam,
  ResourceInfo,
  SecurityContext,
  UriInfo,
  type ContainerRequestFilter,
  type ParamConverter,
  type ParamConverterProvider,
  type ParamInfo,
  type TypeToken,
} from '../../src/index.js';
import { start, serveForSuite, TRANSPORTS } from '../helpers/transports.js';

/** `undefined` does not survive JSON: show it as a marker so "missing" is asserted exactly. */
const show = (v: unknown): unknown => (v === undefined ? '<undefined>' : v);

/** A value class converted by its own static `fromString` (the JAX-RS `valueOf`/`fromString` rule). */
class Money {
  private constructor(
    readonly cents: number,
    readonly currency: string,
  ) {}
  static fromString(raw: string): Money {
    const m = /^(\d+)\.(\d{2}) ([A-Z]{3})$/.exec(raw);
    if (m === null) throw new Error('expected "12.34 EUR"');
    return new Money(Number(m[1]) * 100 + Number(m[2]), m[3]!);
  }
}

/** Wins over the built-in Number conversion, but only for parameters named `hex`. */
class HexConverterProvider implements ParamConverterProvider {
  getConverter(type: TypeToken, info: ParamInfo): ParamConverter | undefined {
    if (type !== Number || info.name !== 'hex') return undefined;
    return {
      fromString(raw: string): number {
        if (!/^[0-9a-f]+$/i.test(raw)) throw new Error('not hexadecimal');
        return parseInt(raw, 16);
      },
    };
  }
}

/** A converter may throw an HTTP error of its own choosing: it is used as is, not turned into 400. */
class TenantConverterProvider implements ParamConverterProvider {
  getConverter(type: TypeToken, info: ParamInfo): ParamConverter | undefined {
    if (type !== String || info.name !== 'tenant') return undefined;
    return {
      fromString(raw: string): string {
        if (raw === 'ghost') throw new NotFoundError('no such tenant');
        return raw.toUpperCase();
      },
    };
  }
}

/** Authenticates `X-User: name` so `@Context() SecurityContext` has someone to report. */
@Priority(Priorities.AUTHENTICATION)
class UserFilter implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    const user = ctx.getHeader('x-user');
    if (user !== undefined) ctx.securityContext = SecurityContext.of({ name: user }, ['USER'], 'Test');
  }
}

@Path('/p')
class ParamsResource {
  @GET('path/{id}/{slug}')
  path(@PathParam('id') id: number, @PathParam('slug') slug: string): unknown {
    return { id, slug, types: [typeof id, typeof slug] };
  }

  /** The same template as `path` with other variable names: each method gets its own names. */
  @DELETE('path/{key}/{name}')
  remove(@PathParam('key') key: string, @PathParam('name') name: string, @Context() uri: UriInfo): unknown {
    return { key, name, params: uri.pathParameters };
  }

  @GET('types')
  types(
    @QueryParam('s') s: string,
    @QueryParam('n') n: number,
    @QueryParam('b') b: boolean,
    @QueryParam('big') big: bigint,
    @QueryParam('d') d: Date,
  ): unknown {
    return {
      s: show(s),
      n: show(n),
      b: show(b),
      big: typeof big === 'bigint' ? `bigint:${big.toString()}` : `${typeof big}:${String(big)}`,
      d: d instanceof Date ? d.toISOString() : `${typeof d}:${String(d)}`,
    };
  }

  @GET('ids')
  ids(@QueryParam('ids', { elementType: Number }) ids: number[], @QueryParam('tag') tags: string[]): unknown {
    return { ids, idTypes: ids.map((x) => typeof x), tags };
  }

  @GET('defaults')
  defaults(
    @QueryParam('limit') @DefaultValue('10') limit: number,
    @QueryParam('active') @DefaultValue('true') active: boolean,
    @QueryParam('ids', { elementType: Number }) @DefaultValue('7') ids: number[],
    @HeaderParam('X-Page-Size') @DefaultValue('25') pageSize: number,
    @CookieParam('theme') @DefaultValue('light') theme: string,
  ): unknown {
    return { limit, active, ids, pageSize, theme };
  }

  @GET('sources')
  sources(
    @HeaderParam('X-Tenant-ID') tenantHeader: string,
    @HeaderParam('X-Count') count: number,
    @HeaderParam('X-Tag', { elementType: String }) tagHeaders: string[],
    @CookieParam('session') session: string,
    @CookieParam('n') cookieNumber: number,
  ): unknown {
    return { tenantHeader: show(tenantHeader), count: show(count), tagHeaders, session: show(session), cookieNumber: show(cookieNumber) };
  }

  @GET('missing')
  missing(
    @QueryParam('q') q: string,
    @QueryParam('n') n: number,
    @HeaderParam('X-None') h: string,
    @CookieParam('none') c: string,
    @QueryParam('d') d: Date,
  ): unknown {
    return { q: show(q), n: show(n), h: show(h), c: show(c), d: show(d) };
  }

  @GET('converted')
  converted(@QueryParam('hex') hex: number, @QueryParam('price') price: Money, @QueryParam('tenant') tenant: string): unknown {
    return {
      hex: show(hex),
      money: price === undefined ? '<undefined>' : { isMoney: price instanceof Money, cents: price.cents, currency: price.currency },
      tenant: show(tenant),
    };
  }

  @POST('form')
  form(
    @FormParam('name') name: string,
    @FormParam('age') age: number,
    @FormParam('tag') tags: string[],
    @FormParam('missing') @DefaultValue('dflt') missing: string,
  ): unknown {
    return { name: show(name), age: show(age), tags, missing };
  }

  @GET('ctx/{id}')
  ctx(
    @Context() req: ContainerRequestContext,
    @Context() uri: UriInfo,
    @Context() headers: HttpHeaders,
    @Context() sc: SecurityContext,
    @Context() info: ResourceInfo,
  ): unknown {
    return {
      isRequestContext: req instanceof ContainerRequestContext,
      method: req.method,
      reqHeader: req.getHeader('x-trace'),
      isUriInfo: uri instanceof UriInfo,
      uriPath: uri.path,
      template: uri.matchedTemplate,
      pathParams: { ...uri.pathParameters },
      pathParam: req.pathParam('id'),
      noParam: show(req.pathParam('nope')),
      q: uri.queryParameters.get('q'),
      isHttpHeaders: headers instanceof HttpHeaders,
      header: headers.get('X-Trace'),
      isSecurityContext: sc instanceof SecurityContext,
      authenticated: sc.authenticated,
      principal: show(sc.principal?.name),
      isResourceInfo: info instanceof ResourceInfo,
      resource: info.resourceClass.name,
      methodName: info.methodName,
      httpMethod: info.httpMethod,
      infoPath: info.path,
    };
  }
}

@Path('/bad-default')
class BadDefaultResource {
  @GET()
  get(@QueryParam('limit') @DefaultValue('ten') limit: number): unknown {
    return { limit };
  }
}

@Path('/bad-array-default')
class BadArrayDefaultResource {
  @GET()
  get(@QueryParam('ids', { elementType: Number }) @DefaultValue('x') ids: number[]): unknown {
    return { ids };
  }
}

class A {
  a!: number;
}
class B {
  b!: number;
}
@Path('/two')
class TwoEntitiesResource {
  @POST()
  post(a: A, b: B): unknown {
    return { a, b };
  }
}

@Path('/unconvertible')
class UnconvertibleResource {
  @GET()
  get(@QueryParam('x') x: A): unknown {
    return { x };
  }
}

const app = (): Application =>
  new Application({
    resources: [ParamsResource],
    providers: [UserFilter, HexConverterProvider, TenantConverterProvider],
    logger: () => undefined,
  });

describe.each(TRANSPORTS)('parameters (%s)', (transport) => {
  const send = serveForSuite(transport, () => app());

  it('path params are decoded and converted to the declared type', async () => {
    const r = await send('/p/path/42/hello%20world');
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ id: 42, slug: 'hello world', types: ['number', 'string'] });
  });

  it('built-in conversion: string, number, boolean, bigint, Date', async () => {
    const r = await send('/p/types?s=a+b&n=-3.5&b=TRUE&big=9007199254740993&d=2024-02-29T12:00:00Z');
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ s: 'a b', n: -3.5, b: true, big: 'bigint:9007199254740993', d: '2024-02-29T12:00:00.000Z' });
    expect((await send('/p/types?b=false')).json()).toMatchObject({ b: false });
  });

  it('repeated query values fill an array of the element type; absent → []', async () => {
    const r = await send('/p/ids?ids=3&ids=1&ids=2&tag=x&tag=y');
    expect(r.json()).toEqual({ ids: [3, 1, 2], idTypes: ['number', 'number', 'number'], tags: ['x', 'y'] });
    expect((await send('/p/ids')).json()).toEqual({ ids: [], idTypes: [], tags: [] });
    expect((await send('/p/ids?other=1')).json()).toEqual({ ids: [], idTypes: [], tags: [] });
  });

  it('@DefaultValue is used (converted) when the value is absent, for every source', async () => {
    expect((await send('/p/defaults')).json()).toEqual({ limit: 10, active: true, ids: [7], pageSize: 25, theme: 'light' });
    const r = await send({ url: '/p/defaults?limit=3&active=false&ids=1&ids=2', headers: { 'x-page-size': '5', cookie: 'theme=dark' } });
    expect(r.json()).toEqual({ limit: 3, active: false, ids: [1, 2], pageSize: 5, theme: 'dark' });
  });

  it('header (case-insensitive name, repeated values split into an array) and cookie params', async () => {
    const r = await send({
      url: '/p/sources',
      headers: { 'x-TENANT-id': 'acme', 'X-COUNT': '12', 'x-tag': 'a, b,c', cookie: 'session=s%201; n=5; session=second' },
    });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ tenantHeader: 'acme', count: 12, tagHeaders: ['a', 'b', 'c'], session: 's 1', cookieNumber: 5 });
  });

  it('an undecodable cookie the method does not ask for does not break the request', async () => {
    // Cookies set by other software on the domain (analytics, "50%off") often hold a raw '%'.
    const r = await send({ url: '/p/sources', headers: { cookie: 'promo=50%off; session=abc' } });
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ session: 'abc' });
  });

  it.each([
    ['garbage with a number in it', 'foo%2012'],
    ['an impossible calendar date', '2024-02-30'],
    ['a bare number', '1'],
  ])('Date conversion rejects %s (400, not a silently different date)', async (_name, raw) => {
    const r = await send(`/p/types?d=${raw}`);
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ code: 'PIPE_PARAM_CONVERSION', errors: [{ field: 'query.d' }] });
  });

  it('missing values without a default are undefined', async () => {
    // Nothing sent at all, and only parameters and cookies the method does not ask for.
    for (const req of ['/p/missing', { url: '/p/missing?other=1', headers: { cookie: 'other=1' } }]) {
      // The request is in the compared pair, so a failure says which one it was.
      expect([req, (await send(req)).json()]).toEqual([
        req,
        { q: '<undefined>', n: '<undefined>', h: '<undefined>', c: '<undefined>', d: '<undefined>' },
      ]);
    }
  });

  it('equivalent templates with different variable names: every method gets its own names', async () => {
    expect((await send('/p/path/7/seven')).json()).toMatchObject({ id: 7, slug: 'seven' });
    const r = await send({ method: 'DELETE', url: '/p/path/7/seven' });
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ key: '7', name: 'seven', params: { id: '7', slug: 'seven', key: '7', name: 'seven' } });
  });

  it.each([
    ['0', 0],
    ['007', 7],
    ['123456789012345', 123456789012345],
    ['1234567890123456', 1234567890123456],
    ['9007199254740993', 9007199254740992],
    ['-3', -3],
    ['+4', 4],
    ['1.50', 1.5],
    ['1e3', 1000],
    ['.5', 0.5],
  ])('number conversion: %s is %d (digits take a fast path, the rest the decimal grammar)', async (raw, value) => {
    const r = await send(`/p/types?n=${encodeURIComponent(raw)}`);
    expect(r.status).toBe(200);
    expect(r.json().n).toBe(value);
  });

  it.each(['0x10', '0b1', '1_000', '12a', '١٢', 'Infinity', '1e400', ' 1'])('number conversion refuses %j (400)', async (raw) => {
    const r = await send(`/p/types?n=${encodeURIComponent(raw)}`);
    expect(r.status).toBe(400);
    expect(r.json().code).toBe('PIPE_PARAM_CONVERSION');
  });

  it.each([
    ['query number', '/p/types?n=abc', 'query.n', /query parameter 'n'/],
    ['query number (empty)', '/p/types?n=', 'query.n', /query parameter 'n'/],
    ['query boolean', '/p/types?b=yes', 'query.b', /query parameter 'b'/],
    ['query bigint', '/p/types?big=1.5', 'query.big', /query parameter 'big'/],
    ['query Date', '/p/types?d=not-a-date', 'query.d', /query parameter 'd'/],
    ['array element', '/p/ids?ids=1&ids=x', 'query.ids', /query parameter 'ids'/],
    ['path param (400, not 404)', '/p/path/abc/x', 'path.id', /path parameter 'id'/],
  ])('conversion failure → 400 naming the parameter: %s', async (_name, url, field, message) => {
    const r = await send(url);
    expect(r.status).toBe(400);
    const body = r.json();
    expect(body.code).toBe('PIPE_PARAM_CONVERSION');
    expect(body.message).toMatch(message);
    expect(body.errors).toEqual([expect.objectContaining({ field })]);
  });

  it('conversion failure in a header or cookie → 400 naming the parameter', async () => {
    const h = await send({ url: '/p/sources', headers: { 'x-count': 'many' } });
    expect(h.status).toBe(400);
    expect(h.json()).toMatchObject({ code: 'PIPE_PARAM_CONVERSION', errors: [{ field: 'header.x-count', value: 'many' }] });
    expect(h.json().message).toMatch(/header parameter 'x-count'/i);
    const c = await send({ url: '/p/sources', headers: { cookie: 'n=five' } });
    expect(c.status).toBe(400);
    expect(c.json()).toMatchObject({ code: 'PIPE_PARAM_CONVERSION', errors: [{ field: 'cookie.n', value: 'five' }] });
  });

  it('a ParamConverterProvider wins over the built-in conversion; its throw → 400 naming the parameter', async () => {
    // Built-in Number('10') would be 10 and Number('ff') a 400: the provider's hex reading wins.
    expect((await send('/p/converted?hex=10')).json()).toMatchObject({ hex: 16 });
    expect((await send('/p/converted?hex=ff')).json()).toMatchObject({ hex: 255 });
    const r = await send('/p/converted?hex=zz');
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({
      code: 'PIPE_PARAM_CONVERSION',
      errors: [{ field: 'query.hex', message: 'not hexadecimal', value: 'zz' }],
    });
    expect(r.json().message).toMatch(/'hex'/);
  });

  it('a converter throwing an HTTP error keeps that error', async () => {
    expect((await send('/p/converted?tenant=acme')).json()).toMatchObject({ tenant: 'ACME' });
    expect((await send('/p/converted?tenant=ghost')).status).toBe(404);
  });

  it('a class with a static fromString is converted by it; its throw → 400', async () => {
    expect((await send('/p/converted?price=12.34%20EUR')).json()).toMatchObject({ money: { isMoney: true, cents: 1234, currency: 'EUR' } });
    const r = await send('/p/converted?price=12');
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({
      code: 'PIPE_PARAM_CONVERSION',
      errors: [{ field: 'query.price', message: 'expected "12.34 EUR"', value: '12' }],
    });
  });

  it('@FormParam reads the urlencoded body, with conversion, arrays and defaults', async () => {
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    const r = await send({ method: 'POST', url: '/p/form', headers, body: 'name=Ada+Lovelace&age=36&tag=a&tag=b%26c' });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ name: 'Ada Lovelace', age: 36, tags: ['a', 'b&c'], missing: 'dflt' });
    const bad = await send({ method: 'POST', url: '/p/form', headers, body: 'name=x&age=old' });
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'PIPE_PARAM_CONVERSION', errors: [{ field: 'form.age', value: 'old' }] });
    // No body at all: an empty form, so every field is missing (undefined, [] or its default).
    const empty = await send({ method: 'POST', url: '/p/form' });
    expect(empty.status).toBe(200);
    expect(empty.json()).toEqual({ name: '<undefined>', age: '<undefined>', tags: [], missing: 'dflt' });
  });

  it('@Context injects ContainerRequestContext, UriInfo, HttpHeaders, SecurityContext and ResourceInfo', async () => {
    const anon = await send({ url: '/p/ctx/7?q=search', headers: { 'x-trace': 't-1' } });
    expect(anon.status).toBe(200);
    expect(anon.json()).toEqual({
      isRequestContext: true,
      method: 'GET',
      reqHeader: 't-1',
      isUriInfo: true,
      uriPath: '/p/ctx/7',
      template: '/p/ctx/{id}',
      pathParams: { id: '7' },
      pathParam: '7',
      noParam: '<undefined>',
      q: 'search',
      isHttpHeaders: true,
      header: 't-1',
      isSecurityContext: true,
      authenticated: false,
      principal: '<undefined>',
      isResourceInfo: true,
      resource: 'ParamsResource',
      methodName: 'ctx',
      httpMethod: 'GET',
      infoPath: '/p/ctx/{id}',
    });
    const authed = await send({ url: '/p/ctx/8', headers: { 'x-user': 'alice' } });
    expect(authed.json()).toMatchObject({ authenticated: true, principal: 'alice', pathParams: { id: '8' } });
  });
});

describe.each(TRANSPORTS)('start-up errors of parameters (%s)', (transport) => {
  const expectStartFailure = async (a: Application, message: RegExp): Promise<void> => {
    // in-process: build() throws; socket: listen() builds first and rejects, nothing listens.
    await expect(start(a, transport)).rejects.toThrow(message);
    expect(a.server?.listening ?? false).toBe(false);
  };

  it('a bad @DefaultValue fails at start-up, naming the parameter, its method and the value', async () => {
    await expectStartFailure(new Application({ resources: [BadDefaultResource] }), /'ten'.*'limit'.*BadDefaultResource\.get/);
    await expectStartFailure(new Application({ resources: [BadArrayDefaultResource] }), /'ids'/);
  });

  it('more than one entity parameter fails at start-up', async () => {
    await expectStartFailure(new Application({ resources: [TwoEntitiesResource] }), /TwoEntitiesResource\.post.*more than one entity/);
  });

  it('a parameter type without any conversion fails at start-up, naming the parameter', async () => {
    await expectStartFailure(new Application({ resources: [UnconvertibleResource] }), /'x'/);
  });

  it('the same bad default builds fine once a ParamConverterProvider accepts it', async () => {
    const lenient: ParamConverterProvider = {
      getConverter: (type) => (type === Number ? { fromString: (s: string) => s.length } : undefined),
    };
    const a = new Application({ resources: [BadDefaultResource], providers: [lenient] });
    const { send, stop } = await start(a, transport);
    try {
      expect((await send('/bad-default')).json()).toEqual({ limit: 3 });
    } finally {
      await stop();
    }
  });
});
