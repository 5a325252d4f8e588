/**
 * Pure validation of the order creation body `{ items: [{ productId, quantity }] }`.
 *
 * Product existence needs the (async, possibly remote) catalog, so it is not checked here; the
 * result lists every structurally valid product reference so the service can look them up and
 * add "does not exist" violations to the same single 400.
 */
import { isOrderStatus, ORDER_STATUSES } from './model.js';
import { isJsonObject, ownField, type ValidationResult, type Violation } from '../users/model.js';

/** Most lines per order: bounds the catalog lookups one request can trigger. */
export const MAX_ORDER_ITEMS = 100;
/** Most units per line. */
export const MAX_QUANTITY = 1000;

/** One validated order line. */
export interface OrderLineInput {
  productId: number;
  quantity: number;
}

/** A validated order body. */
export interface OrderInput {
  items: OrderLineInput[];
}

/** A product id the body refers to, with the field to blame if it does not exist. */
export interface ProductReference {
  field: string;
  productId: number;
}

/** {@link ValidationResult} plus every well-formed product reference, even when other fields failed. */
export interface OrderValidationResult extends ValidationResult<OrderInput> {
  references: ProductReference[];
}

function checkPositiveInteger(field: string, value: unknown, max: number, out: Violation[]): number | undefined {
  if (value === undefined || value === null) return void out.push({ field, message: 'is required' });
  if (typeof value !== 'number' || !Number.isInteger(value)) return void out.push({ field, message: 'must be an integer' });
  if (value < 1 || value > max) return void out.push({ field, message: `must be between 1 and ${max}` });
  return value;
}

/**
 * Validates an order body; collects every violation.
 *
 * @example validateOrderInput({ items: [{ productId: 1, quantity: 0 }] }).violations
 *   // [{ field: 'items[0].quantity', message: 'must be between 1 and 1000' }]
 */
export function validateOrderInput(body: unknown): OrderValidationResult {
  const violations: Violation[] = [];
  const references: ProductReference[] = [];
  if (!isJsonObject(body)) {
    return { value: undefined, violations: [{ field: 'body', message: 'must be a JSON object' }], references };
  }
  const items = ownField(body, 'items');
  if (!Array.isArray(items)) {
    const message = items === undefined || items === null ? 'is required' : 'must be an array';
    return { value: undefined, violations: [{ field: 'items', message }], references };
  }
  if (items.length < 1 || items.length > MAX_ORDER_ITEMS) {
    violations.push({ field: 'items', message: `must contain between 1 and ${MAX_ORDER_ITEMS} items` });
    if (items.length > MAX_ORDER_ITEMS) return { value: undefined, violations, references };
  }
  const lines: OrderLineInput[] = [];
  items.forEach((item: unknown, i) => {
    const at = `items[${i}]`;
    if (!isJsonObject(item)) return void violations.push({ field: at, message: 'must be a JSON object' });
    const productId = checkPositiveInteger(`${at}.productId`, ownField(item, 'productId'), Number.MAX_SAFE_INTEGER, violations);
    const quantity = checkPositiveInteger(`${at}.quantity`, ownField(item, 'quantity'), MAX_QUANTITY, violations);
    if (productId !== undefined) references.push({ field: `${at}.productId`, productId });
    if (productId !== undefined && quantity !== undefined) lines.push({ productId, quantity });
  });
  if (violations.length > 0) return { value: undefined, violations, references };
  return { value: { items: lines }, violations, references };
}

/** Validates a requested status value (400 when it is not a status at all). */
export function validateStatusValue(value: unknown): Violation[] {
  if (isOrderStatus(value)) return [];
  return [{ field: 'status', message: `must be one of ${ORDER_STATUSES.join(', ')}` }];
}
