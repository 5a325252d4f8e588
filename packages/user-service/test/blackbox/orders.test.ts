import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, removeDir, startServer, type HttpResult, type RunningServer } from '../helpers/server.js';

/**
 * Orders per user (SPEC "Order"): the seeded orders of user 1, placing an order priced from the
 * catalog, and the status machine PENDING -> PROCESSING -> COMPLETED (any other move 409,
 * an unknown status 400, an absent user 404).
 */

const STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED'];

interface Order {
  id: number;
  orderNumber: string;
  customer: { id: number; email: string };
  items: { product: { name: string }; quantity: number }[];
  totalAmount: number;
  status: string;
}

let server: RunningServer;
let buyer: { id: number; email: string };

beforeAll(async () => {
  server = await startServer();
  const r = await http(server.url, 'POST', '/api/users', { body: { email: 'buyer@example.com', firstName: 'Bu', lastName: 'Yer' } });
  expect(r.status).toBe(201);
  buyer = r.json();
});
afterAll(async () => {
  expect(await server.stop('SIGTERM')).toBe(0);
  removeDir(server.dataDir);
});

/** The SPEC's Order table, checked field by field. */
function expectSpecOrder(order: Order, customerId: number): void {
  expect(Number.isInteger(order.id)).toBe(true);
  expect(order.orderNumber).toMatch(/^ORD-\d+$/);
  expect(order.customer.id).toBe(customerId);
  expect(typeof order.customer.email).toBe('string');
  expect(order.customer.email.length).toBeGreaterThan(0);
  expect(order.items.length).toBeGreaterThanOrEqual(1);
  for (const item of order.items) {
    expect(typeof item.product.name).toBe('string');
    expect(item.product.name.length).toBeGreaterThan(0);
    expect(item.quantity).toBeGreaterThan(0);
  }
  expect(typeof order.totalAmount).toBe('number');
  expect(order.totalAmount).toBeGreaterThan(0);
  expect(STATUSES).toContain(order.status);
}

function place(userId: number, body: unknown): Promise<HttpResult> {
  return http(server.url, 'POST', `/api/users/${userId}/orders`, { body });
}

function move(userId: number, orderId: number, status: unknown): Promise<HttpResult> {
  return http(server.url, 'PUT', `/api/users/${userId}/orders/${orderId}/status`, { body: { status } });
}

describe('GET /api/users/<id>/orders', () => {
  it('lists at least one order of seeded user 1, each matching the SPEC Order table', async () => {
    const r = await http(server.url, 'GET', '/api/users/1/orders');
    expect(r.status).toBe(200);
    const orders = r.json() as Order[];
    expect(orders.length).toBeGreaterThanOrEqual(1);
    for (const o of orders) {
      expectSpecOrder(o, 1);
      expect(o.customer.email).toBe('test@example.com');
    }
  });

  it('answers an empty array for a user without orders and 404 for an absent user', async () => {
    const none = await http(server.url, 'GET', `/api/users/${buyer.id}/orders`);
    expect(none.status).toBe(200);
    expect(none.json()).toEqual([]);
    const absent = await http(server.url, 'GET', '/api/users/424242/orders');
    expect(absent.status).toBe(404);
    expect(absent.json()).toMatchObject({ status: 404, error: 'Not Found' });
  });
});

describe('POST /api/users/<id>/orders', () => {
  it('creates a PENDING order (201) whose total is computed from the catalog prices', async () => {
    const lines = [
      { productId: 1, quantity: 2 },
      { productId: 3, quantity: 1 },
      { productId: 12, quantity: 3 },
    ];
    // Embedded catalog (src/domain/catalog/embedded.ts): Laptop 999.99, Mechanical Keyboard 89.50, HDMI
    // Cable 9.99, so 2 × 999.99 + 89.50 + 3 × 9.99 = 2119.45. A literal, not the service's own
    // /api/products prices, so a wrong price in the catalog or the order fails here.
    const catalog: Record<number, [string, number]> = {
      1: ['Laptop', 999.99],
      3: ['Mechanical Keyboard', 89.5],
      12: ['HDMI Cable 2 m', 9.99],
    };
    for (const line of lines) {
      const p = await http(server.url, 'GET', `/api/products/${line.productId}`);
      expect(p.status).toBe(200);
      expect(p.json()).toMatchObject({ name: catalog[line.productId]?.[0], price: catalog[line.productId]?.[1] });
    }
    const r = await place(buyer.id, { items: lines });
    expect(r.status).toBe(201);
    const order = r.json() as Order;
    expectSpecOrder(order, buyer.id);
    expect(order.customer.email).toBe(buyer.email);
    expect(order.status).toBe('PENDING');
    expect(order.items.map((i) => i.quantity)).toEqual([2, 1, 3]);
    expect(order.items.map((i) => i.product.name)).toEqual(['Laptop', 'Mechanical Keyboard', 'HDMI Cable 2 m']);
    expect(order.totalAmount).toBe(2119.45); // exact: no float drift (e.g. 2119.4500000000003)
    const listed = (await http(server.url, 'GET', `/api/users/${buyer.id}/orders`)).json() as Order[];
    expect(listed.map((o) => o.id)).toContain(order.id);
  });

  it('rejects bad bodies with 400 listing every violation (unknown product, zero quantity, no items)', async () => {
    const bad = await place(buyer.id, {
      items: [
        { productId: 99_999, quantity: 1 },
        { productId: 1, quantity: 0 },
      ],
    });
    expect(bad.status).toBe(400);
    const fields = (bad.json().errors as { field: string }[]).map((e) => e.field);
    expect(fields.length).toBe(2);
    expect(fields.join(' ')).toMatch(/items\[0\]/);
    expect(fields.join(' ')).toMatch(/items\[1\]/);
    for (const body of [{ items: [] }, {}, { items: 'x' }, [{ productId: 1, quantity: 1 }]]) {
      const r = await place(buyer.id, body);
      expect(r.status).toBe(400);
      expect(r.json().errors.length).toBeGreaterThan(0);
    }
  });

  it('answers 404 for an absent user (even with a valid body)', async () => {
    const r = await place(424_242, { items: [{ productId: 1, quantity: 1 }] });
    expect(r.status).toBe(404);
  });
});

describe('PUT /api/users/<id>/orders/<oid>/status', () => {
  async function freshOrder(): Promise<Order> {
    const r = await place(buyer.id, { items: [{ productId: 2, quantity: 1 }] });
    expect(r.status).toBe(201);
    return r.json();
  }

  it('moves PENDING -> PROCESSING -> COMPLETED (200, the new status in the body and on GET)', async () => {
    const order = await freshOrder();
    const a = await move(buyer.id, order.id, 'PROCESSING');
    expect(a.status).toBe(200);
    expect(a.json().status).toBe('PROCESSING');
    const b = await move(buyer.id, order.id, 'COMPLETED');
    expect(b.status).toBe(200);
    expectSpecOrder(b.json(), buyer.id);
    expect(b.json().status).toBe('COMPLETED');
    const got = await http(server.url, 'GET', `/api/users/${buyer.id}/orders/${order.id}`);
    expect(got.json().status).toBe('COMPLETED');
  });

  it('answers 409 with the error body for every other move, leaving the status unchanged', async () => {
    const order = await freshOrder();
    for (const target of ['PENDING', 'COMPLETED']) {
      const r = await move(buyer.id, order.id, target);
      expect(r.status, `PENDING -> ${target}`).toBe(409);
      expect(r.json()).toMatchObject({ status: 409, error: 'Conflict' });
    }
    expect((await move(buyer.id, order.id, 'PROCESSING')).status).toBe(200);
    for (const target of ['PENDING', 'PROCESSING'])
      expect((await move(buyer.id, order.id, target)).status, `PROCESSING -> ${target}`).toBe(409);
    expect((await move(buyer.id, order.id, 'COMPLETED')).status).toBe(200);
    for (const target of STATUSES) expect((await move(buyer.id, order.id, target)).status, `COMPLETED -> ${target}`).toBe(409);
    expect((await http(server.url, 'GET', `/api/users/${buyer.id}/orders/${order.id}`)).json().status).toBe('COMPLETED');
  });

  it('answers 400 for an unknown or missing status value', async () => {
    const order = await freshOrder();
    for (const status of ['SHIPPED', 'pending', '', 42, null]) {
      const r = await move(buyer.id, order.id, status);
      expect(r.status, JSON.stringify(status)).toBe(400);
      expect(r.json()).toMatchObject({ status: 400, error: 'Bad Request' });
    }
    const empty = await http(server.url, 'PUT', `/api/users/${buyer.id}/orders/${order.id}/status`, { body: {} });
    expect(empty.status).toBe(400);
  });

  it("answers 404 for an absent user, an absent order, and another user's order", async () => {
    const order = await freshOrder();
    expect((await move(424_242, order.id, 'PROCESSING')).status).toBe(404);
    expect((await move(buyer.id, 424_242, 'PROCESSING')).status).toBe(404);
    expect((await move(1, order.id, 'PROCESSING')).status).toBe(404);
    expect((await http(server.url, 'GET', `/api/users/${buyer.id}/orders/${order.id}`)).json().status).toBe('PENDING');
  });

  it('lets exactly one of two concurrent PENDING -> PROCESSING moves win; the other gets 409', async () => {
    const order = await freshOrder();
    const results = await Promise.all([move(buyer.id, order.id, 'PROCESSING'), move(buyer.id, order.id, 'PROCESSING')]);
    expect(results.map((r) => r.status).sort((a, b) => a - b)).toEqual([200, 409]);
  });
});
