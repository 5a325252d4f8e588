/**
 * `ServiceOptions.without` (the benchmark's per-filter cost, packages/bench `servers.service.json`):
 * the service composed with every provider answers with each one's headers; composed without one,
 * only that one's headers are gone and the route still answers the same body. In-process
 * (`app.inject`) and over a real socket.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/domain/config/app-config.js';
import { createService, OPTIONAL_PROVIDERS, type OptionalProvider, type Service } from '../../src/server.js';
import { MemoryRecordStore } from '../../src/storage/index.js';

/** A header each optional provider puts on `GET /api/users/{id}` (the durability filter and the Location rewrite add none there). */
const HEADER_OF: Partial<Record<OptionalProvider, string>> = {
  'request-id': 'x-request-id',
  'api-version': 'x-api-version',
  'security-headers': 'x-content-type-options',
  cors: 'access-control-allow-origin',
  'content-encoding': 'vary',
};

const started: { service: Service; dataDir: string }[] = [];

async function start(without: OptionalProvider[]): Promise<Service> {
  const dataDir = mkdtempSync(join(tmpdir(), 'user-service-without-'));
  const config = await loadConfig({ DATA_DIR: dataDir, SEED: 'none', STORAGE: 'memory', PORT: '0', HOST: '127.0.0.1' });
  const service = await createService(config, { store: new MemoryRecordStore(), log: null, without });
  started.push({ service, dataDir });
  const created = await service.app.inject({
    method: 'POST',
    url: '/api/users',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'ann@example.com', firstName: 'Ann', lastName: 'Lee', age: 30 }),
  });
  expect(created.status).toBe(201);
  return service;
}

afterAll(async () => {
  for (const { service, dataDir } of started) {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

describe('createService without optional providers', () => {
  it('composes every provider by default: each one header on GET /api/users/{id}', async () => {
    const service = await start([]);
    const r = await service.app.inject({ url: '/api/users/1' });
    expect(r.status).toBe(200);
    for (const header of Object.values(HEADER_OF)) expect(r.headers[header], header).toBeDefined();
  });

  it.each(OPTIONAL_PROVIDERS.filter((p) => HEADER_OF[p] !== undefined))('leaves out %s alone', async (name) => {
    const service = await start([name]);
    const r = await service.app.inject({ url: '/api/users/1' });
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ id: 1, email: 'ann@example.com' });
    for (const [provider, header] of Object.entries(HEADER_OF)) {
      if (provider === name) expect(r.headers[header], header).toBeUndefined();
      else expect(r.headers[header], header).toBeDefined();
    }
  });

  it('leaves them all out, over a real socket: the same body, none of their headers', async () => {
    const service = await start([...OPTIONAL_PROVIDERS]);
    const { port } = await service.listen();
    const res = await request(`http://127.0.0.1:${port}/api/users/1`, { headersTimeout: 5000, bodyTimeout: 5000 });
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toMatchObject({ id: 1, email: 'ann@example.com' });
    for (const header of Object.values(HEADER_OF)) expect(res.headers[header], header).toBeUndefined();
    // The rate limit stays: it is switched by RATE_LIMIT_PER_MINUTE, not by `without`.
    expect(res.headers['x-rate-limit-limit']).toBe('600');
  });
});
