/**
 * The reference server on a real full disk (a 4 MiB tmpfs as DATA_DIR): a create refused for
 * lack of space answers 507 with the error body and is never visible, health says why writes
 * fail (and the readiness probe is DOWN), the server writes again by itself once space is freed (no restart), and after a restart
 * the refused user is absent and its id is never given to another user. Needs root for `mount`
 * (as CI and the development VMs run); elsewhere the file is skipped, saying why.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/poll.js';
import { http, startServer, type RunningServer } from '../helpers/server.js';

const mountPoint = mkdtempSync(join(tmpdir(), 'user-service-full-'));
const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mountPoint]).status === 0;
const ENV = { RATE_LIMIT_PER_MINUTE: '0', LOG_REQUESTS: 'false' };
const FILLER = join(mountPoint, 'filler');

/** Writes to `FILLER` until the file system says ENOSPC (bounded: the mount is 4 MiB). */
async function fillDisk(): Promise<void> {
  const handle = await open(FILLER, 'w');
  const chunk = Buffer.alloc(64 * 1024, 0x78);
  try {
    for (let i = 0; i < 1_000; i++) await handle.write(chunk);
    throw new Error('the disk never filled');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    await handle.close();
  }
}

const create = (server: RunningServer, email: string) =>
  http(server.url, 'POST', '/api/users', { headers: { 'x-api-version': '1' }, body: { email, firstName: 'Disk', lastName: 'Full' } });
const byEmail = async (server: RunningServer, email: string): Promise<Array<{ id: number; email: string }>> =>
  (await http(server.url, 'GET', `/api/users/search?email=${encodeURIComponent(email)}`)).json();

describe.skipIf(!mounted)('a full DATA_DIR (tmpfs; skipped when `mount` is not permitted)', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ dataDir: join(mountPoint, 'data'), env: ENV });
  });
  afterAll(async () => {
    await server?.stop();
    spawnSync('umount', [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it('refuses with 507, hides the refused user, reports DEGRADED, heals without a restart and never reuses the id', async () => {
    const before = await create(server, 'before@example.com');
    expect(before.status).toBe(201);
    let lastGoodId = before.json<{ id: number }>().id;

    await fillDisk();
    // The journal's last page may still have room for a few lines: create until it has none.
    let refusedEmail = 'refused-0@example.com';
    let refused = await create(server, refusedEmail);
    for (let i = 1; refused.status === 201 && i < 100; i++) {
      lastGoodId = refused.json<{ id: number }>().id;
      refusedEmail = `refused-${i}@example.com`;
      refused = await create(server, refusedEmail);
    }
    expect(refused.status).toBe(507);
    expect(refused.json()).toMatchObject({ status: 507, error: 'Insufficient Storage', path: '/api/users', errors: [] });
    expect(refused.json()).toHaveProperty('timestamp');
    expect(await byEmail(server, refusedEmail)).toEqual([]);
    const health = await http(server.url, 'GET', '/api/health');
    expect(health.status).toBe(503);
    expect(health.json()).toMatchObject({ status: 'DEGRADED', reason: expect.stringContaining('ENOSPC') });
    // The readiness probe says the same: not ready, and why (the liveness probe stays up).
    const ready = await http(server.url, 'GET', '/api/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.json()).toEqual({
      status: 'DOWN',
      checks: [
        {
          name: 'store',
          status: 'DOWN',
          data: { code: 'ERR_STORE_FULL', reason: expect.stringContaining('ENOSPC'), since: expect.any(String) },
        },
        { name: 'indexes', status: 'UP' },
      ],
    });
    expect((await http(server.url, 'GET', '/api/health/live')).status).toBe(200);
    expect(server.stderr.join('\n')).toContain('ENOSPC');
    // Still full: refused again, not a 500.
    expect((await create(server, 'refused-again@example.com')).status).toBe(507);

    await rm(FILLER);
    await until(async () => (await http(server.url, 'GET', '/api/health')).status === 200, 'health to be UP again', 10_000, 100);
    expect((await http(server.url, 'GET', '/api/health/ready')).status).toBe(200);
    const after = await create(server, 'after@example.com');
    expect(after.status).toBe(201);
    const afterId = after.json<{ id: number }>().id;
    expect(afterId).toBeGreaterThan(lastGoodId + 2); // two refused creates used two ids

    expect(await server.stop()).toBe(0);
    server = await startServer({ dataDir: join(mountPoint, 'data'), env: ENV });
    expect(await byEmail(server, refusedEmail)).toEqual([]);
    expect(await byEmail(server, 'refused-again@example.com')).toEqual([]);
    expect((await byEmail(server, 'after@example.com')).map((u) => u.id)).toEqual([afterId]);
    const next = await create(server, 'next@example.com');
    expect(next.json<{ id: number }>().id).toBeGreaterThan(afterId);
  });
});
