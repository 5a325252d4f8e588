// Entity validation in the VALIDATION (6000) slot: after every request filter and the reader
// (interceptors included), before the method; every violation listed with its field path (400).
import { beforeEach, describe, expect, it } from 'vitest';
import {
  Application,
  ContainerRequestContext,
  Email,
  Entity,
  IsInt,
  Max,
  Min,
  NotBlank,
  NotNull,
  Path,
  Pattern,
  POST,
  PUT,
  Priority,
  Response,
  Size,
  Valid,
  type ContainerRequestFilter,
  type ContainerResponseContext,
  type ContainerResponseFilter,
  type ReaderInterceptor,
  type ReaderInterceptorContext,
} from '../../src/index.js';
import { serveForSuite, TRANSPORTS, type Send } from '../helpers/transports.js';

class Address {
  @NotBlank() city!: string;
  @Pattern(/\d{5}/, 'must be 5 digits') zip!: string;
}

class Item {
  @NotBlank() sku!: string;
  @IsInt() @Min(1) qty!: number;
}

class Order {
  @NotNull() @Email() email!: string;
  @NotBlank() @Size({ min: 2, max: 20 }) name!: string;
  @IsInt() @Min(18) @Max(130) age?: number;
  @Pattern(/ORD-\d+/) ref?: string;
  @Valid() address?: Address;
  @Size({ min: 1, max: 3 }) @Valid(Item) items?: Item[];
}

const trail = (ctx: ContainerRequestContext, step: string): void => {
  const list = (ctx.getProperty('trail') as string[] | undefined) ?? [];
  list.push(step);
  ctx.setProperty('trail', list);
};

let methodCalls = 0;

/** Runs later than the VALIDATION priority value (6000): validation must still come after it. */
@Priority(9000)
class LateFilter implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    trail(ctx, 'filter-9000');
    if (ctx.getHeader('x-abort') !== undefined) ctx.abortWith(Response.status(418).entity({ aborted: true }));
  }
}

@Priority(1000)
class EarlyFilter implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    trail(ctx, 'filter-1000');
  }
}

/** Reader interceptors run before validation, which sees what they return. */
class FillRefInterceptor implements ReaderInterceptor {
  async aroundReadFrom(ctx: ReaderInterceptorContext): Promise<unknown> {
    trail(ctx.request, 'reader-interceptor');
    const value = (await ctx.proceed()) as Record<string, unknown> | undefined;
    if (value !== undefined && ctx.request.getHeader('x-fill-ref') !== undefined) value.ref = 'ORD-1';
    return value;
  }
}

class TrailHeader implements ContainerResponseFilter {
  filterResponse(req: ContainerRequestContext, res: ContainerResponseContext): void {
    res.setHeader('x-trail', ((req.getProperty('trail') as string[] | undefined) ?? []).join(','));
  }
}

@Path('/orders')
class OrderResource {
  @POST()
  create(order: Order): unknown {
    methodCalls++;
    return { accepted: order };
  }

  @PUT()
  replace(@Entity(Order, { optional: true }) order: Order | undefined): unknown {
    methodCalls++;
    return { absent: order === undefined };
  }
}

const app = (): Application =>
  new Application({
    resources: [OrderResource],
    providers: [LateFilter, EarlyFilter, FillRefInterceptor, TrailHeader],
    logger: () => undefined,
  });

const valid = {
  email: 'ada@example.org',
  name: 'Ada',
  age: 36,
  ref: 'ORD-42',
  address: { city: 'London', zip: '12345' },
  items: [
    { sku: 'a', qty: 1 },
    { sku: 'b', qty: 2 },
  ],
};

describe.each(TRANSPORTS)('validation (%s)', (transport) => {
  const send = serveForSuite(transport, () => app());
  beforeEach(() => {
    methodCalls = 0;
  });

  const post = (body: unknown, headers: Record<string, string> = {}): ReturnType<Send> =>
    send({ method: 'POST', url: '/orders', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const fields = (r: Awaited<ReturnType<Send>>): Array<{ field: string; message: string }> =>
    (r.json().errors as Array<{ field: string; message: string }>).map(({ field, message }) => ({ field, message }));

  it('a valid body reaches the method unchanged', async () => {
    const r = await post(valid);
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ accepted: valid });
    expect(methodCalls).toBe(1);
  });

  it('five violations at once, each with its field path', async () => {
    const r = await post({
      ...valid,
      email: 'nope',
      name: 'x',
      age: 200,
      address: { city: ' ', zip: '12345' },
      items: [valid.items[0], { sku: 'c', qty: 0 }],
    });
    expect(r.status).toBe(400);
    const body = r.json();
    expect(body).toMatchObject({ status: 400, code: 'PIPE_VALIDATION' });
    expect(body.message).toMatch(/^Validation failed: body\.email .*\(and 4 more\)$/);
    expect(fields(r)).toEqual([
      { field: 'body.email', message: 'must be a well-formed email address' },
      { field: 'body.name', message: 'size must be between 2 and 20' },
      { field: 'body.age', message: 'must be less than or equal to 130' },
      { field: 'body.address.city', message: 'must not be blank' },
      { field: 'body.items[1].qty', message: 'must be greater than or equal to 1' },
    ]);
    expect(methodCalls).toBe(0);
  });

  it('every constraint kind, nested objects and array elements in one answer', async () => {
    const r = await post({
      email: 'not-an-email',
      name: ' ',
      age: 17.5,
      ref: 'ORD-x',
      address: { city: '', zip: '123' },
      items: [
        { sku: 'a', qty: 1 },
        { sku: '', qty: 0 },
      ],
    });
    expect(r.status).toBe(400);
    expect(fields(r)).toEqual([
      { field: 'body.email', message: 'must be a well-formed email address' },
      { field: 'body.name', message: 'must not be blank' },
      { field: 'body.name', message: 'size must be between 2 and 20' },
      { field: 'body.age', message: 'must be an integer' },
      { field: 'body.age', message: 'must be greater than or equal to 18' },
      { field: 'body.ref', message: 'must match "ORD-\\d+"' },
      { field: 'body.address.city', message: 'must not be blank' },
      { field: 'body.address.zip', message: 'must be 5 digits' },
      { field: 'body.items[1].sku', message: 'must not be blank' },
      { field: 'body.items[1].qty', message: 'must be greater than or equal to 1' },
    ]);
  });

  it('missing required fields, wrong shapes and too many elements', async () => {
    expect(fields(await post({}))).toEqual([
      { field: 'body.email', message: 'must not be null' },
      { field: 'body.name', message: 'must not be blank' },
    ]);
    expect(
      fields(await post({ ...valid, age: '36', address: 'London', items: [valid.items[0], valid.items[0], valid.items[0], 5] })),
    ).toEqual([
      { field: 'body.age', message: 'must be a finite number' },
      { field: 'body.address', message: 'must be an object' },
      { field: 'body.items', message: 'size must be between 1 and 3' },
      { field: 'body.items[3]', message: 'must be an object' },
    ]);
    expect(fields(await post([valid]))).toEqual([{ field: 'body', message: 'must be an object' }]);
  });

  it('runs after every request filter (even one at priority 9000) and the reader interceptors, before the method', async () => {
    const r = await post({ ...valid, ref: 'bad' });
    expect(r.status).toBe(400);
    expect(r.headers['x-trail']).toBe('filter-1000,filter-9000,reader-interceptor');
    expect(fields(r)).toEqual([{ field: 'body.ref', message: 'must match "ORD-\\d+"' }]);
    expect(methodCalls).toBe(0);
    // Validation checks the value the interceptors produced.
    const fixed = await post({ ...valid, ref: 'bad' }, { 'x-fill-ref': '1' });
    expect(fixed.status).toBe(200);
    expect(fixed.json().accepted.ref).toBe('ORD-1');
    expect(methodCalls).toBe(1);
  });

  it('an aborting request filter stops the request before the entity is read or validated', async () => {
    const r = await post({}, { 'x-abort': '1' });
    expect(r.status).toBe(418);
    expect(r.headers['x-trail']).toBe('filter-1000,filter-9000');
    expect(methodCalls).toBe(0);
  });

  it('an absent optional entity is not validated; a present one is', async () => {
    const absent = await send({ method: 'PUT', url: '/orders' });
    expect(absent.status).toBe(200);
    expect(absent.json()).toEqual({ absent: true });
    const present = await send({ method: 'PUT', url: '/orders', headers: { 'content-type': 'application/json' }, body: '{"name":"Al"}' });
    expect(present.status).toBe(400);
    expect(fields(present)).toEqual([{ field: 'body.email', message: 'must not be null' }]);
  });
});
