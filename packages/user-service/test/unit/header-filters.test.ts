/** The two pre-matching header filters in isolation: ApiVersionFilter and RequestIdFilter. */
import { describe, expect, it } from 'vitest';
import { BadRequestError, Response } from '@jaxrs-node/pipeline';
import { createRequestContext, runRequestFilter, runResponseFilter } from '@jaxrs-node/pipeline/testing';
import { API_VERSION, ApiVersionFilter } from '../../src/http/filters/api-version-filter.js';
import { REQUEST_ID_PROPERTY, RequestIdFilter } from '../../src/http/filters/request-id-filter.js';

// ApiVersionFilter in isolation: which `X-API-Version` values pass, the 400, the response header.
const versionFilter = new ApiVersionFilter();
const request = (headers: Record<string, string | string[]> = {}) =>
  createRequestContext({ url: '/api/users/1', headers, preMatching: true });

describe('ApiVersionFilter', () => {
  it('passes a request without X-API-Version (missing means 1)', async () => {
    expect(await runRequestFilter(versionFilter, request())).toBeUndefined();
  });

  it('passes X-API-Version: 1', async () => {
    expect(API_VERSION).toBe('1');
    expect(await runRequestFilter(versionFilter, request({ 'x-api-version': '1' }))).toBeUndefined();
  });

  it.each(['2', '0', '1.0', 'v1', ' 1', ''])('answers 400 naming the supported version for %j', async (value) => {
    const error = await runRequestFilter(versionFilter, request({ 'X-API-Version': value })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ status: 400, details: [{ field: 'X-API-Version', message: 'must be 1' }] });
    expect((error as Error).message).toMatch(/supported versions are 1$/);
  });

  it('answers 400 for a repeated header and caps the echoed value', async () => {
    const repeated = await runRequestFilter(versionFilter, request({ 'x-api-version': ['1', '1'] })).catch((e: unknown) => e);
    expect(repeated).toMatchObject({ status: 400 });
    const long = await runRequestFilter(versionFilter, request({ 'x-api-version': 'x'.repeat(500) })).catch((e: unknown) => e as Error);
    expect(long).toMatchObject({ status: 400 });
    expect((long as Error).message.length).toBeLessThan(120);
  });

  it('stamps X-API-Version: 1 on every response, errors included', async () => {
    expect((await runResponseFilter(versionFilter, request(), new Response(200, { ok: true }))).headers['x-api-version']).toBe('1');
    expect((await runResponseFilter(versionFilter, request({ 'x-api-version': '9' }), new Response(404))).headers['x-api-version']).toBe(
      '1',
    );
  });
});

// RequestIdFilter in isolation: a safe client id is kept, anything else replaced, and echoed.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const idFilter = new RequestIdFilter();

async function idFor(headers: Record<string, string | string[]>): Promise<unknown> {
  const ctx = createRequestContext({ headers, preMatching: true });
  expect(await runRequestFilter(idFilter, ctx)).toBeUndefined();
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
    await runRequestFilter(idFilter, ctx);
    expect((await runResponseFilter(idFilter, ctx)).headers['x-request-id']).toBe('trace-42');

    const generated = createRequestContext({ headers: { 'x-request-id': 'bad id' }, preMatching: true });
    await runRequestFilter(idFilter, generated);
    const res = await runResponseFilter(idFilter, generated);
    expect(res.headers['x-request-id']).toBe(generated.getProperty(REQUEST_ID_PROPERTY));
  });

  it('adds no header when the request filter never ran (e.g. a response for a rejected request)', async () => {
    expect((await runResponseFilter(idFilter, createRequestContext())).headers['x-request-id']).toBeUndefined();
  });
});
