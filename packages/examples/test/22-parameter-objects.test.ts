import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/22-parameter-objects/app.js';
import { listen, send, type Running } from './helpers/http.js';

const fields = (body: { errors?: Array<{ field: string }> }): string[] => (body.errors ?? []).map((e) => e.field).sort();

describe('22 parameter objects and constraints on parameters, over a real socket', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp());
  });
  afterAll(() => server.close());

  it('a @BeanParam gathers path, query and header parameters, converted, with defaults', async () => {
    const r = await send(server.url, '/shops/7/products?page=1&size=5&sort=price,desc', { headers: { 'accept-language': 'de' } });
    expect(r.status).toBe(200);
    const body = r.json<{ shop: number; language: string; page: number; size: number; items: Array<{ price: number }> }>();
    expect(body).toMatchObject({ shop: 7, language: 'de', page: 1, size: 5 });
    expect(body.items).toHaveLength(5);
    const prices = body.items.map((i) => i.price);
    expect(prices).toEqual([...prices].sort((a, b) => b - a));
    expect((await send(server.url, '/shops/7/products')).json()).toMatchObject({ page: 0, size: 20, language: 'en' });
  });

  it('every violation of the request in one 400, each naming its source', async () => {
    const r = await send(server.url, '/shops/0/products?size=500&sort=colour');
    expect(r.status).toBe(400);
    expect(fields(r.json())).toEqual(['path.shop', 'query.size', 'query.sort']);
  });

  it('a custom constraint on a single parameter, together with the entity violations', async () => {
    const r = await send(server.url, '/shops/7/products?copies=3', { method: 'POST', body: { name: '', price: 3 } });
    expect(r.status).toBe(400);
    const names = fields(r.json());
    expect(names).toContain('query.copies');
    expect(names.some((f) => f.endsWith('name'))).toBe(true);
    const ok = await send(server.url, '/shops/7/products?dryRun=true', { method: 'POST', body: { name: 'Pen', price: 3 } });
    expect(ok.status).toBe(200);
    expect(ok.json()).toMatchObject({ shop: 7, copies: 2, dryRun: true });
  });
});
