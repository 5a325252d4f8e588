import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../src/domain/limits/rate-limit.js';

const MINUTE = 60_000;
/** A window-aligned instant, so elapsed times in the tests are exact. */
const T0 = 1_000 * MINUTE;

describe('RateLimiter', () => {
  it('allows `limit` requests per window, then denies with Retry-After >= 1', () => {
    const limiter = new RateLimiter({ limit: 3 });
    const decisions = [0, 1, 2, 3].map((i) => limiter.take('ip:1', T0 + i));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    expect(decisions[0]).toMatchObject({ limit: 3, resetSeconds: 60, retryAfterSeconds: 0 });
    expect(decisions[3]!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('keeps keys independent', () => {
    const limiter = new RateLimiter({ limit: 1 });
    expect(limiter.take('a', T0).allowed).toBe(true);
    expect(limiter.take('a', T0).allowed).toBe(false);
    expect(limiter.take('b', T0).allowed).toBe(true);
  });

  it('does not count denied requests, so a hammering client still recovers', () => {
    const limiter = new RateLimiter({ limit: 2 });
    limiter.take('k', T0);
    limiter.take('k', T0);
    for (let i = 0; i < 1000; i++) limiter.take('k', T0 + 10);
    // Two windows later the previous window (empty) no longer weighs anything.
    expect(limiter.take('k', T0 + 2 * MINUTE).remaining).toBe(1);
  });

  it('weights the previous window: no 2x burst across a window boundary', () => {
    const limiter = new RateLimiter({ limit: 10 });
    for (let i = 0; i < 10; i++) expect(limiter.take('k', T0 + MINUTE - 1000).allowed).toBe(true);
    // Just after the boundary the previous 10 still count almost fully.
    expect(limiter.take('k', T0 + MINUTE + 1000).allowed).toBe(false);
    // Half-way through the next window half of them have decayed: 5 more fit.
    const later = [0, 1, 2, 3, 4, 5].map(() => limiter.take('k', T0 + MINUTE + MINUTE / 2));
    expect(later.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
  });

  it('Retry-After is the first whole second at which a request is allowed again', () => {
    /** A limiter whose window for 'k' was filled by `limit` requests spread over `spread` ms. */
    const filled = (limit: number, spread: number) => {
      const limiter = new RateLimiter({ limit });
      for (let i = 0; i < limit; i++) expect(limiter.take('k', T0 + Math.floor((spread * i) / limit)).allowed).toBe(true);
      return limiter;
    };
    let checked = 0;
    for (const [limit, spread] of [
      [5, 0],
      [10, 40_000],
      [7, 59_000],
      [1, 0],
    ] as const) {
      for (const probe of [T0 + spread + 1, T0 + MINUTE + 5_000, T0 + MINUTE + 30_000]) {
        const denied = filled(limit, spread).take('k', probe);
        if (denied.allowed) continue;
        checked++;
        const wait = denied.retryAfterSeconds * 1000;
        expect(filled(limit, spread).take('k', probe + wait).allowed).toBe(true);
        if (denied.retryAfterSeconds > 1) expect(filled(limit, spread).take('k', probe + wait - 1000).allowed).toBe(false);
      }
    }
    expect(checked).toBeGreaterThanOrEqual(6);
  });

  it('stays bounded under 100k distinct keys, in constant time per call', () => {
    const limiter = new RateLimiter({ limit: 5, maxKeys: 10_000 });
    const start = process.hrtime.bigint();
    for (let i = 0; i < 100_000; i++) {
      limiter.take(`ip:${i}`, T0 + i);
      if (limiter.size > 10_000) throw new Error(`size ${limiter.size} after ${i} keys`);
    }
    const elapsedMs = Number(process.hrtime.bigint() - start) / 1e6;
    expect(limiter.size).toBeLessThanOrEqual(10_000);
    expect(limiter.size).toBeGreaterThanOrEqual(5_000);
    // Any per-call scan of the key store (O(maxKeys)) would take seconds here.
    expect(elapsedMs).toBeLessThan(1_000);
    // The newest keys are the ones kept.
    expect(limiter.take('ip:99999', T0 + 100_000).remaining).toBe(3);
  });

  it('forgets keys untouched for a whole generation, keeps recently used ones', () => {
    const limiter = new RateLimiter({ limit: 1, maxKeys: 4 }); // two generations of 2
    limiter.take('a', T0);
    limiter.take('b', T0);
    limiter.take('c', T0); // current full: {a, b} becomes the previous generation
    limiter.take('a', T0); // denied, and promoted back into the current generation
    limiter.take('d', T0); // rotates again: b, untouched since, is dropped
    expect(limiter.size).toBeLessThanOrEqual(4);
    expect(limiter.take('a', T0).allowed).toBe(false); // still counted
    expect(limiter.take('b', T0).allowed).toBe(true); // forgotten: fresh quota
  });

  it('survives a clock step backwards without reopening quota', () => {
    const limiter = new RateLimiter({ limit: 1 });
    expect(limiter.take('k', T0 + MINUTE).allowed).toBe(true);
    expect(limiter.take('k', T0).allowed).toBe(false);
  });

  it('validates its options', () => {
    expect(() => new RateLimiter({ limit: 0 })).toThrow(RangeError);
    expect(() => new RateLimiter({ limit: 1, windowMs: 0 })).toThrow(RangeError);
    expect(() => new RateLimiter({ limit: 1, maxKeys: 1 })).toThrow(RangeError);
    expect(() => new RateLimiter({ limit: 1, maxKeys: 2.5 })).toThrow(RangeError);
  });
});
