// Jakarta REST 3.1 §3.2 (fields and bean properties) and @BeanParam: a parameter object whose
// fields carry the parameter decorators, built fresh per request and filled with the converters a
// method parameter of the same source and type gets (@DefaultValue, arrays, ParamConverterProvider).
import { describe, expect, it } from 'vitest';
import {
  Application,
  BeanParam,
  Consumes,
  Context,
  CookieParam,
  DefaultValue,
  FormParam,
  GET,
  HeaderParam,
  Path,
  PathParam,
  POST,
  QueryParam,
  UriInfo,
  type ParamConverter,
  type ParamConverterProvider,
  type ParamInfo,
  type TypeToken,
} from '../../src/index.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

/** A value class with its own converter provider, to show fields use the registered converters. */
class Currency {
  constructor(readonly code: string) {}
}
class CurrencyConverters implements ParamConverterProvider {
  getConverter(type: TypeToken, _info: ParamInfo): ParamConverter | undefined {
    if (type !== Currency) return undefined;
    return {
      fromString(raw: string): Currency {
        if (!/^[A-Z]{3}$/.test(raw)) throw new Error('expected a three-letter currency code');
        return new Currency(raw);
      },
    };
  }
}

/** Fields a subclass inherits. */
class Paging {
  @QueryParam('page') @DefaultValue('1') page!: number;
  @QueryParam('size') @DefaultValue('20') size!: number;
  /** Absent and without @DefaultValue: the initializer stays. */
  @QueryParam('sort') sort: string = 'name';
}

class Tenant {
  @HeaderParam('X-Tenant') id?: string;
  @CookieParam('sid') session?: string;
}

class OrderQuery extends Paging {
  @PathParam('customer') customer!: number;
  @QueryParam('tag') tags!: string[];
  @QueryParam('since') since?: Date;
  @QueryParam('open') open?: boolean;
  @QueryParam('currency') currency?: Currency;
  @BeanParam() tenant!: Tenant;
  @Context() uri!: UriInfo;
  /** Not decorated: never set. */
  note = 'untouched';
}

/** An interface-typed parameter needs the class given explicitly. */
interface SignUpFields {
  name: string;
  age: number;
  newsletter: boolean;
}
class SignUp implements SignUpFields {
  @FormParam('name') name!: string;
  @FormParam('age') age!: number;
  @FormParam('newsletter') @DefaultValue('false') newsletter!: boolean;
}

const seen: OrderQuery[] = [];

@Path('/customers/{customer}/orders')
class Orders {
  @GET()
  list(@BeanParam() q: OrderQuery, @QueryParam('page') rawPage?: string): unknown {
    seen.push(q);
    return {
      isOrderQuery: q instanceof OrderQuery,
      tenantIsTenant: q.tenant instanceof Tenant,
      customer: q.customer,
      page: q.page,
      size: q.size,
      sort: q.sort,
      tags: q.tags,
      since: q.since?.toISOString() ?? null,
      open: q.open ?? null,
      currency: q.currency?.code ?? null,
      tenant: q.tenant.id ?? null,
      session: q.tenant.session ?? null,
      path: q.uri.path,
      note: q.note,
      rawPage: rawPage ?? null,
    };
  }

  @POST('signup')
  @Consumes('application/x-www-form-urlencoded')
  signUp(@PathParam('customer') customer: number, @BeanParam(SignUp) form: SignUpFields): unknown {
    return { customer, isSignUp: form instanceof SignUp, ...form };
  }
}

describe.each(TRANSPORTS)('@BeanParam (%s)', (transport) => {
  const send = serveForSuite(
    transport,
    () => new Application({ resources: [Orders], providers: [CurrencyConverters], logger: () => undefined }),
  );

  it('sets every source on a fresh instance, converted like method parameters, nested beans and inherited fields included', async () => {
    const r = await send({
      url: '/customers/42/orders?page=3&tag=a&tag=b&since=2024-02-29&open=true&currency=EUR',
      headers: { 'x-tenant': 'acme', cookie: 'sid=s-1; other=x' },
    });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({
      isOrderQuery: true,
      tenantIsTenant: true,
      customer: 42,
      page: 3,
      size: 20,
      sort: 'name',
      tags: ['a', 'b'],
      since: '2024-02-29T00:00:00.000Z',
      open: true,
      currency: 'EUR',
      tenant: 'acme',
      session: 's-1',
      path: '/customers/42/orders',
      note: 'untouched',
      rawPage: '3',
    });
  });

  it('applies @DefaultValue to absent fields and keeps initializers of fields without one', async () => {
    const r = await send('/customers/7/orders?sort=date');
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ customer: 7, page: 1, size: 20, sort: 'date', tags: [], since: null, open: null, tenant: null });
    expect((await send('/customers/7/orders')).json()).toMatchObject({ page: 1, sort: 'name' });
  });

  it('builds one instance per request: nothing of one request leaks into the next', async () => {
    seen.length = 0;
    const first = await send({ url: '/customers/1/orders?tag=x&open=false', headers: { 'x-tenant': 'acme', cookie: 'sid=abc' } });
    const second = await send('/customers/2/orders');
    expect(first.json()).toMatchObject({ customer: 1, tags: ['x'], open: false, tenant: 'acme', session: 'abc' });
    expect(second.json()).toMatchObject({ customer: 2, tags: [], open: null, tenant: null, session: null });
    expect(seen).toHaveLength(2);
    expect(seen[0]).not.toBe(seen[1]);
    expect(seen[0]!.tenant).not.toBe(seen[1]!.tenant);
    expect(seen[0]!.tenant.id).toBe('acme'); // the first request's object is left as it was
  });

  it('answers a conversion failure with 400 naming the parameter, as for method parameters', async () => {
    const page = await send('/customers/1/orders?page=abc');
    expect(page.status).toBe(400);
    expect(page.json()).toMatchObject({
      code: 'PIPE_PARAM_CONVERSION',
      message: "Invalid query parameter 'page': 'abc' is not a number",
      errors: [{ field: 'query.page', message: "'abc' is not a number", value: 'abc' }],
    });
    const currency = await send('/customers/1/orders?currency=euro');
    expect(currency.status).toBe(400);
    expect(currency.json().message).toBe("Invalid query parameter 'currency': expected a three-letter currency code");
    const since = await send('/customers/1/orders?since=2024-02-30');
    expect(since.status).toBe(400);
    expect(since.json().errors).toEqual([{ field: 'query.since', message: "'2024-02-30' is not a date", value: '2024-02-30' }]);
    const path = await send('/customers/x/orders');
    expect(path.status).toBe(400);
    expect(path.json().message).toBe("Invalid path parameter 'customer': 'x' is not a number");
  });

  it('fills @FormParam fields from the form body, with the class given by @BeanParam(Type)', async () => {
    const r = await send({
      method: 'POST',
      url: '/customers/5/orders/signup',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=Ada+Lovelace&age=36',
    });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ customer: 5, isSignUp: true, name: 'Ada Lovelace', age: 36, newsletter: false });
    const bad = await send({
      method: 'POST',
      url: '/customers/5/orders/signup',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=Ada&age=old&newsletter=true',
    });
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'PIPE_PARAM_CONVERSION', message: "Invalid form parameter 'age': 'old' is not a number" });
  });
});
