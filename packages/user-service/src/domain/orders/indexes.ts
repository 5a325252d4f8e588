/**
 * Order ids per customer, shared by every OrderService over the same store (WeakMap by store).
 *
 * Why: `GET /api/users/<id>/orders` must not scan every order of every user. The index is built
 * by one lazy scan and then maintained from the store's change notifications.
 */
import type { RecordStore } from '../../storage/record-store.js';
import { KeyedLock } from '../users/keyed-lock.js';
import { ORDERS_COLLECTION, type StoredOrder } from './model.js';

const indexes = new WeakMap<RecordStore, OrdersIndex>();

/** Ascending order ids per customer id, plus the per-order write lock. */
export class OrdersIndex {
  /** Serializes status transitions per order id. */
  readonly lock = new KeyedLock();
  private byCustomer: Map<number, number[]> | undefined;

  private constructor(private readonly store: RecordStore) {
    // Orders never change customer and are never deleted: a new one is all the index must learn,
    // whoever wrote it (another instance of a shared store too).
    store.onChange((collection, id) => {
      if (collection !== ORDERS_COLLECTION) return;
      const order = store.get<StoredOrder>(ORDERS_COLLECTION, id);
      if (order !== undefined) this.added(order.customer.id, id);
    });
  }

  /** The index shared by every service over `store`. */
  static of(store: RecordStore): OrdersIndex {
    let index = indexes.get(store);
    if (index === undefined) {
      index = new OrdersIndex(store);
      indexes.set(store, index);
    }
    return index;
  }

  /** Order ids of one customer, ascending. Do not mutate. */
  idsOf(customerId: number): readonly number[] {
    return this.map().get(customerId) ?? [];
  }

  /** Records a committed order. Idempotent. */
  added(customerId: number, orderId: number): void {
    if (this.byCustomer === undefined) return; // the lazy scan will see it
    let ids = this.byCustomer.get(customerId);
    if (ids === undefined) {
      ids = [];
      this.byCustomer.set(customerId, ids);
    }
    if (ids.includes(orderId)) return;
    ids.push(orderId);
    // Concurrent creates may commit out of id order; lists are short, so a sort is fine.
    if (ids.length > 1 && (ids[ids.length - 2] as number) > orderId) ids.sort((a, b) => a - b);
  }

  private map(): Map<number, number[]> {
    if (this.byCustomer === undefined) {
      const map = new Map<number, number[]>();
      // values() is ascending by id, so each list comes out sorted.
      for (const order of this.store.values<StoredOrder>(ORDERS_COLLECTION)) {
        const ids = map.get(order.customer.id);
        if (ids === undefined) map.set(order.customer.id, [order.id]);
        else ids.push(order.id);
      }
      this.byCustomer = map;
    }
    return this.byCustomer;
  }
}
