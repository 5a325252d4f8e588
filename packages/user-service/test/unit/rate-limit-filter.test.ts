/** RateLimitFilter in isolation over a real RateLimiter (limit 2): 429 + Retry-After, the quota headers, keys. */
import { describe, expect, it } from 'vitest';
import { Response, SecurityContext, TooManyRequestsError } from '@jaxrs-node/pipeline';
import { createRequestContext, runRequestFilter, runResponseFilter } from '@jaxrs-node/pipeline/testing';
import { RateLimiter } from '../../src/domain/limits/rate-limit.js';
import { RateLimitFilter } from '../../src/http/filters/rate-limit-filter.js';

const request = (remoteAddress = '10.0.0.1', headers: Record<string, string> = {}) =>
  createRequestContext({ url: '/api/users', remoteAddress, headers });

describe('RateLimitFilter', () => {
  it('lets two requests through, then answers 429 with Retry-After in whole seconds >= 1', async () => {
    const filter = new RateLimitFilter(new RateLimiter({ limit: 2, windowMs: 60_000 }));
    expect(await runRequestFilter(filter, request())).toBeUndefined();
    expect(await runRequestFilter(filter, request())).toBeUndefined();
    const error = await runRequestFilter(filter, request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TooManyRequestsError);
    expect(error).toMatchObject({ status: 429 });
    const retryAfter = (error as TooManyRequestsError).headers['retry-after'];
    expect(retryAfter).toMatch(/^[1-9]\d*$/);
    expect(Number(retryAfter)).toBeLessThanOrEqual(120);
  });

  it('sets X-Rate-Limit-Limit, -Remaining and -Reset on the response of a counted request', async () => {
    const filter = new RateLimitFilter(new RateLimiter({ limit: 2, windowMs: 60_000 }));
    const first = request();
    await runRequestFilter(filter, first);
    const res = await runResponseFilter(filter, first, new Response(200, { ok: true }));
    expect(res.headers['x-rate-limit-limit']).toBe(2);
    expect(res.headers['x-rate-limit-remaining']).toBe(1);
    expect(Number(res.headers['x-rate-limit-reset'])).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers['x-rate-limit-reset'])).toBeLessThanOrEqual(60);

    const second = request();
    await runRequestFilter(filter, second);
    expect((await runResponseFilter(filter, second)).headers['x-rate-limit-remaining']).toBe(0);

    // The refused request's error response carries the headers too (remaining 0).
    const third = request();
    await expect(runRequestFilter(filter, third)).rejects.toMatchObject({ status: 429 });
    const refused = await runResponseFilter(filter, third, new Response(429));
    expect(refused.headers).toMatchObject({ 'x-rate-limit-limit': 2, 'x-rate-limit-remaining': 0 });
  });

  it('keys on the principal when authenticated, else the socket address; ignores X-Forwarded-For', async () => {
    const filter = new RateLimitFilter(new RateLimiter({ limit: 2, windowMs: 60_000 }));
    for (let i = 0; i < 2; i++) await runRequestFilter(filter, request('10.0.0.1', { 'x-forwarded-for': `192.0.2.${i}` }));
    await expect(runRequestFilter(filter, request('10.0.0.1', { 'x-forwarded-for': '192.0.2.99' }))).rejects.toMatchObject({ status: 429 });
    // Another address has its own quota.
    expect(await runRequestFilter(filter, request('10.0.0.2'))).toBeUndefined();
    // The same exhausted address, authenticated as someone, counts against that principal instead.
    const alice = request('10.0.0.1');
    alice.securityContext = SecurityContext.of({ name: 'alice' }, ['USER'], 'Bearer');
    expect(await runRequestFilter(filter, alice)).toBeUndefined();
  });

  it('passes everything and adds no headers when rate limiting is off (null limiter)', async () => {
    const filter = new RateLimitFilter(null);
    for (let i = 0; i < 10; i++) {
      const ctx = request();
      expect(await runRequestFilter(filter, ctx)).toBeUndefined();
      const res = await runResponseFilter(filter, ctx);
      expect(res.headers['x-rate-limit-limit']).toBeUndefined();
      expect(res.headers['x-rate-limit-remaining']).toBeUndefined();
    }
  });
});
