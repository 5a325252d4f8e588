import { inject, injectable } from 'tsyringe';
import {
  ApiTags,
  Consumes,
  Context,
  DELETE,
  HeaderParam,
  GET,
  PATCH,
  Path,
  PathParam,
  POST,
  PUT,
  Produces,
  BeanParam,
  Response,
  UriBuilder,
  UriInfo,
  WebApplicationError,
  ContainerRequestContext,
  type EntityTag,
  Link,
} from '@jaxrs-node/pipeline';
import type { IdempotencyService } from '../../domain/common/idempotency.js';
import type { OrderService } from '../../domain/orders/service.js';
import type { UserService, WriteOptions } from '../../domain/users/service.js';
import type { OrderRepresentation } from '../../domain/orders/model.js';
import type { Page } from '../../domain/query/paging.js';
import type { AnyUserRepresentation, UserRepresentation, VariantUserRepresentation } from '../../domain/users/representation.js';
import { RateLimited } from '../bindings.js';
import { NewOrder, OrderStatusChange } from '../entities/orders.js';
import { UserInput, UserPatch, VariantUserInput } from '../entities/users.js';
import { fingerprintOf, IDEMPOTENCY_KEY_HEADER, respond } from '../idempotent-response.js';
import { TOKENS } from '../di-tokens.js';
import { Id } from './ids.js';
import { UserListQuery, UserSearchQuery } from './user-queries.js';

/**
 * `/api/users` (`docs/api.md` rules 11-16), the variant resource and the user's orders.
 * Without `page`, `size` or `sort` the list is a JSON array ordered by id (at most 1000); with any
 * of them it is the paged result `{content, page, size, totalElements, totalPages}` plus
 * `X-Total-Count`.
 */
@injectable()
@Path('/api/users')
@Produces('application/json')
@RateLimited()
@ApiTags('users')
export class UsersResource {
  constructor(
    @inject(TOKENS.users) private readonly users: UserService,
    @inject(TOKENS.orders) private readonly orders: OrderService,
    @inject(TOKENS.idempotency) private readonly idempotency: IdempotencyService,
  ) {}

  @GET()
  list(@BeanParam() query: UserListQuery): UserRepresentation[] | Response<Page<UserRepresentation>> {
    const { email } = query;
    if (query.paged) {
      const result = this.users.page(query.pageRequest, { email });
      return Response.ok(result)
        .header('x-total-count', result.totalElements)
        .links(...pageLinks(result, { email, sort: query.sort }))
        .build();
    }
    if (email !== undefined) return this.users.findByEmail(email);
    return this.users.list();
  }

  @GET('search')
  search(@BeanParam() query: UserSearchQuery): unknown {
    return this.users.search(query.email);
  }

  @POST()
  @Consumes('application/json')
  async create(
    body: UserInput,
    @Context() uri: UriInfo,
    @HeaderParam(IDEMPOTENCY_KEY_HEADER) key?: string,
  ): Promise<Response<UserRepresentation>> {
    const outcome = await this.idempotency.execute(
      key,
      () => fingerprintOf(uri, body),
      (claim) =>
        this.users.create(
          body,
          claim?.commitWith((user) => ({ status: 201, location: String(userUri(uri, user.id)), body: user })),
        ),
    );
    return respond(outcome, (user) => Response.created(userUri(uri, user.id)).entity(user).build());
  }

  /** The variant resource: `{name, email}` in, `{id, name, email}` out. */
  @POST('create')
  @Consumes('application/json')
  async createVariant(body: VariantUserInput, @Context() uri: UriInfo): Promise<Response<VariantUserRepresentation>> {
    const user = await this.users.createVariant(body);
    return Response.created(userUri(uri, user.id)).entity(user).build();
  }

  /** With a strong `ETag`; `If-None-Match` (and `If-Modified-Since`-free) conditional GET answers 304. */
  @GET('{id}')
  get(@PathParam('id', { type: Id }) id: number, @Context() ctx: ContainerRequestContext): Response<AnyUserRepresentation> {
    const { user, tag } = this.users.getTagged(id);
    return ctx.evaluatePreconditions({ tag }) ?? Response.ok(user).header('etag', tag.toString()).build();
  }

  @PUT('{id}')
  @Consumes('application/json')
  async replace(
    @PathParam('id', { type: Id }) id: number,
    body: UserInput,
    @Context() ctx: ContainerRequestContext,
  ): Promise<Response<AnyUserRepresentation>> {
    const tagged = conditional(ctx);
    return tagged.respond(await this.users.replace(id, body, tagged.options));
  }

  /** RFC 7396 JSON merge patch (`application/merge-patch+json`, or plain JSON). */
  @PATCH('{id}')
  @Consumes('application/merge-patch+json', 'application/json')
  async patch(
    @PathParam('id', { type: Id }) id: number,
    body: UserPatch,
    @Context() ctx: ContainerRequestContext,
  ): Promise<Response<AnyUserRepresentation>> {
    const tagged = conditional(ctx);
    return tagged.respond(await this.users.patch(id, body, tagged.options));
  }

  @DELETE('{id}')
  async remove(@PathParam('id', { type: Id }) id: number, @Context() ctx: ContainerRequestContext): Promise<void> {
    await this.users.delete(id, conditional(ctx).options);
  }

  @GET('{id}/orders')
  listOrders(@PathParam('id', { type: Id }) id: number): unknown {
    return this.orders.listForUser(id);
  }

  /** Places an order: `{items: [{productId, quantity}]}` → 201 with the order (status PENDING). */
  @POST('{id}/orders')
  @Consumes('application/json')
  async createOrder(
    @PathParam('id', { type: Id }) id: number,
    body: NewOrder,
    @Context() uri: UriInfo,
    @HeaderParam(IDEMPOTENCY_KEY_HEADER) key?: string,
  ): Promise<Response<OrderRepresentation>> {
    const location = (orderId: number) => uri.baseUriBuilder().path(UsersResource).path(UsersResource, 'getOrder').build(id, orderId);
    const outcome = await this.idempotency.execute(
      key,
      () => fingerprintOf(uri, body),
      (claim) =>
        this.orders.createForUser(
          id,
          body,
          claim?.commitWith((order) => ({ status: 201, location: String(location(order.id)), body: order })),
        ),
    );
    return respond(outcome, (order) => Response.created(location(order.id)).entity(order).build());
  }

  @GET('{id}/orders/{orderId}')
  getOrder(@PathParam('id', { type: Id }) id: number, @PathParam('orderId', { type: Id }) orderId: number): OrderRepresentation {
    return this.orders.getForUser(id, orderId);
  }

  /** Moves an order: `{status}`; only PENDING → PROCESSING → COMPLETED, anything else 409. */
  @PUT('{id}/orders/{orderId}/status')
  @Consumes('application/json')
  transition(
    @PathParam('id', { type: Id }) id: number,
    @PathParam('orderId', { type: Id }) orderId: number,
    body: OrderStatusChange,
  ): Promise<OrderRepresentation> {
    return this.orders.transition(id, orderId, body.status);
  }
}

/** The absolute URI of a user: `Location` values are built from the routes' own templates. */
/**
 * `/api/users/{id}`, from the resource's own `@Path`s, read once when the module loads:
 * `UriBuilder.path(Class)` looks the decorator metadata up again on every call, and every create
 * builds a `Location`.
 */
const USER_TEMPLATE = UriBuilder.fromResource(UsersResource).path(UsersResource, 'get').toTemplate();

function userUri(uri: UriInfo, id: number): string {
  return uri.baseUriBuilder().path(USER_TEMPLATE).build(id);
}

/**
 * If-Match / If-Unmodified-Since on a write (RFC 9110 §13.1.1): checked against the user's current
 * tag under its lock, so a stale tag is 412 in the error body and nothing changes; without the
 * headers the write goes ahead as before. The answer carries the new tag.
 */
function conditional(ctx: ContainerRequestContext): { options: WriteOptions; respond: (user: unknown) => Response } {
  let written: EntityTag | undefined;
  const options: WriteOptions = {
    check: (current) => {
      if (ctx.evaluatePreconditions({ tag: current }) !== undefined) {
        throw new WebApplicationError(412, 'The user has changed since the entity tag given in If-Match', { code: 'PRECONDITION_FAILED' });
      }
    },
    written: (tag) => {
      written = tag;
    },
  };
  const respond = (user: unknown): Response => {
    const r = Response.ok(user);
    if (written !== undefined) r.header('etag', written.toString());
    return r.build();
  };
  return { options, respond };
}

/**
 * RFC 8288 links of a page (`first`, `prev`, `next`, `last`), relative to the service's root so
 * they hold behind a proxy; they repeat the request's `size`, `sort` and `email`.
 */
function pageLinks(page: { page: number; size: number; totalPages: number }, query: { email?: string; sort?: string }): Link[] {
  const at = (n: number): string => {
    const q = new URLSearchParams({ page: String(n), size: String(page.size) });
    if (query.sort !== undefined) q.set('sort', query.sort);
    if (query.email !== undefined) q.set('email', query.email);
    return `/api/users?${q.toString()}`;
  };
  const last = Math.max(page.totalPages - 1, 0);
  const links = [Link.of(at(0), 'first')];
  if (page.page > 0) links.push(Link.of(at(Math.min(page.page - 1, last)), 'prev'));
  if (page.page < last) links.push(Link.of(at(page.page + 1), 'next'));
  links.push(Link.of(at(last), 'last'));
  return links;
}
