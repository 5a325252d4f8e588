/**
 * The stores' observer hook (what the service turns into metrics): the journal tells each
 * commit's latency (with the error code of a rejected one) and each group's write + fsync; the
 * etcd store tells each commit and every HTTP round trip to a member. An observer that throws is
 * ignored: the write is still acknowledged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JournalRecordStore } from '../../src/storage/journal/store.js';
import type { Mutation } from '../../src/storage/index.js';
import type { StoreObserver } from '../../src/storage/store-observer.js';
import { skipWithoutEtcd, startEtcd, type EtcdCluster } from '../helpers/etcd.js';
import { useTempDirs } from './temp-dirs.js';
import { Stores } from './etcd/store-helpers.js';

const tempDir = useTempDirs('store-observer');
const put = (id: number): Mutation => ({ op: 'put', collection: 'users', record: { id, name: `u${id}` } });

interface Seen {
  commits: Array<[number, string | undefined]>;
  flushes: Array<[number, string | undefined]>;
  trips: Array<[string, number, string | undefined]>;
}

function recorder(): { seen: Seen; observer: StoreObserver } {
  const seen: Seen = { commits: [], flushes: [], trips: [] };
  return {
    seen,
    observer: {
      commit: (s, e) => seen.commits.push([s, e]),
      flush: (s, e) => seen.flushes.push([s, e]),
      roundTrip: (p, s, e) => seen.trips.push([p, s, e]),
    },
  };
}

describe('JournalRecordStore observer', () => {
  it('is told each commit (acknowledged or rejected, with its code) and each group write + fsync', async () => {
    const { seen, observer } = recorder();
    const store = new JournalRecordStore({ dir: await tempDir(), observer });
    await store.open();
    try {
      await store.commit([put(1)]);
      // Two commits in one tick share one group: one flush for both.
      await Promise.all([store.commit([put(2)]), store.commit([put(3)])]);
      await expect(store.commit([put(4)], { expect: [{ collection: 'users', id: 4, version: 7 }] })).rejects.toMatchObject({
        code: 'ERR_STORE_CONFLICT',
      });
      await Promise.resolve(); // the observer is told in a reaction after the caller's
      expect(seen.commits.map(([, e]) => e)).toEqual([undefined, undefined, undefined, 'ERR_STORE_CONFLICT']);
      expect(seen.commits.every(([s]) => s >= 0 && s < 10)).toBe(true);
      expect(seen.flushes.map(([, e]) => e)).toEqual([undefined, undefined]);
      expect(seen.trips).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('an observer that throws does not fail the commit', async () => {
    const store = new JournalRecordStore({
      dir: await tempDir(),
      observer: {
        commit: () => {
          throw new Error('observer broke');
        },
        flush: () => {
          throw new Error('observer broke');
        },
      },
    });
    await store.open();
    try {
      await store.commit([put(1)]);
      expect(store.get('users', 1)).toMatchObject({ id: 1 });
    } finally {
      await store.close();
    }
  });
});

describe.skipIf(skipWithoutEtcd)('EtcdRecordStore observer', () => {
  let cluster: EtcdCluster;
  const stores = new Stores();
  beforeAll(async () => {
    cluster = await startEtcd(1);
  });
  afterAll(async () => {
    await stores.closeAll();
    await cluster?.stop();
  });

  it('is told each commit and every round trip to the member, by gateway path', async () => {
    const { seen, observer } = recorder();
    const store = await stores.open(cluster.endpoints, { observer });
    await store.commit([put(1)]);
    await expect(store.commit([put(2)], { expect: [{ collection: 'users', id: 2, version: 9 }] })).rejects.toMatchObject({
      code: 'ERR_STORE_CONFLICT',
    });
    expect(seen.commits.map(([, e]) => e)).toEqual([undefined, 'ERR_STORE_CONFLICT']);
    const paths = new Set(seen.trips.map(([p]) => p));
    expect(paths).toContain('/v3/kv/txn');
    expect(paths).toContain('/v3/lease/grant');
    expect(seen.trips.every(([, s, e]) => s >= 0 && e === undefined)).toBe(true);
    expect(seen.flushes).toEqual([]);
  });
});
