/**
 * Order records, money and the status machine.
 *
 * Money is integer cents everywhere inside (stored, summed, multiplied): binary floating point
 * cannot represent most decimal prices (0.1 + 0.2 !== 0.3), and sums of such prices drift. Amounts
 * become numbers only in the representation, as cents / 100, the nearest double to the decimal,
 * which JSON.stringify prints with at most 2 decimals (`999.99`, `89.5`).
 */
import { BadGatewayError } from '@jaxrs-node/pipeline';
import type { StoredRecord } from '../../storage/record-store.js';
import type { Product } from '../catalog/embedded.js';

/** Name of the record-store collection that holds orders. */
export const ORDERS_COLLECTION = 'orders';

/** Order states, in lifecycle order (`docs/api.md` rule 18). */
export const ORDER_STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/**
 * The only moves: PENDING -> PROCESSING -> COMPLETED. Same state, skipping a step and going
 * back are conflicts (409), as is anything from COMPLETED (terminal).
 */
const NEXT_STATUS: Readonly<Record<OrderStatus, OrderStatus | undefined>> = {
  PENDING: 'PROCESSING',
  PROCESSING: 'COMPLETED',
  COMPLETED: undefined,
};

/** True when `value` names an order status. */
export function isOrderStatus(value: unknown): value is OrderStatus {
  return typeof value === 'string' && (ORDER_STATUSES as readonly string[]).includes(value);
}

/** True when the state machine allows `from` -> `to`. */
export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return NEXT_STATUS[from] === to;
}

/** Who placed the order, as snapshotted at creation. */
export interface OrderCustomer {
  id: number;
  email: string;
}

/** One order line as stored: product snapshot and cents. */
export interface StoredOrderItem {
  product: { id: number; name: string };
  quantity: number;
  unitPriceCents: number;
  lineTotalCents: number;
}

/** An order as kept in the record store. */
export interface StoredOrder extends StoredRecord {
  id: number;
  orderNumber: string;
  customer: OrderCustomer;
  items: StoredOrderItem[];
  totalCents: number;
  status: OrderStatus;
  createdAt: string;
  updatedAt: string;
  /** Version on the local stores, moved by every status change (see RecordStore.version). */
  rev?: number;
}

/** One order line as sent to clients. */
export interface OrderItemRepresentation {
  product: { id: number; name: string; price: number };
  quantity: number;
  unitPrice: number;
  lineTotal: number;
}

/** An order as sent to clients (`docs/api.md` rule 17). */
export interface OrderRepresentation {
  id: number;
  orderNumber: string;
  customer: OrderCustomer;
  items: OrderItemRepresentation[];
  totalAmount: number;
  status: OrderStatus;
  createdAt: string;
}

/** `ORD-` + the id zero-padded to 8 digits (`docs/api.md` rule 17: `ORD-` followed by digits). */
export function formatOrderNumber(id: number): string {
  return 'ORD-' + String(id).padStart(8, '0');
}

/**
 * A catalog price (at most 2 decimals, > 0) in integer cents. The lookup may be an upstream
 * service, so a malformed price is that service's fault: 502, never a silently wrong total.
 */
export function priceToCents(product: Product): number {
  const cents = Math.round(product.price * 100);
  const exact = Math.abs(product.price * 100 - cents) < 1e-6;
  if (!Number.isFinite(product.price) || cents <= 0 || !Number.isSafeInteger(cents) || !exact) {
    throw new BadGatewayError(`Product ${product.id} has an invalid price`, { code: 'CATALOG_INVALID_PRICE' });
  }
  return cents;
}

/** Integer cents as a currency amount number (2 decimals at most). */
export function centsToAmount(cents: number): number {
  return cents / 100;
}

/** The Order shape sent to clients; nested objects are fresh copies. */
export function toOrderRepresentation(order: StoredOrder): OrderRepresentation {
  return {
    id: order.id,
    orderNumber: order.orderNumber,
    customer: { id: order.customer.id, email: order.customer.email },
    items: order.items.map((item) => ({
      product: { id: item.product.id, name: item.product.name, price: centsToAmount(item.unitPriceCents) },
      quantity: item.quantity,
      unitPrice: centsToAmount(item.unitPriceCents),
      lineTotal: centsToAmount(item.lineTotalCents),
    })),
    totalAmount: centsToAmount(order.totalCents),
    status: order.status,
    createdAt: order.createdAt,
  };
}
