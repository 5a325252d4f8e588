/** CustomFieldInterceptor in isolation: enriches successful object entities only, before the writer runs. */
import { describe, expect, it } from 'vitest';
import { Response } from '@jaxrs-node/pipeline';
import { runWriterInterceptors } from '@jaxrs-node/pipeline/testing';
import { CustomFieldInterceptor } from '../../src/http/providers/custom-field-interceptor.js';

const interceptor = new CustomFieldInterceptor();
const json = (body: Buffer): unknown => JSON.parse(body.toString('utf8'));

describe('CustomFieldInterceptor', () => {
  it('adds customField to an object entity, which the JSON writer then serialises', async () => {
    const entity = { id: 1, name: 'data' };
    const { body, response } = await runWriterInterceptors([interceptor], { entity });
    expect(json(body)).toEqual({ id: 1, name: 'data', customField: 'custom-value' });
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(entity).toEqual({ id: 1, name: 'data' }); // a copy: the resource's object is untouched
  });

  it('works on an instance of a class (the entity type becomes a plain object)', async () => {
    class Data { constructor(readonly value = 3) {} }
    const { body } = await runWriterInterceptors([interceptor], { entity: new Data() });
    expect(json(body)).toEqual({ value: 3, customField: 'custom-value' });
  });

  it.each([400, 404, 429, 500])('leaves an error response (%i) alone', async (status) => {
    const entity = { status, error: 'x' };
    const { body } = await runWriterInterceptors([interceptor], { entity, response: new Response(status, entity) });
    expect(json(body)).toEqual(entity);
  });

  it('leaves arrays and primitives alone', async () => {
    expect(json((await runWriterInterceptors([interceptor], { entity: [{ id: 1 }, { id: 2 }] })).body)).toEqual([{ id: 1 }, { id: 2 }]);
    expect(json((await runWriterInterceptors([interceptor], { entity: 'plain', type: String })).body)).toBe('plain');
    expect(json((await runWriterInterceptors([interceptor], { entity: 42, type: Number })).body)).toBe(42);
  });

  it('always proceeds, so interceptors after it still run', async () => {
    const seen: unknown[] = [];
    const spy = { name: 'spy', aroundWriteTo: async (ctx: { entity: unknown; proceed(): Promise<void> }) => { seen.push(ctx.entity); await ctx.proceed(); } };
    await runWriterInterceptors([interceptor, spy], { entity: { a: 1 } });
    await runWriterInterceptors([interceptor, spy], { entity: { a: 1 }, response: new Response(404) });
    expect(seen).toEqual([{ a: 1, customField: 'custom-value' }, { a: 1 }]);
  });
});
