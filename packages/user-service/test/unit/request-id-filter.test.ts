/** RequestIdFilter in isolation: a safe client id is kept, anything else replaced, and echoed. */
import { describe, expect, it } from 'vitest';
import { createRequestContext, runRequestFilter, runResponseFilter } from '@jaxrs-node/pipeline/testing';
import { REQUEST_ID_PROPERTY, RequestIdFilter } from '../../src/http/filters/request-id-filter.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const filter = new RequestIdFilter();

async function idFor(headers: Record<string, string | string[]>): Promise<unknown> {
  const ctx = createRequestContext({ headers, preMatching: true });
  expect(await runRequestFilter(filter, ctx)).toBeUndefined();
  return ctx.getProperty(REQUEST_ID_PROPERTY);
}

describe('RequestIdFilter', () => {
  it.each(['abc-123', 'req_1.2:3', 'A'.repeat(128), '550e8400-e29b-41d4-a716-446655440000'])('keeps the safe client id %j', async (id) => {
    expect(await idFor({ 'x-request-id': id })).toBe(id);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['too long', 'A'.repeat(129)],
    ['with a space', 'a b'],
    ['with a line break', 'a\r\nset-cookie: x=1'],
    ['with a quote', 'a"b'],
    ['non-ASCII', 'réq'],
  ])('replaces an unsafe id (%s) with a fresh UUID', async (_label, id) => {
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

  it('echoes the id in X-Request-Id', async () => {
    const ctx = createRequestContext({ headers: { 'x-request-id': 'trace-42' }, preMatching: true });
    await runRequestFilter(filter, ctx);
    expect((await runResponseFilter(filter, ctx)).headers['x-request-id']).toBe('trace-42');

    const generated = createRequestContext({ headers: { 'x-request-id': 'bad id' }, preMatching: true });
    await runRequestFilter(filter, generated);
    const res = await runResponseFilter(filter, generated);
    expect(res.headers['x-request-id']).toBe(generated.getProperty(REQUEST_ID_PROPERTY));
  });

  it('adds no header when the request filter never ran (e.g. a response for a rejected request)', async () => {
    expect((await runResponseFilter(filter, createRequestContext())).headers['x-request-id']).toBeUndefined();
  });
});
