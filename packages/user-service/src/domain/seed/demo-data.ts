/**
 * Demo data loaded into an EMPTY store at first start, so the documented examples (user 1,
 * `test@example.com`, its orders) work on a fresh deployment.
 *
 * Everything goes through UserService and OrderService, never raw store writes: their id indexes
 * (users/indexes.ts, orders/indexes.ts) are shared per store and stay correct, and seeded records pass
 * the same validation as client data. Other areas (files, async jobs) plug in via `extraSeeders`.
 */
import { RecordStoreError, type RecordStore } from '../../storage/record-store.js';
import { EmbeddedCatalog, type ProductLookup } from '../catalog/embedded.js';
import { ORDERS_COLLECTION } from '../orders/model.js';
import { OrderService } from '../orders/service.js';
import { systemClock, USERS_COLLECTION, type Clock } from '../users/model.js';
import { UserService } from '../users/service.js';

/** What a seeder gets: the store, the clock and the domain services over that store. */
export interface SeedContext {
  store: RecordStore;
  clock: Clock;
  users: UserService;
  orders: OrderService;
}

/** A hook run after the core demo data (e.g. demo files, async jobs). */
export type Seeder = (context: SeedContext) => Promise<void>;

export interface SeedOptions {
  /** Product lookup for the demo orders; the embedded catalog by default. */
  findProduct?: ProductLookup;
  /** Run in order after users and orders exist. */
  extraSeeders?: readonly Seeder[];
}

/** Outcome of {@link seedDemoData}. */
export interface SeedResult {
  /** False when the store already held users or orders (nothing was written). */
  seeded: boolean;
  userIds: number[];
  orderIds: number[];
}

interface DemoUser {
  email: string;
  firstName: string;
  lastName: string;
  age?: number;
  birthDate?: string;
}

const DEMO_USERS: readonly DemoUser[] = [
  { email: 'test@example.com', firstName: 'John', lastName: 'Doe', age: 30, birthDate: '1994-05-15' },
  { email: 'jane.smith@example.com', firstName: 'Jane', lastName: 'Smith', age: 28 },
  { email: 'bob.johnson@example.com', firstName: 'Bob', lastName: 'Johnson', age: 45 },
  { email: 'alice.williams@example.com', firstName: 'Alice', lastName: 'Williams', age: 35 },
  { email: 'charlie.brown@example.com', firstName: 'Charlie', lastName: 'Brown' },
];

/** The demo dataset, for the README. Keep in sync with DEMO_USERS and the orders below. */
export const DEMO_DATASET_MARKDOWN = `
| id | email | name | age | notes |
|---|---|---|---|---|
| 1 | test@example.com | John Doe | 30 | birthDate 1994-05-15; roles USER |
| 2 | jane.smith@example.com | Jane Smith | 28 | |
| 3 | bob.johnson@example.com | Bob Johnson | 45 | |
| 4 | alice.williams@example.com | Alice Williams | 35 | |
| 5 | charlie.brown@example.com | Charlie Brown | (none) | no age |

All users are ACTIVE with roles [USER]. User 1 has two orders:

| order | items | total | status |
|---|---|---|---|
| ORD-00000001 | 1 x Laptop (999.99), 2 x Wireless Mouse (29.99) | 1059.97 | PENDING |
| ORD-00000002 | 1 x Mechanical Keyboard (89.50) | 89.50 | COMPLETED (via PROCESSING) |

Products 1-12 come from the embedded catalog (\`GET /api/products/1\` is the Laptop).
`.trim();

/** Shared stores: the record that says one instance took the seeding (id 1). */
export const SEED_CLAIM_COLLECTION = 'seed';

/**
 * Seeds the demo users and orders when the store holds no users and no orders; otherwise does
 * nothing (restarts must not duplicate data). Ids follow from an empty store: users 1-5. On a
 * store shared by instances starting together, one of them claims the seeding first (a record
 * committed only if absent) and the others leave it to that one.
 *
 * @example const result = await seedDemoData(store, () => new Date());
 */
export async function seedDemoData(store: RecordStore, clock: Clock = systemClock, options: SeedOptions = {}): Promise<SeedResult> {
  const nothing: SeedResult = { seeded: false, userIds: [], orderIds: [] };
  await store.sync();
  if (store.size(USERS_COLLECTION) > 0 || store.size(ORDERS_COLLECTION) > 0) return nothing;
  if (store.shared) {
    try {
      await store.commit([{ op: 'put', collection: SEED_CLAIM_COLLECTION, record: { id: 1, at: clock().toISOString() } }], {
        expect: [{ collection: SEED_CLAIM_COLLECTION, id: 1, version: 0 }],
      });
    } catch (error) {
      if (error instanceof RecordStoreError && error.code === 'ERR_STORE_CONFLICT') return nothing; // another instance seeds
      throw error;
    }
  }
  const users = new UserService(store, { clock });
  const orders = new OrderService(store, {
    clock,
    findProduct: options.findProduct ?? new EmbeddedCatalog().lookup,
    findCustomer: (id) => users.getRecord(id),
  });
  const userIds: number[] = [];
  for (const { birthDate, ...body } of DEMO_USERS) {
    const created = await users.create(body, { birthDate });
    userIds.push(created.id);
  }
  const john = userIds[0] as number;
  const pending = await orders.createForUser(john, {
    items: [
      { productId: 1, quantity: 1 },
      { productId: 2, quantity: 2 },
    ],
  });
  const completed = await orders.createForUser(john, { items: [{ productId: 3, quantity: 1 }] });
  await orders.transition(john, completed.id, 'PROCESSING');
  await orders.transition(john, completed.id, 'COMPLETED');
  for (const seeder of options.extraSeeders ?? []) await seeder({ store, clock, users, orders });
  return { seeded: true, userIds, orderIds: [pending.id, completed.id] };
}
