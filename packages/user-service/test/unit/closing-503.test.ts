/**
 * The 503 the service answers while it shuts down carries the service's error body (timestamp,
 * status, error, message, path, errors), nosniff, Retry-After and Connection: close, in-process
 * (the socket path of the same response is in the pipeline's closing-error-body test and the
 * black-box lifecycle test).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/domain/config/app-config.js';
import { createService } from '../../src/server.js';
import { MemoryRecordStore } from '../../src/storage/index.js';

describe('the shutdown 503', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'user-service-closing-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('uses the service error body', async () => {
    const config = await loadConfig({ DATA_DIR: dataDir, SEED: 'none', STORAGE: 'memory', PORT: '0', LOG_REQUESTS: 'false' });
    const service = await createService(config, { store: new MemoryRecordStore(), log: null });
    await service.app.close(100); // nothing in flight: closed at once, new requests refused
    const r = await service.app.inject('/api/users/1?x=1');
    expect(r.status).toBe(503);
    expect(r.json()).toMatchObject({ status: 503, error: 'Service Unavailable', path: '/api/users/1', errors: [] });
    expect(Object.keys(r.json()).sort()).toEqual(['error', 'errors', 'message', 'path', 'status', 'timestamp']);
    expect(r.headers).toMatchObject({ 'retry-after': '1', connection: 'close', 'x-content-type-options': 'nosniff' });
    await service.close();
  });
});
