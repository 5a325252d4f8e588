/**
 * OrderService: a user's orders (collection `orders`).
 *
 * Decisions:
 * - Prices come from the injected {@link ProductLookup} at creation and are snapshotted into the
 *   order (name and unit price), so later catalog changes do not rewrite history. Totals are
 *   summed in integer cents (model.ts).
 * - The customer's id and email are snapshotted too. Deleting a user keeps its orders in the
 *   store, but they become unreachable: every order operation answers 404 for an absent user.
 * - An unknown user is 404 before the body is looked at; a bad body is one 400 listing every
 *   violation, unknown products included; an unknown status value is 400; a move the state
 *   machine forbids (same state, skip, backwards, from COMPLETED) is 409.
 * - Transitions of one order are serialized (KeyedLock) and commit with a precondition on the
 *   order's version, so of two concurrent PENDING->PROCESSING requests exactly one succeeds and
 *   the other gets 409, on one instance or several sharing a store. An order commits only if its
 *   user still exists (a precondition of the same batch).
 */
import { isRecordId } from '../../storage/record-codec.js';
import { localVersion, RecordStoreError, type RecordStore } from '../../storage/record-store.js';
import { retryOnConflict } from '../common/conflicts.js';
import type { IdempotentCommit } from '../common/idempotency.js';
import { ConflictError, NotFoundError } from '@jaxrs-node/pipeline';
import type { Product, ProductLookup } from '../catalog/embedded.js';
import { OrdersIndex } from './indexes.js';
import {
  canTransition,
  formatOrderNumber,
  ORDERS_COLLECTION,
  priceToCents,
  toOrderRepresentation,
  type OrderCustomer,
  type OrderRepresentation,
  type OrderStatus,
  type StoredOrder,
  type StoredOrderItem,
} from './model.js';
import { validateOrderInput, validateStatusValue } from './validation.js';
import { formatTimestamp, systemClock, USERS_COLLECTION, validationFailed, type Clock } from '../users/model.js';

/** Finds the customer (an existing user) by id; `undefined` when the user does not exist. */
export type CustomerLookup = (userId: number) => OrderCustomer | undefined;

export interface OrderServiceOptions {
  /** Product prices and names; e.g. `new EmbeddedCatalog().lookup` or an upstream client. */
  findProduct: ProductLookup;
  /** e.g. `(id) => userService.getRecord(id)`. */
  findCustomer: CustomerLookup;
  /** Source of timestamps; defaults to the wall clock. */
  clock?: Clock;
}

/** Domain operations of `/api/users/<id>/orders`. Results are ready-to-serialize representations. */
export class OrderService {
  private readonly index: OrdersIndex;
  private readonly findProduct: ProductLookup;
  private readonly findCustomer: CustomerLookup;
  private readonly clock: Clock;

  constructor(
    private readonly store: RecordStore,
    options: OrderServiceOptions,
  ) {
    this.index = OrdersIndex.of(store);
    this.findProduct = options.findProduct;
    this.findCustomer = options.findCustomer;
    this.clock = options.clock ?? systemClock;
  }

  /**
   * Places an order with status PENDING.
   * @throws NotFoundError for an absent user; BadRequestError listing every violation
   *   (including products that do not exist); whatever the product lookup throws (e.g. 502/504).
   */
  async createForUser(
    userId: number,
    body: unknown,
    options: Partial<IdempotentCommit<OrderRepresentation>> = {},
  ): Promise<OrderRepresentation> {
    this.requireCustomer(userId);
    const { value, violations, references } = validateOrderInput(body);
    const distinct = [...new Set(references.map((ref) => ref.productId))];
    const found = await Promise.all(distinct.map((id) => this.findProduct(id)));
    const products = new Map<number, Product>();
    distinct.forEach((id, i) => {
      const product = found[i];
      if (product !== undefined) products.set(id, product);
    });
    for (const ref of references) {
      if (!products.has(ref.productId)) violations.push({ field: ref.field, message: `product ${ref.productId} does not exist` });
    }
    if (violations.length > 0 || value === undefined) throw validationFailed(violations);
    // Re-read after the await: the user may have been deleted while the catalog answered.
    const customer = this.requireCustomer(userId);
    const items: StoredOrderItem[] = value.items.map((line) => {
      const product = products.get(line.productId) as Product;
      const unitPriceCents = priceToCents(product);
      return {
        product: { id: product.id, name: product.name },
        quantity: line.quantity,
        unitPriceCents,
        lineTotalCents: unitPriceCents * line.quantity,
      };
    });
    const now = formatTimestamp(this.clock());
    const id = await this.store.allocateId(ORDERS_COLLECTION);
    const order: StoredOrder = {
      id,
      orderNumber: formatOrderNumber(id),
      customer: { id: customer.id, email: customer.email },
      items,
      totalCents: items.reduce((sum, item) => sum + item.lineTotalCents, 0),
      status: 'PENDING',
      createdAt: now,
      updatedAt: now,
    };
    // The user must still exist when the order lands (another instance may delete it meanwhile).
    const representation = toOrderRepresentation(order);
    try {
      await this.store.commit(
        [{ op: 'put', collection: ORDERS_COLLECTION, record: order }, ...(options.alsoCommit?.(representation) ?? [])],
        {
          expect: [
            { collection: ORDERS_COLLECTION, id, version: 0 },
            { collection: USERS_COLLECTION, id: customer.id, exists: true },
            ...(options.expect ?? []),
          ],
        },
      );
    } catch (error) {
      if (error instanceof RecordStoreError && error.failed?.collection === USERS_COLLECTION) {
        throw new NotFoundError(`User ${userId} not found`);
      }
      throw error;
    }
    return representation;
  }

  /**
   * The user's orders, ascending id (possibly empty).
   * @throws NotFoundError for an absent user.
   */
  listForUser(userId: number): OrderRepresentation[] {
    this.requireCustomer(userId);
    const out: OrderRepresentation[] = [];
    for (const id of this.index.idsOf(userId)) {
      const order = this.store.get<StoredOrder>(ORDERS_COLLECTION, id);
      if (order !== undefined) out.push(toOrderRepresentation(order));
    }
    return out;
  }

  /** @throws NotFoundError for an absent user or an order that is not theirs. */
  getForUser(userId: number, orderId: number): OrderRepresentation {
    this.requireCustomer(userId);
    return toOrderRepresentation(this.requireOrder(userId, orderId));
  }

  /**
   * Moves an order along PENDING -> PROCESSING -> COMPLETED.
   * @throws NotFoundError (user or order), BadRequestError (not a status value),
   *   ConflictError (a move the state machine forbids).
   */
  transition(userId: number, orderId: number, status: unknown): Promise<OrderRepresentation> {
    return this.index.lock.run(String(orderId), () => retryOnConflict(this.store, () => this.transitionOnce(userId, orderId, status)));
  }

  private async transitionOnce(userId: number, orderId: number, status: unknown): Promise<OrderRepresentation> {
    this.requireCustomer(userId);
    const current = this.requireOrder(userId, orderId);
    const version = this.store.version(ORDERS_COLLECTION, orderId);
    const violations = validateStatusValue(status);
    if (violations.length > 0) throw validationFailed(violations);
    const target = status as OrderStatus;
    if (!canTransition(current.status, target)) {
      throw new ConflictError(`Order ${orderId} cannot move from ${current.status} to ${target}`, {
        code: 'ORDER_INVALID_TRANSITION',
        details: [{ field: 'status', message: `cannot move from ${current.status} to ${target}` }],
      });
    }
    const next: StoredOrder = { ...current, status: target, updatedAt: formatTimestamp(this.clock()), rev: localVersion(current) + 1 };
    // Checked against the status the move starts from: of two racing moves one wins, the other
    // is decided again on the fresh order (and gets its 409).
    await this.store.commit([{ op: 'put', collection: ORDERS_COLLECTION, record: next }], {
      expect: [{ collection: ORDERS_COLLECTION, id: orderId, version }],
    });
    return toOrderRepresentation(next);
  }

  private requireCustomer(userId: number): OrderCustomer {
    const customer = isRecordId(userId) ? this.findCustomer(userId) : undefined;
    if (customer === undefined) throw new NotFoundError(`User ${userId} not found`);
    return customer;
  }

  private requireOrder(userId: number, orderId: number): StoredOrder {
    const order = isRecordId(orderId) ? this.store.get<StoredOrder>(ORDERS_COLLECTION, orderId) : undefined;
    if (order === undefined || order.customer.id !== userId) throw new NotFoundError(`Order ${orderId} not found`);
    return order;
  }
}
