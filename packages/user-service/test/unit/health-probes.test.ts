/**
 * `GET /api/health/live` and `/api/health/ready` (issue 24), in-process: ready follows the store's
 * `writeStatus()` (a full disk makes it DOWN and says why) while `GET /api/health` keeps its own
 * specified answer; from the moment the service closes, ready is DOWN (`draining`) and live UP.
 * The same over a real socket, on both storage modes: test/blackbox/health-probes.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/domain/config/app-config.js';
import { createService } from '../../src/server.js';
import { healthFeature } from '../../src/http/health.js';
import { Application } from '@jaxrs-node/pipeline';
import { MemoryRecordStore, type WriteStatus } from '../../src/storage/index.js';
import { UserService } from '../../src/domain/users/service.js';
import { TOKENS } from '../../src/http/di-tokens.js';

/** A memory store whose write status the test sets (the journal's says the same on a full disk). */
class SettableStore extends MemoryRecordStore {
  status: WriteStatus = { writable: true };
  override writeStatus(): WriteStatus {
    return this.status;
  }
}

describe('the health probes beside /api/health', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'user-service-probes-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('ready follows the store: UP, then DOWN with the reason of a full disk; live stays UP; /api/health unchanged', async () => {
    const config = await loadConfig({ DATA_DIR: dataDir, SEED: 'none', STORAGE: 'memory', PORT: '0', LOG_REQUESTS: 'false' });
    const store = new SettableStore();
    const service = await createService(config, { store, log: null });
    const app = service.app;
    try {
      const ready = await app.inject('/api/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.headers['cache-control']).toBe('no-store');
      expect(ready.json()).toEqual({
        status: 'UP',
        checks: [
          { name: 'store', status: 'UP' },
          { name: 'indexes', status: 'UP' },
        ],
      });
      expect((await app.inject('/api/health/live')).json()).toEqual({ status: 'UP', checks: [] });

      const since = new Date().toISOString();
      const reason = 'journal write failed: ENOSPC: no space left on device, write';
      store.status = { writable: false, code: 'ERR_STORE_FULL', reason, since };
      const down = await app.inject('/api/health/ready');
      expect(down.status).toBe(503);
      expect(down.json()).toEqual({
        status: 'DOWN',
        checks: [
          { name: 'store', status: 'DOWN', data: { code: 'ERR_STORE_FULL', reason, since } },
          { name: 'indexes', status: 'UP' },
        ],
      });
      expect((await app.inject('/api/health/live')).status).toBe(200);
      // The specified health answer is untouched.
      const health = await app.inject('/api/health');
      expect(health.status).toBe(503);
      expect(health.json()).toEqual({ status: 'DEGRADED', users: 0, reason, since });

      store.status = { writable: true };
      expect((await app.inject('/api/health/ready')).status).toBe(200);
      expect((await app.inject('/api/health')).json()).toEqual({ status: 'UP', users: 0 });
      // Only the two probes: the feature's other routes are not served.
      expect((await app.inject('/api/health/started')).status).toBe(404);
    } finally {
      await service.close();
    }
  });

  it('ready is DOWN (indexes) until the users indexes are built, then UP; live UP throughout', async () => {
    let built = false;
    const app = new Application({ resources: [], providers: [healthFeature(new MemoryRecordStore(), undefined, () => built)] });
    app.build();
    const building = await app.inject('/api/health/ready');
    expect(building.status).toBe(503);
    expect(building.json()).toEqual({
      status: 'DOWN',
      checks: [
        { name: 'store', status: 'UP' },
        { name: 'indexes', status: 'DOWN', data: { reason: 'the users indexes are being built' } },
      ],
    });
    expect((await app.inject('/api/health/live')).status).toBe(200);
    built = true;
    expect((await app.inject('/api/health/ready')).status).toBe(200);
  });

  it('the service builds the indexes of a large store in the background and says when they are done', async () => {
    const config = await loadConfig({ DATA_DIR: dataDir, SEED: 'none', STORAGE: 'memory', PORT: '0', LOG_REQUESTS: 'false' });
    const store = new MemoryRecordStore();
    await store.open();
    const seeder = new UserService(store, { indexes: false });
    // Above the 5 000 users a build does at once.
    for (let i = 0; i < 5001; i++) await seeder.create({ email: `u${i}@ex.com`, firstName: 'Ann', lastName: `Lee${i % 97}` });
    const service = await createService(config, { store, log: null });
    try {
      await service.indexed;
      const users = service.container.resolve<UserService>(TOKENS.users);
      expect(users.indexesReady).toBe(true);
      expect((await service.app.inject('/api/health/ready')).status).toBe(200);
      const page = await service.app.inject('/api/users?page=0&size=2&sort=lastName,desc');
      expect(page.json()).toMatchObject({ totalElements: 5001, content: [{ lastName: 'Lee96' }, { lastName: 'Lee96' }] });
    } finally {
      await service.close();
    }
  });

  it('once closing: ready 503 draining, live 200, the rest the closing 503', async () => {
    const config = await loadConfig({ DATA_DIR: dataDir, SEED: 'none', STORAGE: 'memory', PORT: '0', LOG_REQUESTS: 'false' });
    const service = await createService(config, { store: new MemoryRecordStore(), log: null });
    const app = service.app;
    await app.close(100);
    const ready = await app.inject('/api/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.json()).toEqual({
      status: 'DOWN',
      checks: [
        { name: 'store', status: 'UP' },
        { name: 'indexes', status: 'UP' },
        { name: 'draining', status: 'DOWN', data: { reason: 'the application is closing' } },
      ],
    });
    expect((await app.inject('/api/health/live')).status).toBe(200);
    expect((await app.inject('/api/health')).status).toBe(503);
    await service.close();
  });
});
