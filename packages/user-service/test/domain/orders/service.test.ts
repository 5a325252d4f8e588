import { BadGatewayError, ConflictError, GatewayTimeoutError } from '@jaxrs-node/pipeline';
import { describe, expect, it } from 'vitest';
import { EmbeddedCatalog, type Product, type ProductLookup } from '../../../src/domain/catalog/embedded.js';
import { centsToAmount, formatOrderNumber, ORDER_STATUSES, priceToCents, type OrderStatus } from '../../../src/domain/orders/model.js';
import { MAX_ORDER_ITEMS } from '../../../src/domain/orders/validation.js';
import { OrderService } from '../../../src/domain/orders/service.js';
import { UserService } from '../../../src/domain/users/service.js';
import { FakeRecordStore, fieldsOf, manualClock, rejected } from '../fake-store.js';

function setup(options: { findProduct?: ProductLookup; visibility?: 'sync' | 'deferred' } = {}) {
  const store = new FakeRecordStore({ visibility: options.visibility });
  const { clock } = manualClock();
  const users = new UserService(store, { clock });
  const orders = new OrderService(store, {
    clock,
    findProduct: options.findProduct ?? new EmbeddedCatalog().lookup,
    findCustomer: (id) => users.getRecord(id),
  });
  return { store, users, orders };
}

async function withUser(options?: Parameters<typeof setup>[0]) {
  const context = setup(options);
  const user = await context.users.create({ email: 'buyer@example.com', firstName: 'Bu', lastName: 'Yer' });
  return { ...context, userId: user.id };
}

const product = (id: number, price: number): Product => ({ id, name: `P${id}`, price, currency: 'USD', description: '' });

describe('OrderService.createForUser', () => {
  it('creates a PENDING order priced from the catalog, totals summed in cents', async () => {
    const { orders, userId } = await withUser();
    const order = await orders.createForUser(userId, {
      items: [
        { productId: 1, quantity: 3 },
        { productId: 2, quantity: 1 },
      ],
      extra: 1,
    });
    expect(order).toEqual({
      id: 1,
      orderNumber: 'ORD-00000001',
      customer: { id: userId, email: 'buyer@example.com' },
      items: [
        { product: { id: 1, name: 'Laptop', price: 999.99 }, quantity: 3, unitPrice: 999.99, lineTotal: 2999.97 },
        { product: { id: 2, name: 'Wireless Mouse', price: 29.99 }, quantity: 1, unitPrice: 29.99, lineTotal: 29.99 },
      ],
      totalAmount: 3029.96,
      status: 'PENDING',
      createdAt: '2024-01-15T10:30:00Z',
    });
    expect(999.99 * 3).not.toBe(2999.97); // what float arithmetic would have emitted as lineTotal
  });

  it('sums prices that binary floating point cannot represent exactly', async () => {
    const catalog = new EmbeddedCatalog([product(1, 0.1), product(2, 0.2)]);
    const { orders, userId } = await withUser({ findProduct: catalog.lookup });
    const order = await orders.createForUser(userId, {
      items: [
        { productId: 1, quantity: 1 },
        { productId: 2, quantity: 1 },
      ],
    });
    expect(order.totalAmount).toBe(0.3);
    expect(JSON.stringify(order.totalAmount)).toBe('0.3');
  });

  it('404s an absent user before looking at the body', async () => {
    const { orders } = setup();
    expect((await rejected(orders.createForUser(7, { items: [] }))).status).toBe(404);
    expect((await rejected(orders.createForUser(0, null))).status).toBe(404);
  });

  it('lists every violation, unknown products included, in one 400', async () => {
    const { orders, userId, store } = await withUser();
    const error = await rejected(
      orders.createForUser(userId, {
        items: [
          { productId: 999, quantity: 1 },
          { productId: 1, quantity: 0 },
          { productId: '2', quantity: 1001 },
          'x',
          { quantity: 2.5 },
          { productId: 424242, quantity: 'many' },
        ],
      }),
    );
    expect(error.status).toBe(400);
    expect(error.details).toEqual(
      expect.arrayContaining([
        { field: 'items[0].productId', message: 'product 999 does not exist' },
        { field: 'items[1].quantity', message: 'must be between 1 and 1000' },
        { field: 'items[2].productId', message: 'must be an integer' },
        { field: 'items[2].quantity', message: 'must be between 1 and 1000' },
        { field: 'items[3]', message: 'must be a JSON object' },
        { field: 'items[4].productId', message: 'is required' },
        { field: 'items[4].quantity', message: 'must be an integer' },
        { field: 'items[5].productId', message: 'product 424242 does not exist' },
        { field: 'items[5].quantity', message: 'must be an integer' },
      ]),
    );
    expect((error.details as unknown[]).length).toBe(9);
    expect(store.size('orders')).toBe(0);
  });

  it.each([
    [null, ['body']],
    [[], ['body']],
    [{}, ['items']],
    [{ items: [] }, ['items']],
    [{ items: {} }, ['items']],
    [{ items: Array.from({ length: MAX_ORDER_ITEMS + 1 }, () => ({ productId: 1, quantity: 1 })) }, ['items']],
  ])('rejects the body %j', async (body, fields) => {
    const { orders, userId } = await withUser();
    expect(fieldsOf(await rejected(orders.createForUser(userId, body)))).toEqual(fields);
  });

  it('accepts quantity 1000 and rejects 1001', async () => {
    const { orders, userId } = await withUser();
    expect((await orders.createForUser(userId, { items: [{ productId: 12, quantity: 1000 }] })).totalAmount).toBe(9990);
    expect(fieldsOf(await rejected(orders.createForUser(userId, { items: [{ productId: 12, quantity: 1001 }] })))).toEqual([
      'items[0].quantity',
    ]);
  });

  it('propagates upstream lookup failures and refuses malformed upstream prices (502)', async () => {
    const timeout = await withUser({ findProduct: () => Promise.reject(new GatewayTimeoutError('catalog timed out')) });
    expect((await rejected(timeout.orders.createForUser(timeout.userId, { items: [{ productId: 1, quantity: 1 }] }))).status).toBe(504);
    const weird = await withUser({ findProduct: async (id) => product(id, 1.234) });
    const error = await rejected(weird.orders.createForUser(weird.userId, { items: [{ productId: 1, quantity: 1 }] }));
    expect(error).toBeInstanceOf(BadGatewayError);
    expect(weird.store.size('orders')).toBe(0);
  });

  it('ignores __proto__ payloads', async () => {
    const { orders, userId } = await withUser();
    const body = JSON.parse('{"__proto__":{"polluted":1},"items":[{"__proto__":{"quantity":5},"productId":1,"quantity":1}]}') as unknown;
    const order = await orders.createForUser(userId, body);
    expect(order.items[0]?.quantity).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('OrderService.listForUser / getForUser', () => {
  it("lists only that user's orders, ascending; 404 for absent or deleted users", async () => {
    const { orders, users, userId } = await withUser();
    const other = await users.create({ email: 'o@example.com', firstName: 'Ot', lastName: 'Her' });
    const a = await orders.createForUser(userId, { items: [{ productId: 1, quantity: 1 }] });
    await orders.createForUser(other.id, { items: [{ productId: 2, quantity: 1 }] });
    const c = await orders.createForUser(userId, { items: [{ productId: 3, quantity: 2 }] });
    expect(orders.listForUser(userId).map((o) => o.id)).toEqual([a.id, c.id]);
    expect(orders.listForUser(other.id)).toHaveLength(1);
    expect(orders.getForUser(userId, c.id).orderNumber).toBe(formatOrderNumber(c.id));
    expect(() => orders.getForUser(other.id, c.id)).toThrow(/not found/);
    await users.delete(userId);
    expect(() => orders.listForUser(userId)).toThrow(expect.objectContaining({ status: 404 }));
    expect(() => orders.listForUser(12345)).toThrow(expect.objectContaining({ status: 404 }));
  });

  it('builds the per-user index from orders already in the store', async () => {
    const { orders, store, users, userId } = await withUser();
    await orders.createForUser(userId, { items: [{ productId: 1, quantity: 1 }] });
    const fresh = new OrderService(store, { findProduct: new EmbeddedCatalog().lookup, findCustomer: (id) => users.getRecord(id) });
    expect(fresh.listForUser(userId)).toHaveLength(1);
    expect(orders.listForUser(userId)).toHaveLength(1);
  });
});

describe('order state machine', () => {
  async function orderIn(status: OrderStatus) {
    const context = await withUser();
    const { id } = await context.orders.createForUser(context.userId, { items: [{ productId: 1, quantity: 1 }] });
    const path: OrderStatus[] = ['PROCESSING', 'COMPLETED'];
    for (const step of path.slice(0, ORDER_STATUSES.indexOf(status))) await context.orders.transition(context.userId, id, step);
    return { ...context, orderId: id };
  }

  const allowed = new Set(['PENDING->PROCESSING', 'PROCESSING->COMPLETED']);
  for (const from of ORDER_STATUSES) {
    for (const to of ORDER_STATUSES) {
      const move = `${from}->${to}`;
      it(`${move} is ${allowed.has(move) ? 'allowed' : '409'}`, async () => {
        const { orders, userId, orderId } = await orderIn(from);
        if (allowed.has(move)) {
          expect((await orders.transition(userId, orderId, to)).status).toBe(to);
          expect(orders.getForUser(userId, orderId).status).toBe(to);
        } else {
          const error = await rejected(orders.transition(userId, orderId, to));
          expect(error).toBeInstanceOf(ConflictError);
          expect(orders.getForUser(userId, orderId).status).toBe(from);
        }
      });
    }
  }

  it.each(['DONE', 'pending', '', null, 1, { status: 'PROCESSING' }])('an unknown status %j is 400', async (status) => {
    const { orders, userId, orderId } = await orderIn('PENDING');
    expect(fieldsOf(await rejected(orders.transition(userId, orderId, status)))).toEqual(['status']);
  });

  it('404s an absent order, an order of another user and an absent user', async () => {
    const { orders, users, userId, orderId } = await orderIn('PENDING');
    const other = await users.create({ email: 'o@example.com', firstName: 'Ot', lastName: 'Her' });
    expect((await rejected(orders.transition(userId, 999, 'PROCESSING'))).status).toBe(404);
    expect((await rejected(orders.transition(other.id, orderId, 'PROCESSING'))).status).toBe(404);
    expect((await rejected(orders.transition(999, orderId, 'PROCESSING'))).status).toBe(404);
  });

  it('of two concurrent identical moves exactly one wins, even when the store applies late', async () => {
    const context = await withUser({ visibility: 'deferred' });
    const { id } = await context.orders.createForUser(context.userId, { items: [{ productId: 1, quantity: 1 }] });
    const results = await Promise.allSettled([
      context.orders.transition(context.userId, id, 'PROCESSING'),
      context.orders.transition(context.userId, id, 'PROCESSING'),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const failure = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(failure.reason).toBeInstanceOf(ConflictError);
  });
});

describe('money helpers', () => {
  it('converts prices to cents exactly and back', () => {
    expect(priceToCents(product(1, 999.99))).toBe(99999);
    expect(priceToCents(product(1, 0.07))).toBe(7);
    expect(centsToAmount(8950)).toBe(89.5);
    for (const bad of [0, -1, Number.NaN, Infinity, 0.001]) expect(() => priceToCents(product(1, bad))).toThrow(BadGatewayError);
  });
});
