/**
 * The order request bodies as classes (see users.ts beside it for how they are used).
 *
 * The lines of an order are checked by the domain, not in the VALIDATION slot: the domain lists
 * a line's violations together with the products that do not exist in one 400 (`docs/api.md` rule 17),
 * which a check before the method cannot (the catalog is asynchronous), and it stops at 100
 * lines before looking at any, which bounds the work and the error body. {@link OrderLine}'s
 * decorators state that rule for the document; test/unit/entities pins it to the domain's.
 */
import { ArrayOf } from '@jaxrs-node/pipeline';
import { ORDER_STATUSES, type OrderStatus } from '../../domain/orders/model.js';
import { MAX_ORDER_ITEMS, MAX_QUANTITY } from '../../domain/orders/validation.js';
import { IntegerBetween, ItemCount, OneOf, Required } from './constraints.js';

/**
 * One line of an order: a product of the catalog and how many.
 * @example
 * const line: OrderLine = { productId: 1, quantity: 2 };
 */
export class OrderLine {
  @Required() @IntegerBetween(1, Number.MAX_SAFE_INTEGER) productId!: number;
  @Required() @IntegerBetween(1, MAX_QUANTITY) quantity!: number;
}

/**
 * An order as a client places it (`POST /api/users/{id}/orders`).
 * @example
 * const body: NewOrder = { items: [{ productId: 1, quantity: 2 }] };
 */
export class NewOrder {
  @Required() @ItemCount(1, MAX_ORDER_ITEMS) @ArrayOf(OrderLine) items!: OrderLine[];
}

/**
 * The status an order moves to (`PUT /api/users/{id}/orders/{orderId}/status`); whether the move
 * is allowed is the domain's state machine (409 otherwise).
 * @example
 * const body: OrderStatusChange = { status: 'PROCESSING' };
 */
export class OrderStatusChange {
  @OneOf(ORDER_STATUSES) status!: OrderStatus;
}
