/**
 * Sub-resource locators (Jakarta REST 3.1 §3.4.1, §3.7.2): a method with `@Path` and no HTTP
 * method returns the object (or class) that handles the rest of the path. Filters bound to the
 * locator's class and to the final method both apply (jersey#2686); resource methods beat
 * locators on an equal template; 405/Allow, HEAD and OPTIONS work through them.
 */
import { describe, expect, it } from 'vitest';
import {
  Application,
  Context,
  ContainerRequestContext,
  Entity,
  GET,
  Min,
  ModelValidationError,
  NameBinding,
  Path,
  PathParam,
  PUT,
  QueryParam,
  UriInfo,
  type ContainerResponseContext,
  type ContainerResponseFilter,
} from '../../src/index.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

const Outer = NameBinding('Outer');
const Inner = NameBinding('Inner');

@Outer()
class OuterFilter implements ContainerResponseFilter {
  filterResponse(_req: ContainerRequestContext, res: ContainerResponseContext): void {
    res.setHeader('x-outer', 'yes');
  }
}
@Inner()
class InnerFilter implements ContainerResponseFilter {
  filterResponse(_req: ContainerRequestContext, res: ContainerResponseContext): void {
    res.setHeader('x-inner', 'yes');
  }
}

class Item {
  constructor(
    private readonly shop: string,
    private readonly id: number,
  ) {}
  @Inner() @GET() get(@PathParam('shop') shopParam: string, @Context() uri: UriInfo): object {
    return { shop: this.shop, id: this.id, shopParam, template: uri.matchedTemplate };
  }
  @PUT() put(@Entity() body: { price: number }): object {
    return { shop: this.shop, id: this.id, price: body.price };
  }
  @GET() @Path('price') price(@QueryParam('currency') currency = 'EUR'): string {
    return `${this.id * 10} ${currency}`;
  }
}

class Shop {
  constructor(private readonly name: string) {}
  @GET() info(): object {
    return { name: this.name };
  }
  @Path('items/{id}') item(@PathParam('id') id: number): Item {
    return new Item(this.name, id);
  }
  /** A sub-resource method beats the locator above for this longer template. */
  @GET() @Path('items/{id}/special') special(@PathParam('id') id: string): string {
    return `special ${id}`;
  }
}

class Counter {
  private n = 0;
  @GET() next(): object {
    return { n: ++this.n };
  }
}

class Plain {
  hello(): string {
    return 'no resource methods';
  }
}

@Outer()
@Path('/shops')
class Shops {
  @Path('{shop}') shop(@PathParam('shop') name: string): Shop | undefined {
    return name === 'none' ? undefined : new Shop(name);
  }
  @Path('async/{shop}') async later(@PathParam('shop') name: string): Promise<Shop> {
    await Promise.resolve();
    return new Shop(`later-${name}`);
  }
  @Path('numbered/{n}') numbered(
    @PathParam('n') @Min(1) _n: number,
    @QueryParam('limit', { type: Number }) @Min(1) _limit?: number,
  ): Counter {
    return new Counter();
  }
  @Path('class') byClass(): typeof Counter {
    return Counter;
  }
  @Path('plain') plain(): object {
    return new Plain();
  }
  @Path('bad') bad(): object {
    return 'a string' as unknown as object;
  }
}

@Path('/tie')
class Tie {
  @GET() @Path('{shop}') method(): string {
    return 'method';
  }
  @Path('{shop}') locator(@PathParam('shop') shop: string): Shop {
    return new Shop(shop);
  }
}

describe.each(TRANSPORTS)('sub-resource locators (%s)', (transport) => {
  const logged: string[] = [];
  const send = serveForSuite(
    transport,
    () =>
      new Application({
        resources: [Shops, Tie],
        providers: [OuterFilter, InnerFilter],
        logger: (error) => void logged.push(String(error)),
      }),
  );

  it('matching continues in the object a locator returns, through nested locators, with every path parameter', async () => {
    expect((await send('/shops/acme')).json()).toEqual({ name: 'acme' });
    expect((await send('/shops/acme/items/7')).json()).toEqual({
      shop: 'acme',
      id: 7,
      shopParam: 'acme',
      template: '/shops/{shop}/items/{id}',
    });
    expect((await send('/shops/acme/items/7/price?currency=USD')).text).toBe('70 USD');
  });

  it('reads the entity in the sub-resource method', async () => {
    const r = await send({ method: 'PUT', url: '/shops/acme/items/3', body: { price: 12 } });
    expect(r.json()).toEqual({ shop: 'acme', id: 3, price: 12 });
  });

  it('405 with Allow, automatic HEAD and OPTIONS work through locators', async () => {
    const del = await send({ method: 'DELETE', url: '/shops/acme/items/7' });
    expect(del.status).toBe(405);
    expect(del.headers['allow']).toBe('GET, HEAD, OPTIONS, PUT');
    const head = await send({ method: 'HEAD', url: '/shops/acme/items/7' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    const options = await send({ method: 'OPTIONS', url: '/shops/acme/items/7' });
    expect(options.status).toBe(200);
    expect(options.headers['allow']).toBe('GET, HEAD, OPTIONS, PUT');
  });

  it('a null result or an unmatched rest is a 404', async () => {
    expect((await send('/shops/none')).status).toBe(404);
    expect((await send('/shops/acme/nothing')).status).toBe(404);
    expect((await send('/shops/acme/items/7/price/more')).status).toBe(404);
  });

  it("filters bound to the locator's class and to the final method both apply (jersey#2686)", async () => {
    const r = await send('/shops/acme/items/7');
    expect(r.headers['x-outer']).toBe('yes');
    expect(r.headers['x-inner']).toBe('yes');
    const info = await send('/shops/acme');
    expect(info.headers['x-outer']).toBe('yes');
    expect(info.headers['x-inner']).toBeUndefined();
  });

  it('a sub-resource method beats a locator: on a longer template and on an equal one', async () => {
    expect((await send('/shops/acme/items/5/special')).text).toBe('special 5');
    expect((await send('/tie/x')).text).toBe('method');
    expect((await send('/tie/x/')).text).toBe('method');
  });

  it('a locator on an equal template still takes the longer paths', async () => {
    expect((await send('/tie/x/items/2')).json()).toMatchObject({ shop: 'x', id: 2 });
  });

  it("constraints on a locator's parameters are checked before it runs: 400 naming the parameter", async () => {
    expect((await send('/shops/numbered/2')).json()).toEqual({ n: 1 });
    const bad = await send('/shops/numbered/0');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('path.n');
    // A value that does not convert and a violation of another: one 400 listing both (issue 22).
    const both = await send('/shops/numbered/x?limit=0');
    expect(both.status).toBe(400);
    expect(both.json()).toMatchObject({
      code: 'PIPE_VALIDATION',
      errors: [
        { field: 'path.n', message: "'x' is not a number", value: 'x' },
        { field: 'query.limit', message: 'must be greater than or equal to 1', value: 0 },
      ],
    });
  });

  it('an async locator is awaited', async () => {
    expect((await send('/shops/async/b')).json()).toEqual({ name: 'later-b' });
  });

  it('a locator may return a class: it is resolved from the container per request', async () => {
    expect((await send('/shops/class')).json()).toEqual({ n: 1 });
    expect((await send('/shops/class')).json()).toEqual({ n: 1 });
  });

  it('a returned object without resource methods, or no object at all, is a 500 (a bug, logged), not a hang', async () => {
    expect((await send('/shops/plain')).status).toBe(500);
    expect((await send('/shops/bad')).status).toBe(500);
    expect(logged.join('\n')).toMatch(/Shops\.plain returned a Plain that cannot serve as a sub-resource/);
    expect(logged.join('\n')).toMatch(/Shops\.bad returned a string/);
  });
});

describe('sub-resource locators at build', () => {
  it('a locator taking the entity, and a declared return class that is no resource, fail at start-up', () => {
    @Path('/wrong')
    class Wrong {
      @Path('entity') withEntity(@Entity() _body: object): Shop {
        return new Shop('x');
      }
      @Path('plain') plain(): Plain {
        return new Plain();
      }
    }
    let error: unknown;
    try {
      new Application({ resources: [Wrong] }).build();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ModelValidationError);
    const codes = (error as ModelValidationError).problems.map((p) => p.code);
    expect(codes).toContain('PIPELINE_LOCATOR_ENTITY');
    expect(codes).toContain('PIPELINE_NOT_A_SUB_RESOURCE');
    expect((error as Error).message).toMatch(/Wrong\.withEntity/);
    expect((error as Error).message).toMatch(/Wrong\.plain.*Plain/);
  });

  it('two locators on one template fail at start-up', () => {
    @Path('/twice')
    class Twice {
      @Path('{a}') one(): Shop {
        return new Shop('1');
      }
      @Path('{b}') two(): Shop {
        return new Shop('2');
      }
    }
    expect(() => new Application({ resources: [Twice] }).build()).toThrow(/Twice\.one and Twice\.two are sub-resource locators/);
  });
});
