/**
 * Conditional commits seen from the domain: another writer (another instance sharing the store)
 * changes a record between this instance's read and its commit. The commit's precondition fails,
 * the service decides again on the fresh record, and the client gets the answer a sequential run
 * would give: 412 for a stale If-Match, 409 for an order move already made, 404 for a vanished user.
 */
import { ConflictError, NotFoundError, WebApplicationError } from '@jaxrs-node/pipeline';
import { describe, expect, it } from 'vitest';
import { EmbeddedCatalog } from '../../../src/domain/catalog/embedded.js';
import { retryOnConflict } from '../../../src/domain/common/conflicts.js';
import { ORDERS_COLLECTION } from '../../../src/domain/orders/model.js';
import { OrderService } from '../../../src/domain/orders/service.js';
import { USERS_COLLECTION } from '../../../src/domain/users/model.js';
import { UserService } from '../../../src/domain/users/service.js';
import { MemoryRecordStore, RecordStoreError, type CommitOptions, type Mutation } from '../../../src/storage/index.js';

/** A memory store where `interfere` runs once, right before the next commit: a foreign write. */
class RacedStore extends MemoryRecordStore {
  interfere: (() => Promise<void>) | undefined;
  commits = 0;

  override async commit(mutations: Mutation[], options?: CommitOptions): Promise<void> {
    const foreign = this.interfere;
    this.interfere = undefined;
    if (foreign !== undefined) await foreign();
    this.commits++;
    return super.commit(mutations, options);
  }
}

/** What another instance's write looks like here: a new version of the record, lock not taken. */
async function foreignPut(store: RacedStore, id: number, fields: Record<string, unknown>): Promise<void> {
  const current = store.get(USERS_COLLECTION, id)!;
  await store.commit([
    { op: 'put', collection: USERS_COLLECTION, record: { ...current, ...fields, rev: store.version(USERS_COLLECTION, id) + 1 } },
  ]);
}

async function setup() {
  const store = new RacedStore();
  await store.open();
  const users = new UserService(store);
  const orders = new OrderService(store, { findProduct: new EmbeddedCatalog().lookup, findCustomer: (id) => users.getRecord(id) });
  const user = await users.create({ email: 'a@example.com', firstName: 'Ada', lastName: 'Byron' });
  return { store, users, orders, userId: user.id };
}

describe('conditional writes raced by another writer', () => {
  it('PUT with If-Match: the foreign write makes the retry fail the check (412), nothing is lost', async () => {
    const { store, users, userId } = await setup();
    const { tag } = users.getTagged(userId);
    store.interfere = () => foreignPut(store, userId, { firstName: 'Foreign' });
    const check = (current: { value: string }) => {
      if (current.value !== tag.value) throw new WebApplicationError(412, 'stale');
    };
    await expect(users.replace(userId, { email: 'x@example.com', firstName: 'Mine', lastName: 'Byron' }, { check })).rejects.toMatchObject({
      status: 412,
    });
    expect(users.getRecord(userId)?.firstName).toBe('Foreign');
  });

  it('PUT without a condition: decided again on the fresh record, applied once after the foreign write', async () => {
    const { store, users, userId } = await setup();
    store.interfere = () => foreignPut(store, userId, { age: 40 });
    const result = await users.patch(userId, { firstName: 'Mine' });
    expect(result).toMatchObject({ firstName: 'Mine', age: 40 }); // the merge patch applied to the fresh record
    expect(users.getRecord(userId)).toMatchObject({ firstName: 'Mine', age: 40, rev: 3 });
  });

  it('order move already made by another writer: the retry answers 409', async () => {
    const { store, orders, userId } = await setup();
    const order = await orders.createForUser(userId, { items: [{ productId: 1, quantity: 1 }] });
    store.interfere = async () => {
      const current = store.get(ORDERS_COLLECTION, order.id)!;
      await store.commit([{ op: 'put', collection: ORDERS_COLLECTION, record: { ...current, status: 'PROCESSING', rev: 2 } }]);
    };
    await expect(orders.transition(userId, order.id, 'PROCESSING')).rejects.toBeInstanceOf(ConflictError);
    expect(orders.getForUser(userId, order.id).status).toBe('PROCESSING');
  });

  it('an order whose user is deleted before the commit is refused with 404 and not stored', async () => {
    const { store, users, orders, userId } = await setup();
    store.interfere = async () => {
      await users.delete(userId);
    };
    await expect(orders.createForUser(userId, { items: [{ productId: 1, quantity: 1 }] })).rejects.toBeInstanceOf(NotFoundError);
    expect(store.size(ORDERS_COLLECTION)).toBe(0);
  });

  it('a create never overwrites a record another writer put under its id', async () => {
    const { store, users } = await setup();
    store.interfere = async () => {
      await store.commit([
        { op: 'put', collection: USERS_COLLECTION, record: { id: 2, email: 'f@example.com', firstName: 'Fay', lastName: 'Gee' } },
      ]);
    };
    await expect(users.create({ email: 'n@example.com', firstName: 'Nat', lastName: 'Moe' })).rejects.toMatchObject({
      code: 'ERR_STORE_CONFLICT',
    });
    expect(users.getRecord(2)?.firstName).toBe('Fay');
  });

  it('gives up after a bounded number of lost races and lets the conflict through', async () => {
    const store = new MemoryRecordStore();
    await store.open();
    let attempts = 0;
    const always = retryOnConflict(
      store,
      async () => {
        attempts++;
        throw new RecordStoreError('ERR_STORE_CONFLICT', 'lost');
      },
      3,
    );
    await expect(always).rejects.toMatchObject({ code: 'ERR_STORE_CONFLICT' });
    expect(attempts).toBe(3);
  });
});
