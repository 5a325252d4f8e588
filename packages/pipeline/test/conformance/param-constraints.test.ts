// Constraints on resource method parameters and @BeanParam fields (Bean Validation 2.0 §5.1.2,
// as Jersey applies it to JAX-RS resources): checked in the VALIDATION slot, after request filters
// and the entity reader, before the method; every violation of the request, the entity's included,
// in ONE 400 whose fields name their source (`query.size`, `path.id`, `header.x-tenant`...).
import { beforeEach, describe, expect, it } from 'vitest';
import {
  Application,
  BeanParam,
  Consumes,
  ContainerRequestContext,
  CookieParam,
  DefaultValue,
  defineConstraint,
  Email,
  Entity,
  FormParam,
  GET,
  HeaderParam,
  IsInt,
  Max,
  Min,
  NotBlank,
  NotNull,
  Path,
  PathParam,
  Pattern,
  POST,
  QueryParam,
  Response,
  Size,
  type ContainerRequestFilter,
} from '../../src/index.js';
import { serveForSuite, TRANSPORTS, type TestResponse } from '../helpers/transports.js';

/** A custom constraint without arguments. */
const Even = defineConstraint<number>({
  name: 'Even',
  message: 'must be even',
  accepts: (v) => typeof v === 'number',
  typeMessage: 'must be a number',
  check: (v) => v % 2 === 0,
});

/** A custom constraint with an argument, its message built from it. */
const StartsWith = defineConstraint<string, [prefix: string]>({
  name: 'StartsWith',
  message: (prefix) => `must start with "${prefix}"`,
  accepts: (v) => typeof v === 'string',
  typeMessage: 'must be a string',
  check: (v, prefix) => v.startsWith(prefix),
});

class Order {
  @NotNull() @Email() email!: string;
  @Even() quantity?: number;
  @StartsWith('ORD-', { message: 'is not an order reference' }) ref?: string;
}

class Paging {
  @QueryParam('size') @DefaultValue('20') @Min(1) @Max(50) size!: number;
  @QueryParam('page') @Even() page?: number;
}

class Filter {
  @QueryParam('q') @Size({ min: 3 }) q?: string;
  @HeaderParam('X-Region') @StartsWith('eu-') region?: string;
  @BeanParam() paging!: Paging;
}

let calls = 0;

/** Aborts before anything is checked when asked: validation comes after request filters. */
class AbortFilter implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    if (ctx.getHeader('x-abort') !== undefined) ctx.abortWith(Response.status(418).entity({ aborted: true }));
  }
}

@Path('/items')
class Items {
  @GET()
  list(
    @QueryParam('size') @DefaultValue('10') @IsInt() @Min(1) @Max(100) size: number,
    @HeaderParam('X-Tenant') @NotBlank() tenant: string,
    @QueryParam('limit') @Min(1) limit?: number,
    @QueryParam('owner') @NotNull() owner?: string,
  ): unknown {
    calls++;
    return { size, tenant, limit: limit ?? null, owner };
  }

  @GET('{id}')
  get(@PathParam('id') @Min(1) id: number, @CookieParam('sid') @Pattern(/[a-f0-9]{8}/) sid?: string): unknown {
    calls++;
    return { id, sid: sid ?? null };
  }

  @POST('{id}')
  update(
    @PathParam('id') @Min(1) id: number,
    @QueryParam('page') @Even({ message: 'pages come in pairs' }) page: number,
    order: Order,
  ): unknown {
    calls++;
    return { id, page, order };
  }

  @POST('draft')
  draft(@QueryParam('dry') @NotNull() dry: boolean, @Entity(Order, { optional: true }) order?: Order): unknown {
    calls++;
    return { dry, absent: order === undefined };
  }

  @POST('form')
  @Consumes('application/x-www-form-urlencoded')
  form(@FormParam('name') @Size({ min: 2 }) name: string, @FormParam('count') @Even() count: number): unknown {
    calls++;
    return { name, count };
  }

  @GET('search')
  search(@BeanParam() filter: Filter): unknown {
    calls++;
    return { q: filter.q ?? null, region: filter.region ?? null, size: filter.paging.size, page: filter.paging.page ?? null };
  }
}

const app = (): Application => new Application({ resources: [Items], providers: [AbortFilter], logger: () => undefined });

type Fields = Array<{ field: string; message: string; value?: unknown }>;
const violations = (r: TestResponse): Fields => {
  expect(r.status).toBe(400);
  expect(r.json().code).toBe('PIPE_VALIDATION');
  return r.json().errors as Fields;
};

describe.each(TRANSPORTS)('constraints on parameters (%s)', (transport) => {
  const send = serveForSuite(transport, app);
  beforeEach(() => {
    calls = 0;
  });
  const tenant = { 'x-tenant': 'acme' };

  it('valid parameters reach the method', async () => {
    const r = await send({ url: '/items?size=5&limit=2&owner=ann', headers: tenant });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ size: 5, tenant: 'acme', limit: 2, owner: 'ann' });
    expect(calls).toBe(1);
  });

  it('every violating parameter in one 400, each field naming its source, the method not called', async () => {
    const r = await send({ url: '/items?size=0&limit=0', headers: { 'x-tenant': '' } });
    expect(violations(r)).toEqual([
      { field: 'query.size', message: 'must be greater than or equal to 1', value: 0 },
      { field: 'header.x-tenant', message: 'must not be blank', value: '' },
      { field: 'query.limit', message: 'must be greater than or equal to 1', value: 0 },
      { field: 'query.owner', message: 'must not be null' },
    ]);
    expect(r.json().message).toBe('Validation failed: query.size must be greater than or equal to 1 (and 3 more)');
    expect(calls).toBe(0);
    expect(violations(await send({ url: '/items?size=1.5&owner=x', headers: tenant }))).toEqual([
      { field: 'query.size', message: 'must be an integer', value: 1.5 },
    ]);
  });

  it('an absent parameter meets only @NotNull/@NotBlank; a default value is checked like a sent one', async () => {
    // limit absent: @Min passes; owner absent: @NotNull fails; tenant absent: @NotBlank fails.
    expect(violations(await send('/items'))).toEqual([
      { field: 'header.x-tenant', message: 'must not be blank' },
      { field: 'query.owner', message: 'must not be null' },
    ]);
    const r = await send({ url: '/items?owner=ann', headers: tenant });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ size: 10, tenant: 'acme', limit: null, owner: 'ann' });
  });

  it('values that do not convert and violations of those that did come in one 400 (PIPE_VALIDATION), conversions first', async () => {
    // Until issue 22 the conversion failure stopped the request and `limit` and `owner` went unreported.
    const r = await send({ url: '/items?size=many&limit=0', headers: tenant });
    expect(violations(r)).toEqual([
      { field: 'query.size', message: "'many' is not a number", value: 'many' },
      { field: 'query.limit', message: 'must be greater than or equal to 1', value: 0 },
      { field: 'query.owner', message: 'must not be null' },
    ]);
    expect(r.json().message).toBe("Validation failed: query.size 'many' is not a number (and 2 more)");
    expect(calls).toBe(0);
  });

  it('only conversion failures: one PIPE_PARAM_CONVERSION 400 naming every one, no constraint repeating them', async () => {
    const r = await send({ url: '/items/x', headers: { cookie: 'sid=0123abcd' } });
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({
      code: 'PIPE_PARAM_CONVERSION',
      message: "Invalid path parameter 'id': 'x' is not a number",
      errors: [{ field: 'path.id', message: "'x' is not a number", value: 'x' }],
    });
    // `dry` is @NotNull: a value that did not convert is not also reported as missing.
    const dry = await send({ method: 'POST', url: '/items/draft?dry=maybe' });
    expect(dry.status).toBe(400);
    expect(dry.json()).toMatchObject({
      code: 'PIPE_PARAM_CONVERSION',
      errors: [{ field: 'query.dry', message: "'maybe' is not a boolean", value: 'maybe' }],
    });
    expect(dry.json().errors).toHaveLength(1);
    const two = await send({ url: '/items?size=many&limit=few&owner=ann', headers: tenant });
    expect(two.json()).toMatchObject({
      code: 'PIPE_PARAM_CONVERSION',
      message: "Invalid query parameter 'size': 'many' is not a number (and 1 more)",
      errors: [
        { field: 'query.size', value: 'many' },
        { field: 'query.limit', value: 'few' },
      ],
    });
    expect(calls).toBe(0);
  });

  it('a conversion failure answers before the entity is read: parameter violations are listed, the body is not validated', async () => {
    const r = await send({
      method: 'POST',
      url: '/items/0?page=x',
      headers: { 'content-type': 'application/json' },
      body: '{"email":"nope"}',
    });
    expect(violations(r)).toEqual([
      { field: 'query.page', message: "'x' is not a number", value: 'x' },
      { field: 'path.id', message: 'must be greater than or equal to 1', value: 0 },
    ]);
  });

  it('@BeanParam fields, nested ones included: the fields that converted are still checked', async () => {
    const r = await send('/items/search?q=ab&size=big&page=3');
    expect(violations(r)).toEqual([
      { field: 'query.size', message: "'big' is not a number", value: 'big' },
      { field: 'query.q', message: 'size must be at least 3', value: 'ab' },
      { field: 'query.page', message: 'must be even', value: 3 },
    ]);
    const only = await send('/items/search?size=big&page=x');
    expect(only.json()).toMatchObject({
      code: 'PIPE_PARAM_CONVERSION',
      errors: [
        { field: 'query.size', value: 'big' },
        { field: 'query.page', value: 'x' },
      ],
    });
  });

  it('path and cookie parameters', async () => {
    expect(violations(await send({ url: '/items/0', headers: { cookie: 'sid=nope' } }))).toEqual([
      { field: 'path.id', message: 'must be greater than or equal to 1', value: 0 },
      { field: 'cookie.sid', message: 'must match "[a-f0-9]{8}"', value: 'nope' },
    ]);
    expect((await send({ url: '/items/3', headers: { cookie: 'sid=0123abcd' } })).json()).toEqual({ id: 3, sid: '0123abcd' });
  });

  it('form parameters', async () => {
    const post = (body: string): Promise<TestResponse> =>
      send({ method: 'POST', url: '/items/form', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    expect(violations(await post('name=A&count=3'))).toEqual([
      { field: 'form.name', message: 'size must be at least 2', value: 'A' },
      { field: 'form.count', message: 'must be even', value: 3 },
    ]);
    expect((await post('name=Al&count=4')).json()).toEqual({ name: 'Al', count: 4 });
  });

  it('one 400 lists parameter and entity violations together, parameters by source, entity fields under body', async () => {
    const r = await send({
      method: 'POST',
      url: '/items/0?page=3',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'nope', quantity: 3, ref: 'X-1' }),
    });
    expect(violations(r)).toEqual([
      { field: 'path.id', message: 'must be greater than or equal to 1', value: 0 },
      { field: 'query.page', message: 'pages come in pairs', value: 3 },
      { field: 'body.email', message: 'must be a well-formed email address', value: 'nope' },
      { field: 'body.quantity', message: 'must be even', value: 3 },
      { field: 'body.ref', message: 'is not an order reference', value: 'X-1' },
    ]);
    expect(calls).toBe(0);
    const ok = await send({
      method: 'POST',
      url: '/items/1?page=2',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ann@example.org', quantity: 4, ref: 'ORD-1' }),
    });
    expect(ok.status).toBe(200);
    expect(calls).toBe(1);
  });

  it('an absent optional entity is not validated, its parameters still are', async () => {
    expect(violations(await send({ method: 'POST', url: '/items/draft' }))).toEqual([{ field: 'query.dry', message: 'must not be null' }]);
    const bad = await send({ method: 'POST', url: '/items/draft?dry=true', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(violations(bad)).toEqual([{ field: 'body.email', message: 'must not be null' }]);
    expect((await send({ method: 'POST', url: '/items/draft?dry=true' })).json()).toEqual({ dry: true, absent: true });
  });

  it('@BeanParam fields, nested beans included, with built-in and custom constraints', async () => {
    const r = await send({ url: '/items/search?q=ab&size=80&page=3', headers: { 'x-region': 'us-1' } });
    expect(violations(r)).toEqual([
      { field: 'query.q', message: 'size must be at least 3', value: 'ab' },
      { field: 'header.x-region', message: 'must start with "eu-"', value: 'us-1' },
      { field: 'query.size', message: 'must be less than or equal to 50', value: 80 },
      { field: 'query.page', message: 'must be even', value: 3 },
    ]);
    expect(calls).toBe(0);
    const ok = await send({ url: '/items/search?q=abc&page=2', headers: { 'x-region': 'eu-west' } });
    expect(ok.json()).toEqual({ q: 'abc', region: 'eu-west', size: 20, page: 2 });
    // Absent fields pass every constraint but @NotNull/@NotBlank.
    expect((await send('/items/search')).json()).toEqual({ q: null, region: null, size: 20, page: null });
  });

  it('runs after the request filters: an aborting filter answers first', async () => {
    const r = await send({ url: '/items?size=0', headers: { 'x-abort': '1' } });
    expect(r.status).toBe(418);
    expect(calls).toBe(0);
  });
});

describe('defineConstraint', () => {
  it('refuses a bad definition or use when the decorator is made, not per request', () => {
    expect(() => defineConstraint({ name: 'not a name', message: 'm', check: () => true })).toThrow(/name must be an identifier/);
    expect(() => defineConstraint({ name: 'Odd', message: 7 as unknown as string, check: () => true })).toThrow(/message must be a string/);
    const call = StartsWith as unknown as (...args: unknown[]) => unknown;
    expect(() => call('a', { message: 'x' }, 'extra')).toThrow(
      /@StartsWith\(\) takes 1 argument\(s\) and an optional \{ message \}, got 3/,
    );
    expect(() => call('a', 'x')).toThrow(/@StartsWith\(\): the argument after its 1 argument\(s\) must be \{ message \}/);
  });

  it('checks absent values only when asked (checksAbsent), like @NotNull', async () => {
    const Present = defineConstraint<unknown>({ name: 'Present', message: 'is required', checksAbsent: true, check: (v) => v != null });
    const Lenient = defineConstraint<unknown>({ name: 'Lenient', message: 'never', check: () => false });
    @Path('/p')
    class P {
      @GET() get(@QueryParam('a') @Present() a?: string, @QueryParam('b') @Lenient() b?: string): unknown {
        return { a, b };
      }
    }
    const app = new Application({ resources: [P], logger: () => undefined });
    const absent = await app.inject({ url: '/p' });
    expect(absent.status).toBe(400);
    expect(absent.json<{ errors: unknown }>().errors).toEqual([{ field: 'query.a', message: 'is required' }]);
    const both = await app.inject({ url: '/p?a=1&b=2' });
    expect(both.json<{ errors: unknown }>().errors).toEqual([{ field: 'query.b', message: 'never', value: '2' }]);
  });
});
