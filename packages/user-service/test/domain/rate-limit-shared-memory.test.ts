/**
 * SharedRateLimiter over an in-memory SharedCounts: instances sharing one quota, the documented
 * over-admission bound, the previous window, failures (fail open to local counts, one report per
 * streak), the timer and close(). Syncs are driven with syncNow() and explicit clocks.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NotAuthorizedError } from '@jaxrs-node/pipeline';
import { AuthFailureGuard } from '../../src/domain/auth-failures.js';
import { SharedRateLimiter, type CountWindow, type SharedCounts } from '../../src/domain/rate-limit-shared.js';

const MINUTE = 60_000;
/** A window-aligned instant. */
const T0 = 1_000 * MINUTE;

/** What a shared store holds: window start -> key hash -> instance -> count. */
type Store = Map<number, Map<string, Map<string, number>>>;

/** One instance's view of a shared in-memory store; `fail` makes every call reject, `hang` never settle (until aborted). */
class MemoryCounts implements SharedCounts {
  publishes: Map<string, number>[] = [];
  reads = 0;
  fail: Error | undefined;
  hang = false;

  constructor(
    readonly store: Store,
    readonly instanceId: string,
  ) {}

  async publish(window: CountWindow, counts: ReadonlyMap<string, number>, signal: AbortSignal): Promise<void> {
    await this.#gate(signal);
    this.publishes.push(new Map(counts));
    let byHash = this.store.get(window.start);
    if (byHash === undefined) this.store.set(window.start, (byHash = new Map()));
    for (const [hash, count] of counts) {
      let byInstance = byHash.get(hash);
      if (byInstance === undefined) byHash.set(hash, (byInstance = new Map()));
      byInstance.set(this.instanceId, count);
    }
  }

  async read(windowStarts: readonly number[], signal: AbortSignal): Promise<Map<string, number>[]> {
    await this.#gate(signal);
    this.reads++;
    return windowStarts.map((start) => {
      const sums = new Map<string, number>();
      for (const [hash, byInstance] of this.store.get(start) ?? []) {
        for (const [instance, count] of byInstance) if (instance !== this.instanceId) sums.set(hash, (sums.get(hash) ?? 0) + count);
      }
      return sums;
    });
  }

  async #gate(signal: AbortSignal): Promise<void> {
    if (this.hang) {
      await new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
    }
    if (this.fail !== undefined) throw this.fail;
  }
}

const limiters: SharedRateLimiter[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(limiters.splice(0).map((l) => l.close()));
});

/** `n` limiters sharing one store, without timers. */
function instances(n: number, limit: number, extra: { onError?: (e: unknown) => void; maxKeys?: number } = {}) {
  const store: Store = new Map();
  return Array.from({ length: n }, (_, i) => {
    const counts = new MemoryCounts(store, `i${i}`);
    const limiter = new SharedRateLimiter({ limit, windowMs: MINUTE, counts, timer: false, onError: () => {}, ...extra });
    limiters.push(limiter);
    return { limiter, counts };
  });
}

/**
 * A burst of `requests` for one key spread round-robin over the instances, every one syncing (in
 * turn) after each `every` requests; returns how many were admitted.
 */
async function burst(group: { limiter: SharedRateLimiter }[], requests: number, every: number | undefined): Promise<number> {
  let admitted = 0;
  for (let i = 0; i < requests; i++) {
    if (group[i % group.length]!.limiter.take('p:alice', T0 + 1).allowed) admitted++;
    if (every !== undefined && (i + 1) % every === 0) for (const { limiter } of group) await limiter.syncNow(T0 + 1);
  }
  return admitted;
}

describe('SharedRateLimiter', () => {
  it('without syncs every instance admits the full limit alone (the baseline the sharing fixes)', async () => {
    expect(await burst(instances(2, 100), 600, undefined)).toBe(200);
  });

  // Syncing in turn after every `every` requests, an instance's view of another lags at most two
  // sync periods (U = 2(T + d) with d = 0 here): the other's admissions in that time, `every`
  // requests spread over N instances of which N - 1 can be missed, bound the excess.
  it.each([
    [2, 2],
    [2, 10],
    [2, 40],
    [3, 9],
    [3, 30],
  ])('%i instances, syncing every %i requests, admit at least the limit and at most limit + the documented bound', async (n, every) => {
    const limit = 100;
    const admitted = await burst(instances(n, limit), 600, every);
    const perInstanceInU = (2 * every) / n;
    const bound = (n - 1) * Math.min(limit, Math.ceil(perInstanceInU));
    expect(admitted).toBeGreaterThanOrEqual(limit);
    expect(admitted).toBeLessThanOrEqual(limit + bound);
    // Far from the n * limit that counting alone would admit.
    expect(admitted).toBeLessThan(limit + limit / 2);
  });

  it("weights another instance's previous window, Retry-After included", async () => {
    const [a, b] = instances(2, 10);
    for (let i = 0; i < 10; i++) expect(a!.limiter.take('k', T0 + MINUTE - 1000).allowed).toBe(true);
    await a!.limiter.syncNow(T0 + MINUTE + 1000);
    await b!.limiter.syncNow(T0 + MINUTE + 1000);
    // 10 requests weighing 59/60 on b, which has seen none of them itself.
    const denied = b!.limiter.take('k', T0 + MINUTE + 1000);
    expect(denied.allowed).toBe(false);
    // Allowed again once 10 * (1 - e/W) + 1 <= 10: e = W/10 = 6 s, 5 s from now.
    expect(denied.retryAfterSeconds).toBe(5);
    // Half-way through, half of them have decayed: five more fit on b.
    const later = Array.from({ length: 6 }, () => b!.limiter.take('k', T0 + MINUTE + MINUTE / 2).allowed);
    expect(later).toEqual([true, true, true, true, true, false]);
  });

  it('peek sees the other instances but neither counts nor publishes', async () => {
    const [a, b] = instances(2, 3);
    for (let i = 0; i < 3; i++) a!.limiter.take('k', T0);
    await a!.limiter.syncNow(T0);
    await b!.limiter.syncNow(T0);
    expect(b!.limiter.peek('k', T0).allowed).toBe(false);
    expect(b!.limiter.peek('other', T0)).toMatchObject({ allowed: true, remaining: 2 });
    await b!.limiter.syncNow(T0);
    expect(b!.counts.publishes).toEqual([]);
  });

  it('publishes only counts that changed, as absolute counts under a hash of the key', async () => {
    const [a] = instances(1, 100);
    a!.limiter.take('p:alice', T0);
    a!.limiter.take('p:alice', T0);
    a!.limiter.take('p:bob', T0);
    await a!.limiter.syncNow(T0);
    await a!.limiter.syncNow(T0);
    a!.limiter.take('p:bob', T0);
    await a!.limiter.syncNow(T0);
    const [first, second] = a!.counts.publishes;
    expect([...first!.values()].sort((x, y) => x - y)).toEqual([1, 2]);
    expect([...second!.values()]).toEqual([2]);
    expect(a!.counts.publishes.length).toBe(2);
    for (const hash of first!.keys()) expect(hash).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(first!.has('p:alice')).toBe(false);
  });

  it('shares at most maxKeys keys per window; further keys are limited locally', async () => {
    const [a] = instances(1, 100, { maxKeys: 4 });
    for (let i = 0; i < 10; i++) a!.limiter.take(`k${i}`, T0);
    await a!.limiter.syncNow(T0);
    expect(a!.counts.publishes[0]!.size).toBe(4);
  });

  it('fails open to local counts and reports once per streak of failed syncs', async () => {
    const errors: unknown[] = [];
    const [a, b] = instances(2, 10, { onError: (e) => errors.push(e) });
    for (let i = 0; i < 4; i++) a!.limiter.take('k', T0);
    await a!.limiter.syncNow(T0);
    await b!.limiter.syncNow(T0);

    const outage = new Error('store unreachable');
    a!.counts.fail = outage;
    b!.counts.fail = outage;
    for (let i = 0; i < 3; i++) {
      for (const limiter of [a!.limiter, b!.limiter]) await limiter.syncNow(T0);
    }
    expect(errors).toEqual([outage, outage]);
    // b still charges the 4 it read before the outage, plus its own.
    const during = Array.from({ length: 10 }, () => b!.limiter.take('k', T0).allowed);
    expect(during.filter(Boolean).length).toBe(6);

    a!.counts.fail = undefined;
    b!.counts.fail = undefined;
    await b!.limiter.syncNow(T0);
    await a!.limiter.syncNow(T0);
    // The 6 b admitted during the outage reached a once the store was back.
    expect(a!.limiter.peek('k', T0).allowed).toBe(false);

    b!.counts.fail = outage;
    await b!.limiter.syncNow(T0);
    await b!.limiter.syncNow(T0);
    expect(errors).toEqual([outage, outage, outage]);
  });

  it('a reporter that throws does not stop the syncs', async () => {
    const [a] = instances(1, 10, {
      onError: () => {
        throw new Error('reporter broke');
      },
    });
    a!.counts.fail = new Error('down');
    await expect(a!.limiter.syncNow(T0)).resolves.toBeUndefined();
    a!.counts.fail = undefined;
    await a!.limiter.syncNow(T0);
    expect(a!.counts.reads).toBe(1);
  });

  it('close() aborts a sync that hangs, without reporting it, and leaves local limiting', async () => {
    const errors: unknown[] = [];
    const [a] = instances(1, 2, { onError: (e) => errors.push(e) });
    a!.counts.hang = true;
    a!.limiter.take('k', T0);
    const sync = a!.limiter.syncNow(T0);
    expect(a!.limiter.take('k', T0).allowed).toBe(true);
    expect(a!.limiter.take('k', T0).allowed).toBe(false);
    await a!.limiter.close();
    await sync;
    expect(errors).toEqual([]);
    expect(a!.limiter.take('other', T0).allowed).toBe(true);
    await a!.limiter.syncNow(T0);
    expect(a!.counts.reads).toBe(0);
  });

  it('syncs every syncIntervalMs, skips ticks while a sync runs, and stops on close()', async () => {
    vi.useFakeTimers();
    const counts = new MemoryCounts(new Map(), 'a');
    const limiter = new SharedRateLimiter({ limit: 10, windowMs: MINUTE, counts, syncIntervalMs: 100 });
    limiters.push(limiter);
    await vi.advanceTimersByTimeAsync(350);
    expect(counts.reads).toBe(3);

    counts.hang = true;
    await vi.advanceTimersByTimeAsync(500);
    expect(counts.reads).toBe(3);

    await limiter.close();
    counts.hang = false;
    await vi.advanceTimersByTimeAsync(1000);
    expect(counts.reads).toBe(3);
  });

  it('does not hold the process open', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const limiter = new SharedRateLimiter({ limit: 10, counts: new MemoryCounts(new Map(), 'a'), onError: () => {} });
    limiters.push(limiter);
    expect(timers()).toBe(before);
  });

  it('an AuthFailureGuard on shared limiters counts failures across instances', async () => {
    const [a, b] = instances(2, 2);
    const guards = [new AuthFailureGuard({ limiter: a!.limiter }), new AuthFailureGuard({ limiter: b!.limiter })];
    const keys = guards[0]!.keys('10.0.0.1', 'admin');
    const wrong = (): never => {
      throw new NotAuthorizedError('Basic');
    };
    for (const guard of guards) await expect(guard.attempt(keys, wrong)).rejects.toMatchObject({ status: 401 });
    // a publishes, b publishes and reads a's failure, a reads b's.
    for (const limiter of [a!.limiter, b!.limiter, a!.limiter]) await limiter.syncNow();
    for (const guard of guards) await expect(guard.attempt(keys, () => 'principal')).rejects.toMatchObject({ status: 429 });
  });

  it('rejects a sync interval that is not below the window, naming the option', () => {
    const counts = new MemoryCounts(new Map(), 'a');
    for (const syncIntervalMs of [0, 1.5, MINUTE]) {
      expect(() => new SharedRateLimiter({ limit: 1, windowMs: MINUTE, counts, syncIntervalMs })).toThrow(
        /SharedRateLimiter option syncIntervalMs must be a positive integer below windowMs/,
      );
    }
  });
});
