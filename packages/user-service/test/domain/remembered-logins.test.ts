import { describe, expect, it } from 'vitest';
import { BasicAuthenticator } from '../../src/domain/credentials.js';
import { REMEMBERED_LOGINS_COLLECTION, RememberedLogins } from '../../src/domain/remembered-logins.js';
import { MemoryRecordStore } from '../../src/storage/index.js';
import { until } from '../helpers/poll.js';

const FAST = { N: 16, r: 1, p: 1, keyLength: 32 };
const SECRET = Buffer.from('a-secret-every-instance-shares-0123456789');

/** Two "instances" over one store: each has its own authenticator, the store is shared. */
async function setup(now = { t: Date.UTC(2026, 0, 1) }) {
  const store = new MemoryRecordStore();
  await store.open();
  const instance = () =>
    BasicAuthenticator.create('admin', 'right', { scrypt: FAST, remembered: new RememberedLogins(store, SECRET, undefined, () => now.t) });
  return { store, a: await instance(), b: await instance(), now };
}

describe('RememberedLogins', () => {
  it('a login verified on one instance is remembered on the other, and only that pair', async () => {
    const { store, a, b } = await setup();
    expect(b.remembers('admin', 'right')).toBe(false);
    expect(await a.verifyLogin('admin', 'right')).toMatchObject({ name: 'admin' });
    await until(() => store.size(REMEMBERED_LOGINS_COLLECTION) === 1, 'the login to be remembered');
    expect(b.remembers('admin', 'right')).toBe(true);
    expect(b.remembers('admin', 'wrong')).toBe(false);
    expect(await b.verifyLogin('admin', 'right')).toMatchObject({ name: 'admin' });
    expect(JSON.stringify(Array.from(store.values(REMEMBERED_LOGINS_COLLECTION)))).not.toContain('right'); // no password stored
  });

  it('a failed login is never remembered', async () => {
    const { store, a, b } = await setup();
    expect(await a.verifyLogin('admin', 'wrong')).toBeNull();
    expect(store.size(REMEMBERED_LOGINS_COLLECTION)).toBe(0);
    expect(b.remembers('admin', 'wrong')).toBe(false);
  });

  it('forgets after the TTL', async () => {
    const { store, a, b, now } = await setup();
    await a.verifyLogin('admin', 'right');
    await until(() => store.size(REMEMBERED_LOGINS_COLLECTION) === 1, 'the login to be remembered');
    now.t += 3601 * 1000;
    expect(b.remembers('admin', 'right')).toBe(false);
  });
});
