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

  it('a value that does not convert and the violations of the others, in one 400', async () => {
    const r = await send(server.url, '/shops/0/products?page=-1&size=abc');
    expect(r.status).toBe(400);
    expect(r.json().code).toBe('PIPE_VALIDATION');
    expect(r.json().errors[0]).toEqual({ field: 'query.size', message: "'abc' is not an integer", value: 'abc' }); // conversions first
    expect(fields(r.json())).toEqual(['path.shop', 'query.page', 'query.size']);
  });

  it('problem details (application/problem+json) when Accept prefers them, the default body otherwise', async () => {
    const accept = 'application/problem+json, application/json;q=0.9';
    const problem = await send(server.url, '/shops/0/products', { headers: { accept } });
    expect([problem.status, problem.headers['content-type']]).toEqual([400, 'application/problem+json']);
    expect(problem.json()).toMatchObject({ type: 'about:blank', title: 'Bad Request', status: 400, instance: '/shops/0/products' });
    expect(fields(problem.json())).toEqual(['path.shop']);
    const plain = await send(server.url, '/shops/0/products');
    expect([plain.status, plain.headers['content-type']]).toEqual([400, 'application/json']);
    expect(plain.json()).toMatchObject({ status: 400, error: 'Bad Request', code: 'PIPE_VALIDATION' });
    expect(plain.headers.vary).toBe('Accept');
    const inProcess = await createApp().inject({ url: '/shops/7/products?size=x', headers: { accept } });
    expect([inProcess.status, inProcess.headers['content-type'], inProcess.json<{ code: string }>().code]).toEqual([
      400,
      'application/problem+json',
      'PIPE_PARAM_CONVERSION',
    ]);
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
