import { inject, injectable } from 'tsyringe';
import { ApiTags, ContainerRequestContext, Context, GET, NotFoundError, Path, PathParam, Produces } from '@jaxrs-node/pipeline';
import type { ProductView } from '../../domain/catalog/embedded.js';
import { TOKENS } from '../di-tokens.js';
import { Id } from './ids.js';

/**
 * `GET /api/products/{id}`: the embedded catalog, or with `PRODUCT_CATALOG_URL` the upstream
 * service (timeout 504, refused 503, bad or oversized answer 502).
 */
@injectable()
@Path('/api/products')
@Produces('application/json')
@ApiTags('products')
export class ProductsResource {
  constructor(@inject(TOKENS.products) private readonly products: ProductView) {}

  @GET('{id}')
  async get(@PathParam('id', { type: Id }) id: number, @Context() request: ContainerRequestContext): Promise<unknown> {
    // The request goes along so that the upstream call forwards its request id and trace context.
    const product = await this.products(id, request);
    if (product === undefined) throw new NotFoundError(`Product ${id} not found`);
    return product;
  }
}
