/**
 * Example 22, parameter objects and constraints on parameters: `@BeanParam` gathers a request's
 * query, path, header and cookie parameters into one class, converted as single parameters are;
 * validation decorators work on those fields and on single parameters; `defineConstraint` makes
 * new ones. Every violation of a request comes back in one 400, each naming its source, together
 * with the values that did not convert.
 *
 *   curl 'localhost:3000/shops/7/products?page=2&size=5&sort=price,desc'
 *   curl -i 'localhost:3000/shops/7/products?size=500&sort=colour'   → 400: query.size, query.sort at once
 *   curl -i 'localhost:3000/shops/7/products?page=-1&size=abc'       → 400: query.size (not an integer) and query.page
 *   curl -i -H 'Accept: application/problem+json, application/json;q=0.9' 'localhost:3000/shops/0/products'
 *                                                                    → 400 as RFC 9457 problem details (errorFormat 'negotiate')
 *   curl -i localhost:3000/shops/0/products                          → 400: path.shop
 *   curl -i -H 'content-type: application/json' -d '{"name":"Pen","price":3}' 'localhost:3000/shops/7/products?dryRun=true'
 *   curl -i -H 'content-type: application/json' -d '{"name":"","price":3}' 'localhost:3000/shops/7/products?copies=3'
 *                                                                    → 400: query.copies (must be even) and name, in one answer
 */
import {
  Application,
  BeanParam,
  DefaultValue,
  defineConstraint,
  Entity,
  GET,
  HeaderParam,
  Max,
  Min,
  NotBlank,
  Path,
  PathParam,
  Pattern,
  POST,
  QueryParam,
  Response,
  Int,
} from '@jaxrs-node/pipeline';

/** A custom constraint: used like the built-ins, on entity fields, parameters and bean fields. */
export const Even = defineConstraint<number>({ name: 'Even', message: 'must be even', check: (n) => n % 2 === 0 });

/** A custom constraint with an argument. */
export const OneOf = defineConstraint<string, [allowed: readonly string[]]>({
  name: 'OneOf',
  message: (allowed) => `must be one of ${allowed.join(', ')}`,
  check: (value, allowed) => allowed.includes(value.split(',')[0]!),
});

/** The paging parameters every list endpoint takes: one class, reused, instantiated per request. */
export class PageQuery {
  @QueryParam('page', { type: Int }) @DefaultValue('0') @Min(0) page!: number;
  @QueryParam('size', { type: Int }) @DefaultValue('20') @Min(1) @Max(100) size!: number;
  @QueryParam('sort') @DefaultValue('name') @OneOf(['name', 'price']) @Pattern(/^[a-z]+(,(asc|desc))?$/) sort!: string;
}

/** Paging plus the shop from the path and the caller's language from a header. */
export class ShopProductsQuery extends PageQuery {
  @PathParam('shop', { type: Int }) @Min(1) shop!: number;
  @HeaderParam('Accept-Language') @DefaultValue('en') language!: string;
}

export class NewProduct {
  @NotBlank() name!: string;
  @Min(0) price!: number;
}

interface Product {
  name: string;
  price: number;
}

const PRODUCTS: Product[] = Array.from({ length: 23 }, (_, i) => ({
  name: `product ${String(i + 1).padStart(2, '0')}`,
  price: (i * 7) % 19,
}));

@Path('/shops/{shop}/products')
export class ShopProducts {
  @GET() list(@BeanParam() q: ShopProductsQuery): object {
    const [field, direction] = q.sort.split(',') as [keyof Product, string | undefined];
    const sorted = [...PRODUCTS].sort((a, b) => (a[field] < b[field] ? -1 : a[field] > b[field] ? 1 : 0) * (direction === 'desc' ? -1 : 1));
    return { shop: q.shop, language: q.language, page: q.page, size: q.size, items: sorted.slice(q.page * q.size, (q.page + 1) * q.size) };
  }

  @POST() create(
    @PathParam('shop', { type: Int }) @Min(1) shop: number,
    @QueryParam('copies', { type: Int }) @DefaultValue('2') @Even() copies: number,
    @QueryParam('dryRun') @DefaultValue('false') dryRun: boolean,
    @Entity() product: NewProduct,
  ): Response {
    if (!dryRun) for (let i = 0; i < copies; i++) PRODUCTS.push({ name: product.name, price: product.price });
    return Response.status(dryRun ? 200 : 201)
      .entity({ shop, copies, dryRun, product })
      .build();
  }
}

export function createApp(): Application {
  // Errors as RFC 9457 problem details for clients whose Accept prefers them, the default body otherwise.
  return new Application({ resources: [ShopProducts], errorFormat: 'negotiate' });
}
