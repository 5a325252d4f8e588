import { describe, expect, it } from 'vitest';
import { BasicAuthenticator } from '../../../src/domain/auth/credentials.js';
import { REMEMBERED_LOGINS_COLLECTION, RememberedLogins } from '../../../src/domain/auth/remembered-logins.js';
import { MemoryRecordStore } from '../../../src/storage/index.js';
import { until } from '../../helpers/poll.js';

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
  it('a login that passed from a client on one instance is remembered for that client on the other, and only that pair', async () => {
    const { store, a, b } = await setup();
    expect(b.remembers('admin', 'right', '10.0.0.1')).toBe(false);
    expect(await a.verifyLogin('admin', 'right')).toMatchObject({ name: 'admin' });
    a.passed('admin', 'right', '10.0.0.1');
    await until(() => store.size(REMEMBERED_LOGINS_COLLECTION) === 1, 'the login to be remembered');
    expect(b.remembers('admin', 'right', '10.0.0.1')).toBe(true);
    expect(b.remembers('admin', 'wrong', '10.0.0.1')).toBe(false);
    // From another address the pair is not exempt: a guesser there learns nothing from it.
    expect(b.remembers('admin', 'right', '10.0.0.2')).toBe(false);
    expect(a.remembers('admin', 'right', '10.0.0.2')).toBe(false);
    expect(JSON.stringify(Array.from(store.values(REMEMBERED_LOGINS_COLLECTION)))).not.toContain('right'); // no password stored
  });

  it('remembers on the instance itself without a shared store, bound to the client', async () => {
    const alone = await BasicAuthenticator.create('admin', 'right', { scrypt: FAST });
    alone.passed('admin', 'right', '10.0.0.1');
    expect(alone.remembers('admin', 'right', '10.0.0.1')).toBe(true);
    expect(alone.remembers('admin', 'right', '10.0.0.9')).toBe(false);
  });

  it('forgets after the TTL', async () => {
    const { store, a, b, now } = await setup();
    a.passed('admin', 'right', '10.0.0.1');
    await until(() => store.size(REMEMBERED_LOGINS_COLLECTION) === 1, 'the login to be remembered');
    now.t += 3601 * 1000;
    expect(b.remembers('admin', 'right', '10.0.0.1')).toBe(false);
  });
});
