/** The pre-matching header filter in isolation: ApiVersionFilter (the request id is the pipeline's RequestIdFeature: request-id-log.test.ts). */
import { describe, expect, it } from 'vitest';
import { BadRequestError, Response } from '@jaxrs-node/pipeline';
import { createRequestContext, runRequestFilter, runResponseFilter } from '@jaxrs-node/pipeline/testing';
import { API_VERSION, ApiVersionFilter } from '../../src/http/filters/api-version-filter.js';

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
