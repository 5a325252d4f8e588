import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/18-inheritance/app.js';
import { listen, send, type Running } from './helpers/http.js';

describe('18 inheritance: two resources from one generic CRUD class, over a real socket', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp());
  });
  afterAll(() => server.close());

  it('Cats serves every inherited route, with its own entity class validated', async () => {
    const created = await send(server.url, '/cats', { method: 'POST', body: { name: 'Tom', lives: 9 } });
    expect(created.status).toBe(201);
    expect(String(created.headers.location)).toMatch(/cats\/1$/);
    expect((await send(server.url, '/cats/1')).json()).toEqual({ id: 1, name: 'Tom', lives: 9 });
    expect((await send(server.url, '/cats', { method: 'POST', body: { name: 'Tom', lives: 0 } })).status).toBe(400);
    expect((await send(server.url, '/cats/1', { method: 'PUT', body: { name: 'Tom', lives: 8 } })).json()).toEqual({
      id: 1,
      name: 'Tom',
      lives: 8,
    });
    expect((await send(server.url, '/cats?prefix=T')).json()).toEqual([{ id: 1, name: 'Tom', lives: 8 }]);
    expect((await send(server.url, '/cats/1', { method: 'DELETE' })).status).toBe(204);
    expect((await send(server.url, '/cats/1')).status).toBe(404);
  });

  it('Dogs replaces list (own decorators) and keeps the route of get (override without)', async () => {
    await send(server.url, '/dogs', { method: 'POST', body: { name: 'Rex' } });
    const list = await send(server.url, '/dogs');
    expect(list.headers['content-type']).toMatch(/^text\/plain/);
    expect(list.text).toBe('Rex');
    expect((await send(server.url, '/dogs/1')).json()).toEqual({ id: 1, name: 'REX' });
    expect((await send(server.url, '/dogs', { method: 'POST', body: { name: '' } })).status).toBe(400);
  });
});
