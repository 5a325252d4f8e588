/**
 * The service's request id and access log, in-process (the black-box tests read them over a real
 * socket): a safe client `X-Request-Id` is kept, anything else replaced by a fresh UUID and never
 * echoed; every response carries it; one access line per request with the documented fields
 * (`time`, `requestId`, `method`, `path`, `status`, `durationMs`) plus the route template.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/domain/config/app-config.js';
import { createService, type Service } from '../../src/server.js';
import { MemoryRecordStore, type StoredRecord } from '../../src/storage/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request id and access log', () => {
  let dataDir: string;
  let service: Service;
  const lines: string[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'user-service-reqid-'));
    const config = await loadConfig({ DATA_DIR: dataDir, SEED: 'none', STORAGE: 'memory', PORT: '0', RATE_LIMIT_PER_MINUTE: '0' });
    service = await createService(config, { store: new MemoryRecordStore(), log: (line) => lines.push(line) });
  });
  afterAll(async () => {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const idFor = async (headers: Record<string, string | string[]>): Promise<string> => {
    const r = await service.app.inject({ url: '/api/health', headers });
    expect(r.status).toBe(200);
    return r.headers['x-request-id'] as string;
  };

  it.each(['abc-123', 'req_1.2:3', 'A'.repeat(128), '550e8400-e29b-41d4-a716-446655440000'])(
    'keeps and echoes the safe client id %j',
    async (id) => {
      expect(await idFor({ 'x-request-id': id })).toBe(id);
    },
  );

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['too long', 'A'.repeat(129)],
    ['with a space', 'a b'],
    ['with a line break', 'a\r\nset-cookie: x=1'],
    ['with a quote', 'a"b'],
    ['non-ASCII', 'réq'],
  ])('replaces an unsafe id (%s) with a fresh UUID, never echoing it', async (_label, id) => {
    const got = await idFor(id === undefined ? {} : { 'x-request-id': id });
    expect(got).toMatch(UUID);
    expect(got).not.toBe(id);
  });

  it('replaces a repeated header (an array) and gives every request its own id', async () => {
    const a = await idFor({ 'x-request-id': ['one', 'two'] });
    const b = await idFor({});
    expect(a).toMatch(UUID);
    expect(b).toMatch(UUID);
    expect(a).not.toBe(b);
  });

  it('echoes the id on a 404 and writes one access line per request with the documented fields and the route', async () => {
    const nf = await service.app.inject({ url: '/api/users/999999', headers: { 'x-request-id': 'unit-404' } });
    expect(nf.status).toBe(404);
    expect(nf.headers['x-request-id']).toBe('unit-404');
    const mine = lines.filter((l) => l.includes('"requestId":"unit-404"')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      requestId: 'unit-404',
      method: 'GET',
      path: '/api/users/999999',
      route: '/api/users/{id}',
      status: 404,
    });
    expect(typeof mine[0]!.durationMs).toBe('number');
    expect(Number.isNaN(Date.parse(mine[0]!.time as string))).toBe(false);
  });
});

describe('the default error log', () => {
  it("writes a request's unexpected error on stderr with its requestId, method and route", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'user-service-errlog-'));
    const config = await loadConfig({ DATA_DIR: dataDir, SEED: 'none', STORAGE: 'memory', PORT: '0', RATE_LIMIT_PER_MINUTE: '0' });
    class BrokenStore extends MemoryRecordStore {
      override get<T extends StoredRecord>(collection: string, id: number): T | undefined {
        if (collection === 'users') throw new Error('disk melted');
        return super.get<T>(collection, id);
      }
    }
    const service = await createService(config, { store: new BrokenStore(), log: null });
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const r = await service.app.inject({ url: '/api/users/1', headers: { 'x-request-id': 'err-1' } });
      expect(r.status).toBe(500);
      expect(r.headers['x-request-id']).toBe('err-1');
    } finally {
      spy.mockRestore();
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
    const lines = written.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'error', requestId: 'err-1', method: 'GET', route: '/api/users/{id}', error: 'disk melted' });
  });
});
