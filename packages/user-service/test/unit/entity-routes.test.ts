/**
 * The composed service (in-process, memory store) with its entity classes: the OpenAPI document's
 * request bodies are the classes, and a body that breaks their decorators is answered by the
 * pipeline's VALIDATION slot (violations echo the rejected `value`, which the domain's do not) with
 * the domain's fields and wording, before any domain code or storage runs.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/domain/config/app-config.js';
import { createService, type Service } from '../../src/server.js';
import { MemoryRecordStore } from '../../src/storage/index.js';

type Json = Record<string, any>;

describe('the service with entity classes', () => {
  let dataDir: string;
  let service: Service;
  let store: MemoryRecordStore;
  let doc: Json;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'user-service-entities-'));
    const config = await loadConfig({ DATA_DIR: dataDir, SEED: 'none', STORAGE: 'memory', PORT: '0', LOG_REQUESTS: 'false' });
    store = new MemoryRecordStore();
    service = await createService(config, { store, log: null });
    doc = (await service.app.inject({ url: '/openapi.json' })).json<Json>();
  });
  afterAll(async () => {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const send = (method: string, url: string, body: unknown, headers: Record<string, string> = {}) =>
    service.app.inject({ method, url, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('documents every request body from its class', () => {
    const body = (path: string, method: string, type = 'application/json'): unknown =>
      doc.paths[path][method].requestBody?.content?.[type]?.schema;
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    expect(body('/api/users', 'post')).toEqual(ref('UserInput'));
    expect(body('/api/users/{id}', 'put')).toEqual(ref('UserInput'));
    expect(body('/api/users/{id}', 'patch', 'application/merge-patch+json')).toEqual(ref('UserPatch'));
    expect(body('/api/users/{id}', 'patch')).toEqual(ref('UserPatch'));
    expect(body('/api/users/create', 'post')).toEqual(ref('VariantUserInput'));
    expect(body('/api/users/{id}/orders', 'post')).toEqual(ref('NewOrder'));
    expect(body('/api/users/{id}/orders/{orderId}/status', 'put')).toEqual(ref('OrderStatusChange'));
    expect(body('/api/auth/login', 'post')).toEqual(ref('LoginRequest'));
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['User', 'UserInput', 'OrderLine', 'Error']));
  });

  it('answers a bad create in the VALIDATION slot with the domain fields and messages, storing nothing', async () => {
    const r = await send('POST', '/api/users', { email: 'a@b', firstName: 'A', lastName: '', roles: ['ADMIN'] });
    expect(r.status).toBe(400);
    expect(r.json<Json>()).toMatchObject({ status: 400, error: 'Bad Request', path: '/api/users' });
    expect(r.json<Json>().errors).toEqual([
      { field: 'email', message: 'must be a well-formed email address', value: 'a@b' },
      { field: 'firstName', message: 'size must be between 2 and 50', value: 'A' },
      { field: 'lastName', message: 'must not be blank', value: '' },
    ]);
    expect(store.size('users')).toBe(0);
  });

  it('checks PATCH members as merge-patch members: null removes, which only age may', async () => {
    const created = await send('POST', '/api/users', { email: 'patch@example.com', firstName: 'Pat', lastName: 'Ch', age: 30 });
    expect(created.status).toBe(201);
    const url = `/api/users/${created.json<Json>().id}`;
    const removed = await send('PATCH', url, { email: null, age: 17 }, { 'content-type': 'application/merge-patch+json' });
    expect(removed.status).toBe(400);
    expect(removed.json<Json>().errors).toEqual([
      { field: 'email', message: 'is required', value: null },
      { field: 'age', message: 'must be between 18 and 100', value: 17 },
    ]);
    const cleared = await send('PATCH', url, { age: null }, { 'content-type': 'application/merge-patch+json' });
    expect(cleared.status).toBe(200);
    expect(cleared.json<Json>()).toMatchObject({ email: 'patch@example.com', firstName: 'Pat' });
    expect(cleared.json<Json>().age).toBeUndefined();
  });

  it('checks the order shape and the status value before the domain runs', async () => {
    const created = await send('POST', '/api/users', { email: 'orders@example.com', firstName: 'Or', lastName: 'Der' });
    const id = created.json<Json>().id as number;
    const order = await send('POST', `/api/users/${id}/orders`, { items: 'x' });
    expect(order.status).toBe(400);
    expect(order.json<Json>().errors).toEqual([{ field: 'items', message: 'must be an array', value: 'x' }]);
    const status = await send('PUT', `/api/users/${id}/orders/1/status`, { status: 'DONE' });
    expect(status.status).toBe(400);
    expect(status.json<Json>().errors).toEqual([
      { field: 'status', message: 'must be one of PENDING, PROCESSING, COMPLETED', value: 'DONE' },
    ]);
  });
});
