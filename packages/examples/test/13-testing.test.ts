// Unit tests of one filter and one interceptor with `@jaxrs-node/pipeline/testing`: no
// Application, no socket, no build step. Then one socket test of the assembled app.
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Response } from '@jaxrs-node/pipeline';
import {
  collectBody,
  createRequestContext,
  runRequestFilter,
  runResponseFilter,
  runWriterInterceptors,
} from '@jaxrs-node/pipeline/testing';
import { ApiKeyFilter } from '../src/02-api-key/app.js';
import { createApp, EtagInterceptor, RequestIdFilter, requestIdOf } from '../src/13-testing/app.js';
import { listen, send, type Running } from './helpers/http.js';

describe('13 unit: RequestIdFilter (request and response filter)', () => {
  const fixedIds = (): (() => string) => {
    let n = 0;
    return () => `generated-${++n}`;
  };

  it('keeps a valid incoming X-Request-Id and echoes it on the response', async () => {
    const filter = new RequestIdFilter(fixedIds());
    const ctx = createRequestContext({ url: '/api/profile', headers: { 'X-Request-Id': 'abc-123' } });
    expect(await runRequestFilter(filter, ctx)).toBeUndefined(); // undefined: it did not abort
    expect(requestIdOf(ctx)).toBe('abc-123');
    const response = await runResponseFilter(filter, ctx);
    expect(response.getHeader('x-request-id')).toBe('abc-123');
  });

  it.each([
    ['missing', undefined],
    ['too long', 'x'.repeat(65)],
    ['unsafe', 'a\tb<script>'],
  ])('replaces a %s id with a new one', async (_, id) => {
    const filter = new RequestIdFilter(fixedIds());
    const ctx = createRequestContext({ headers: id === undefined ? {} : { 'x-request-id': id } });
    await runRequestFilter(filter, ctx);
    expect(requestIdOf(ctx)).toBe('generated-1');
  });

  it('still tags a response whose request never reached the request filter', async () => {
    const response = await runResponseFilter(new RequestIdFilter(fixedIds()), createRequestContext(), new Response(400));
    expect(response.status).toBe(400);
    expect(response.getHeader('x-request-id')).toBe('generated-1');
  });
});

describe('13 unit: EtagInterceptor (writer interceptor)', () => {
  it('tags the serialized body; the same entity gives the same tag, another a different one', async () => {
    const a = await runWriterInterceptors([new EtagInterceptor()], { entity: { name: 'Ada' } });
    expect(a.body.toString()).toBe('{"name":"Ada"}');
    expect(a.response.headers['content-type']).toBe('application/json');
    expect(a.response.getHeader('etag')).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const again = await runWriterInterceptors([new EtagInterceptor()], { entity: { name: 'Ada' } });
    const other = await runWriterInterceptors([new EtagInterceptor()], { entity: { name: 'Bob' } });
    expect(again.response.getHeader('etag')).toBe(a.response.getHeader('etag'));
    expect(other.response.getHeader('etag')).not.toBe(a.response.getHeader('etag'));
  });

  it('skips non-GET requests, non-200 responses and streams', async () => {
    const post = await runWriterInterceptors([new EtagInterceptor()], {
      entity: { a: 1 },
      request: createRequestContext({ method: 'POST' }),
    });
    expect(post.response.getHeader('etag')).toBeUndefined();
    const created = await runWriterInterceptors([new EtagInterceptor()], { entity: { a: 1 }, response: new Response(201, { a: 1 }) });
    expect(created.response.getHeader('etag')).toBeUndefined();
    const stream = await runWriterInterceptors([new EtagInterceptor()], {
      entity: Readable.from(['a', 'b']),
      mediaType: 'text/plain',
      type: Readable,
    });
    expect(stream.body.toString()).toBe('ab');
    expect(stream.response.getHeader('etag')).toBeUndefined();
  });
});

describe('13 unit: a filter from another example (02 api-key) aborting', () => {
  it('the abort response is returned, status, challenge and entity included', async () => {
    const abort = await runRequestFilter(new ApiKeyFilter(['k']), createRequestContext({ url: '/api/things' }));
    expect(abort?.status).toBe(401);
    expect(abort?.getHeader('www-authenticate')).toBe('API-Key');
    expect(abort?.entity).toEqual({ status: 401, error: 'Unauthorized', message: 'Missing X-API-Key header' });
  });

  it('a good key passes and sets the security context', async () => {
    const ctx = createRequestContext({ url: '/api/things', headers: { 'x-api-key': 'k' } });
    expect(await runRequestFilter(new ApiKeyFilter(['k']), ctx)).toBeUndefined();
    expect(ctx.securityContext.authenticationScheme).toBe('API-Key');
    expect(await collectBody(undefined)).toHaveLength(0);
  });
});

describe('13 assembled: the same components over a real socket', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp());
  });
  afterAll(() => server.close());

  it('request id round trip and a stable ETag', async () => {
    const one = await send(server.url, '/api/profile', { headers: { 'x-request-id': 'trace-1' } });
    const two = await send(server.url, '/api/profile', { headers: { 'x-request-id': 'trace-1' } });
    expect(one.headers['x-request-id']).toBe('trace-1');
    expect(one.json()).toEqual({ name: 'Ada', requestId: 'trace-1' });
    // EtagInterceptor's format: a strong tag of 27 base64url chars (truncated SHA-256), so two
    // absent headers cannot pass as "equal".
    expect(one.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(two.headers.etag).toBe(one.headers.etag);
  });

  it('a 404 gets an id too (the filter is pre-matching)', async () => {
    const r = await send(server.url, '/nowhere');
    expect(r.status).toBe(404);
    expect(r.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
