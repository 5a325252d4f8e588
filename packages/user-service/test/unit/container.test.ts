/**
 * Dependency injection of the composed service. vitest 4 on vite 8 emits decorator metadata when
 * the tsconfig covering the test file enables it (esbuild-based tools do not), so the classes are
 * imported from src/ as TypeScript here: the proof is that every registered class resolves from
 * the service's container with the registered singletons in its constructor slots.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InjectionToken } from 'tsyringe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FailedAuthLimiter } from '@jaxrs-node/pipeline';
import { loadConfig } from '../../src/domain/config/app-config.js';
import { UserService } from '../../src/domain/users/service.js';
import { OrderService } from '../../src/domain/orders/service.js';
import { ApiKeyVerifier, BasicAuthenticator } from '../../src/domain/auth/credentials.js';
import { TokenService } from '../../src/domain/auth/bearer-tokens.js';
import { FileStore } from '../../src/domain/files/service.js';
import { JobService } from '../../src/domain/jobs/service.js';
import { ApiKeyFilter, BasicAuthFilter, BearerAuthFilter } from '../../src/http/filters/auth-filters.js';
import { UsersResource } from '../../src/http/resources/users-resource.js';
import { JobEventLogs } from '../../src/http/job-events.js';
import { TOKENS } from '../../src/http/di-tokens.js';
import { createService, PROVIDER_CLASSES, RESOURCES, type Service } from '../../src/server.js';
import { MemoryRecordStore } from '../../src/storage/index.js';

/** Reads a constructor-injected (private) field. */
const field = (instance: object, name: string): unknown => (instance as Record<string, unknown>)[name];

describe('the service container', () => {
  let dataDir: string;
  let service: Service;
  let store: MemoryRecordStore;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'user-service-di-'));
    const config = await loadConfig({ DATA_DIR: dataDir, SEED: 'none', STORAGE: 'memory', PORT: '0', LOG_REQUESTS: 'false' });
    store = new MemoryRecordStore();
    service = await createService(config, { store, log: null });
  });
  afterAll(async () => {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sees the decorator metadata the transform emitted (design:paramtypes)', () => {
    const types = Reflect.getMetadata('design:paramtypes', UsersResource) as unknown[] | undefined;
    expect(types).toHaveLength(3);
    expect(Reflect.getMetadata('design:paramtypes', BasicAuthFilter)).toHaveLength(2);
  });

  it('holds the composed singletons under their tokens', () => {
    const c = service.container;
    expect(c.resolve(TOKENS.store)).toBe(store);
    expect(service.store).toBe(store);
    expect(c.resolve(TOKENS.users)).toBeInstanceOf(UserService);
    expect(c.resolve(TOKENS.orders)).toBeInstanceOf(OrderService);
    expect(c.resolve(TOKENS.files)).toBeInstanceOf(FileStore);
    expect(c.resolve(TOKENS.jobs)).toBe(service.jobs);
    expect(c.resolve(TOKENS.jobs)).toBeInstanceOf(JobService);
    expect(c.resolve(TOKENS.jobEvents)).toBeInstanceOf(JobEventLogs);
    expect(c.resolve(TOKENS.tokens)).toBeInstanceOf(TokenService);
    expect(c.resolve(TOKENS.basic)).toBeInstanceOf(BasicAuthenticator);
    expect(c.resolve(TOKENS.apiKeys)).toBeInstanceOf(ApiKeyVerifier);
    expect(c.resolve(TOKENS.authFailures)).toBeInstanceOf(FailedAuthLimiter);
    expect(typeof c.resolve(TOKENS.products)).toBe('function');
    // Value registrations: the same object on every resolution.
    expect(c.resolve(TOKENS.users)).toBe(c.resolve(TOKENS.users));
  });

  it.each([...RESOURCES, ...PROVIDER_CLASSES].map((cls) => [cls.name, cls] as const))('resolves %s', (_name, cls) => {
    const instance = service.container.resolve(cls as InjectionToken<object>);
    expect(instance).toBeInstanceOf(cls);
  });

  it('injects the registered singletons into constructor parameters', () => {
    const c = service.container;
    const resource = c.resolve(UsersResource);
    expect(field(resource, 'users')).toBe(c.resolve(TOKENS.users));
    expect(field(resource, 'orders')).toBe(c.resolve(TOKENS.orders));
    expect(field(c.resolve(BasicAuthFilter), 'basic')).toBe(c.resolve(TOKENS.basic));
    expect(field(c.resolve(BearerAuthFilter), 'tokens')).toBe(c.resolve(TOKENS.tokens));
    expect(field(c.resolve(ApiKeyFilter), 'keys')).toBe(c.resolve(TOKENS.apiKeys));
    expect(field(c.resolve(BasicAuthFilter), 'failures')).toBe(c.resolve(TOKENS.authFailures));
  });

  it('injects every constructor slot of every class with a registered singleton, never undefined', () => {
    const c = service.container;
    const singletons = new Set(Object.values(TOKENS).map((t) => c.resolve(t)));
    for (const cls of [...RESOURCES, ...PROVIDER_CLASSES]) {
      const instance = c.resolve(cls as InjectionToken<object>) as Record<string, unknown>;
      const injected = Object.values(instance).filter((v) => singletons.has(v));
      // Every declared constructor parameter ended up as one of the registered singletons.
      const declared = (Reflect.getMetadata('design:paramtypes', cls) as unknown[] | undefined)?.length ?? 0;
      expect(injected.length, cls.name).toBeGreaterThanOrEqual(declared);
    }
  });

  it('serves a request through the composed app (memory store, no seed)', async () => {
    const created = await service.app.inject({
      method: 'POST',
      url: '/api/users',
      body: { email: 'di@example.com', firstName: 'Di', lastName: 'Test' },
    });
    expect(created.status).toBe(201);
    expect(created.json()).toMatchObject({ id: 1, email: 'di@example.com' });
    expect(store.size('users')).toBe(1);
  });
});

describe('the service container with limits off (RATE_LIMIT_PER_MINUTE=0, AUTH_FAILURES_PER_MINUTE=0)', () => {
  it('composes without RateLimitFeature and injects a null failure limiter (tsyringe ignores `useValue: null`, so this needs a factory)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'user-service-di-'));
    const config = await loadConfig({
      DATA_DIR: dataDir,
      SEED: 'none',
      STORAGE: 'memory',
      RATE_LIMIT_PER_MINUTE: '0',
      AUTH_FAILURES_PER_MINUTE: '0',
    });
    const service = await createService(config, { store: new MemoryRecordStore(), log: null });
    try {
      expect(service.container.resolve(TOKENS.authFailures)).toBeNull();
      expect(field(service.container.resolve(BasicAuthFilter), 'failures')).toBeNull();
      const res = await service.app.inject({ url: '/api/users' });
      expect(res.status).toBe(200);
      expect(res.headers['x-rate-limit-limit']).toBeUndefined();
      expect(res.headers['ratelimit-policy']).toBeUndefined();
    } finally {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
