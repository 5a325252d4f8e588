import { describe, expect, it } from 'vitest';
import { DEMO_DATASET_MARKDOWN, seedDemoData, type SeedContext } from '../../../src/domain/seed/demo-data.js';
import { EmbeddedCatalog } from '../../../src/domain/catalog/embedded.js';
import { OrderService } from '../../../src/domain/orders/service.js';
import { validateAgainstUserSchema } from '../../../src/domain/users/schema.js';
import { UserService } from '../../../src/domain/users/service.js';
import { MemoryRecordStore } from '../../../src/storage/memory/store.js';
import type { RecordStore } from '../../../src/storage/record-store.js';
import { FakeRecordStore, manualClock } from '../fake-store.js';

function servicesOver(store: RecordStore) {
  const users = new UserService(store);
  const orders = new OrderService(store, { findProduct: new EmbeddedCatalog().lookup, findCustomer: (id) => users.getRecord(id) });
  return { users, orders };
}

async function checkDemoData(store: RecordStore): Promise<void> {
  const { users, orders } = servicesOver(store);
  expect(users.get(1)).toEqual({
    id: 1,
    email: 'test@example.com',
    firstName: 'John',
    lastName: 'Doe',
    age: 30,
    fullName: 'John Doe',
    status: 'ACTIVE',
    roles: ['USER'],
    createdAt: '2024-01-15T10:30:00Z',
    updatedAt: '2024-01-15T10:30:00Z',
    birthDate: '1994-05-15',
  });
  expect(users.list()).toHaveLength(5);
  for (const user of users.list()) expect(validateAgainstUserSchema(user)).toEqual([]);
  const johnsOrders = orders.listForUser(1);
  expect(johnsOrders.map((o) => [o.orderNumber, o.status, o.totalAmount])).toEqual([
    ['ORD-00000001', 'PENDING', 1059.97],
    ['ORD-00000002', 'COMPLETED', 89.5],
  ]);
  expect(orders.listForUser(2)).toEqual([]);
}

describe('seedDemoData', () => {
  it('seeds 5 users and 2 orders for user 1 into an empty store', async () => {
    const store = new FakeRecordStore();
    const result = await seedDemoData(store, manualClock().clock);
    expect(result).toEqual({ seeded: true, userIds: [1, 2, 3, 4, 5], orderIds: [1, 2] });
    await checkDemoData(store);
  });

  it('does nothing on a store that already holds data (restart)', async () => {
    const store = new FakeRecordStore();
    await seedDemoData(store, manualClock().clock);
    const commits = store.commits.length;
    expect(await seedDemoData(store, manualClock().clock)).toEqual({ seeded: false, userIds: [], orderIds: [] });
    expect(store.commits.length).toBe(commits);
  });

  it('keeps an already-built index of another service instance in sync', async () => {
    const store = new FakeRecordStore();
    const { users } = servicesOver(store);
    expect(users.list()).toEqual([]); // builds the shared index before the seed writes
    await seedDemoData(store, manualClock().clock);
    expect(users.list()).toHaveLength(5);
    expect(users.page({ sort: 'id,desc', size: 2 }).content.map((u) => u.id)).toEqual([5, 4]);
  });

  it('runs extra seeders after the core data with the services', async () => {
    const store = new FakeRecordStore();
    const seen: number[] = [];
    await seedDemoData(store, manualClock().clock, {
      extraSeeders: [
        async (context: SeedContext) => {
          seen.push(context.users.count(), context.orders.listForUser(1).length);
        },
      ],
    });
    expect(seen).toEqual([5, 2]);
  });

  it('works on the real MemoryRecordStore (frozen JSON copies)', async () => {
    const store = new MemoryRecordStore();
    await store.open();
    await seedDemoData(store, manualClock().clock);
    await checkDemoData(store);
    const { users } = servicesOver(store);
    expect(await users.patch(1, { age: null })).not.toHaveProperty('age');
    await users.delete(2);
    expect(users.list().map((u) => u.id)).toEqual([1, 3, 4, 5]);
    await store.close();
  });

  it('describes the dataset for the README', () => {
    expect(DEMO_DATASET_MARKDOWN).toContain('test@example.com');
    expect(DEMO_DATASET_MARKDOWN).toContain('ORD-00000002');
    expect(DEMO_DATASET_MARKDOWN).toContain('1059.97');
  });
});
