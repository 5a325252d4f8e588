import { inject, injectable } from 'tsyringe';
import {
  Consumes,
  Context,
  DELETE,
  Entity,
  GET,
  PATCH,
  Path,
  PathParam,
  POST,
  PUT,
  Produces,
  QueryParam,
  Response,
  UriInfo,
} from '@jaxrs-node/pipeline';
import type { OrderService } from '../../domain/orders.js';
import { parsePageQuery } from '../../domain/paging.js';
import type { UserService } from '../../domain/users.js';
import { RateLimited } from '../bindings.js';
import { TOKENS } from '../tokens.js';
import { Id } from './ids.js';

/**
 * `/api/users` (SPEC Endpoints → Users), the variant resource and the user's orders.
 * Without `page`, `size` or `sort` the list is a JSON array ordered by id (at most 1000); with any
 * of them it is the paged result `{content, page, size, totalElements, totalPages}` plus
 * `X-Total-Count`.
 */
@injectable()
@Path('/api/users')
@Produces('application/json')
@RateLimited()
export class UsersResource {
  constructor(
    @inject(TOKENS.users) private readonly users: UserService,
    @inject(TOKENS.orders) private readonly orders: OrderService,
  ) {}

  @GET()
  list(
    @QueryParam('email') email: string | undefined,
    @QueryParam('page') page: string | undefined,
    @QueryParam('size') size: string | undefined,
    @QueryParam('sort') sort: string | undefined,
  ): unknown {
    if (page !== undefined || size !== undefined || sort !== undefined) {
      const result = this.users.page(parsePageQuery({ page, size, sort }), { email });
      return Response.ok(result).header('x-total-count', result.totalElements).build();
    }
    if (email !== undefined) return this.users.findByEmail(email);
    return this.users.list();
  }

  @GET('search')
  search(@QueryParam('email') email: string | undefined): unknown {
    return this.users.search(email ?? '');
  }

  @POST()
  @Consumes('application/json')
  async create(body: unknown, @Context() uri: UriInfo): Promise<Response> {
    const user = await this.users.create(body);
    return Response.created(`${uri.baseUri}/api/users/${user.id}`).entity(user).build();
  }

  /** The variant resource: `{name, email}` in, `{id, name, email}` out. */
  @POST('create')
  @Consumes('application/json')
  async createVariant(body: unknown, @Context() uri: UriInfo): Promise<Response> {
    const user = await this.users.createVariant(body);
    return Response.created(`${uri.baseUri}/api/users/${user.id}`).entity(user).build();
  }

  @GET('{id}')
  get(@PathParam('id', { type: Id }) id: number): unknown {
    return this.users.get(id);
  }

  @PUT('{id}')
  @Consumes('application/json')
  replace(@PathParam('id', { type: Id }) id: number, body: unknown): Promise<unknown> {
    return this.users.replace(id, body);
  }

  /** RFC 7396 JSON merge patch (`application/merge-patch+json`, or plain JSON). */
  @PATCH('{id}')
  @Consumes('application/merge-patch+json', 'application/json')
  patch(@PathParam('id', { type: Id }) id: number, body: unknown): Promise<unknown> {
    return this.users.patch(id, body);
  }

  @DELETE('{id}')
  async remove(@PathParam('id', { type: Id }) id: number): Promise<void> {
    await this.users.delete(id);
  }

  @GET('{id}/orders')
  listOrders(@PathParam('id', { type: Id }) id: number): unknown {
    return this.orders.listForUser(id);
  }

  /** Places an order: `{items: [{productId, quantity}]}` → 201 with the order (status PENDING). */
  @POST('{id}/orders')
  @Consumes('application/json')
  async createOrder(@PathParam('id', { type: Id }) id: number, body: unknown, @Context() uri: UriInfo): Promise<Response> {
    const order = await this.orders.createForUser(id, body);
    return Response.created(`${uri.baseUri}/api/users/${id}/orders/${order.id}`).entity(order).build();
  }

  @GET('{id}/orders/{orderId}')
  getOrder(@PathParam('id', { type: Id }) id: number, @PathParam('orderId', { type: Id }) orderId: number): unknown {
    return this.orders.getForUser(id, orderId);
  }

  /** Moves an order: `{status}`; only PENDING → PROCESSING → COMPLETED, anything else 409. */
  @PUT('{id}/orders/{orderId}/status')
  @Consumes('application/json')
  transition(
    @PathParam('id', { type: Id }) id: number,
    @PathParam('orderId', { type: Id }) orderId: number,
    @Entity(Object) body: { status?: unknown } | null,
  ): Promise<unknown> {
    return this.orders.transition(id, orderId, body === null || typeof body !== 'object' ? undefined : body.status);
  }
}
