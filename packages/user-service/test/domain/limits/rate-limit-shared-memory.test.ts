/**
 * SharedRateLimiter over an in-memory SharedCounts: instances sharing one quota, the documented
 * over-admission bound, the previous window, failures (fail open to local counts, one report per
 * streak), the timer and close(); near the limit, takeShared/peekShared: exact limits for clients
 * whose requests do not overlap, no store call far from the limit, one exchange shared by concurrent
 * requests, a bounded wait when the store is down. Syncs are driven with syncNow() and explicit clocks.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FailedAuthLimiter, NotAuthorizedError } from '@jaxrs-node/pipeline';
import type { RateLimitDecision } from '../../../src/domain/limits/rate-limit.js';
import { SharedRateLimiter, type CountWindow, type KeyWindow, type SharedCounts } from '../../../src/domain/limits/rate-limit-shared.js';
import { SharedRateLimitStore } from '../../../src/domain/limits/shared-rate-limit-store.js';

/** The library's failed-authentication limiter counting in `limiter`, as etcd-wiring.ts wires it. */
const guardOn = (limiter: SharedRateLimiter): FailedAuthLimiter =>
  new FailedAuthLimiter({ limit: limiter.limit, windowMs: limiter.windowMs, store: new SharedRateLimitStore(limiter) });

const MINUTE = 60_000;
/** A window-aligned instant. */
const T0 = 1_000 * MINUTE;

/** What a shared store holds: window start -> key hash -> instance -> count. */
type Store = Map<number, Map<string, Map<string, number>>>;

/**
 * One instance's view of a shared in-memory store; `fail` makes every call reject, `hang` never
 * settle (until aborted), `hold` keeps publishes waiting until it resolves.
 */
class MemoryCounts implements SharedCounts {
  publishes: Map<string, number>[] = [];
  reads = 0;
  /** The own counts each exchange published, per window (undefined: unchanged). */
  exchanges: (number | undefined)[][] = [];
  /** What landed in the store and when exchanges started, in order. */
  log: string[] = [];
  fail: Error | undefined;
  hang = false;
  hold: Promise<void> | undefined;
  #onPublish: (() => void) | undefined;

  constructor(
    readonly store: Store,
    readonly instanceId: string,
  ) {}

  /** Every call made, publish, read or exchange. */
  get calls(): number {
    return this.publishes.length + this.reads + this.exchanges.length;
  }

  /** Resolves when the next publish starts. */
  nextPublish(): Promise<void> {
    return new Promise((resolve) => (this.#onPublish = resolve));
  }

  async publish(window: CountWindow, counts: ReadonlyMap<string, number>, signal: AbortSignal): Promise<void> {
    this.publishes.push(new Map(counts));
    this.#onPublish?.();
    this.#onPublish = undefined;
    await this.#gate(signal, this.hold);
    for (const [hash, count] of counts) this.#put(window.start, hash, count);
    this.log.push(`published ${[...counts.values()].join(',')}`);
  }

  async exchange(hash: string, windows: readonly KeyWindow[], signal: AbortSignal): Promise<number[]> {
    this.exchanges.push(windows.map((w) => w.own));
    this.log.push('exchange');
    await this.#gate(signal);
    for (const { window, own } of windows) if (own !== undefined) this.#put(window.start, hash, own);
    return windows.map(({ window }) => {
      let sum = 0;
      for (const [instance, count] of this.store.get(window.start)?.get(hash) ?? []) if (instance !== this.instanceId) sum += count;
      return sum;
    });
  }

  /** This instance's stored count of `hash` in the window starting at `start`. */
  stored(start: number, hash: string): number | undefined {
    return this.store.get(start)?.get(hash)?.get(this.instanceId);
  }

  #put(start: number, hash: string, count: number): void {
    let byHash = this.store.get(start);
    if (byHash === undefined) this.store.set(start, (byHash = new Map()));
    let byInstance = byHash.get(hash);
    if (byInstance === undefined) byHash.set(hash, (byInstance = new Map()));
    byInstance.set(this.instanceId, count);
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

  /** Waits while `hang` (or until `hold` resolves), rejecting once `signal` aborts; then fails if told. */
  async #gate(signal: AbortSignal, hold?: Promise<void>): Promise<void> {
    if (this.hang || hold !== undefined) {
      await new Promise<void>((resolve, reject) => {
        const aborted = (): void => reject(new Error('aborted'));
        if (signal.aborted) aborted();
        signal.addEventListener('abort', aborted, { once: true });
        if (!this.hang) void hold?.then(resolve);
      });
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
function instances(
  n: number,
  limit: number,
  extra: { onError?: (e: unknown) => void; maxKeys?: number; syncMargin?: number; syncDeadlineMs?: number } = {},
) {
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

  it('a FailedAuthLimiter on shared limiters counts failures across instances', async () => {
    const [a, b] = instances(2, 2);
    const guards = [guardOn(a!.limiter), guardOn(b!.limiter)];
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

/** The decision of takeShared/peekShared, awaited when it is a Promise. */
async function settle(decision: RateLimitDecision | Promise<RateLimitDecision>): Promise<RateLimitDecision> {
  return decision instanceof Promise ? await decision : decision;
}

/** One decision of {@link sequential}: whether the instance exchanged counts for it. */
type Sequenced = RateLimitDecision & { readonly exchanged: boolean; readonly instance: number };

/**
 * A client whose requests do not overlap, `requests` of them for one key spread round-robin over
 * the instances with takeShared, every instance syncing (in turn) after each `every` requests.
 */
async function sequential(group: { limiter: SharedRateLimiter }[], requests: number, every?: number): Promise<Sequenced[]> {
  const decisions: Sequenced[] = [];
  for (let i = 0; i < requests; i++) {
    const instance = i % group.length;
    const decision = group[instance]!.limiter.takeShared('p:alice', { now: T0 + 1 });
    decisions.push({ ...(await settle(decision)), exchanged: decision instanceof Promise, instance });
    if (every !== undefined && (i + 1) % every === 0) for (const { limiter } of group) await limiter.syncNow(T0 + 1);
  }
  return decisions;
}

describe('SharedRateLimiter near the limit (takeShared, peekShared)', () => {
  it('limits a sequential client alternating over two instances exactly, Remaining included, with no periodic sync at all', async () => {
    // A limit within the default margin (10): every request is decided on fresh counts.
    const decisions = await sequential(instances(2, 5), 12);
    expect(decisions.map((d) => d.allowed)).toEqual([...Array<boolean>(5).fill(true), ...Array<boolean>(7).fill(false)]);
    expect(decisions.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(decisions[5]!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  // A client that sends fewer than syncMargin (50) requests between an instance's publish and the
  // others' read of it is limited exactly; take() alone lets the unseen part through (see above).
  it.each([
    [2, 10],
    [2, 20],
    [3, 30],
  ])('%i instances syncing every %i requests admit a sequential client exactly the limit', async (n, every) => {
    const limit = 100;
    const group = instances(n, limit);
    const decisions = await sequential(group, 400, every);
    expect(decisions.filter((d) => d.allowed).length).toBe(limit);
    // Once no instance decides alone any more (each published what it had admitted alone with its
    // first exchange), each answer tells exactly what is left.
    let admitted = 0;
    const exchanging = new Set<number>();
    let checked = 0;
    for (const d of decisions.filter((x) => x.allowed)) {
      admitted++;
      if (d.exchanged) exchanging.add(d.instance);
      if (exchanging.size === n) {
        expect(d.remaining).toBe(limit - admitted);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(10);
    // Without the exchange near the limit the same client gets more.
    expect(await burst(instances(n, limit), 400, every)).toBeGreaterThan(limit);
  });

  it('touches the store for no request far from the limit, nor for one refused on local counts', async () => {
    const [a] = instances(1, 100);
    expect(a!.limiter.syncMargin).toBe(50);
    // 50 requests leave at least 50 each: decided synchronously, no store call.
    const far = Array.from({ length: 50 }, () => a!.limiter.takeShared('p:alice', { now: T0 + 1 }));
    for (const d of far) expect(d).not.toBeInstanceOf(Promise);
    expect(far.map((d) => (d as RateLimitDecision).allowed)).toEqual(Array<boolean>(50).fill(true));
    expect(a!.counts.calls).toBe(0);
    // The periodic sync goes on: one publish, one read.
    await a!.limiter.syncNow(T0 + 1);
    expect(a!.counts.calls).toBe(2);
    // Within the margin: one exchange and one publish per admitted request.
    const near = await sequential([a!], 50);
    expect(near.map((d) => d.remaining)).toEqual(Array.from({ length: 50 }, (_, i) => 49 - i));
    expect(a!.counts.exchanges.length).toBe(50);
    expect(a!.counts.publishes.length).toBe(1 + 50);
    // Over the limit: refused at once, on the counts the last exchange read.
    for (let i = 0; i < 10; i++) {
      const d = a!.limiter.takeShared('p:alice', { now: T0 + 2 });
      expect(d).not.toBeInstanceOf(Promise);
      expect((d as RateLimitDecision).allowed).toBe(false);
    }
    expect(a!.counts.calls).toBe(2 + 100);
  });

  it('shares one exchange among the concurrent requests of one key on one instance', async () => {
    const [a] = instances(1, 10);
    const first = Array.from({ length: 5 }, () => a!.limiter.takeShared('p:alice', { now: T0 }));
    const other = a!.limiter.takeShared('p:bob', { now: T0 });
    expect((await Promise.all(first.map(settle))).map((d) => d.remaining)).toEqual([9, 8, 7, 6, 5]);
    expect((await settle(other)).remaining).toBe(9);
    // One exchange and one publish for alice's five, one of each for bob.
    expect(a!.counts.exchanges.length).toBe(2);
    expect(a!.counts.publishes.map((p) => [...p.values()])).toEqual([[5], [1]]);

    // Requests that come while an exchange runs share the next one.
    let release = (): void => {};
    a!.counts.hold = new Promise<void>((resolve) => (release = resolve));
    const publishing = a!.counts.nextPublish();
    const during = [a!.limiter.takeShared('p:alice', { now: T0 })];
    await publishing;
    during.push(a!.limiter.takeShared('p:alice', { now: T0 }), a!.limiter.takeShared('p:alice', { now: T0 }));
    release();
    expect((await Promise.all(during.map(settle))).map((d) => d.remaining)).toEqual([4, 3, 2]);
    expect(a!.counts.exchanges.length).toBe(4);
  });

  it('peekShared exchanges near the limit but counts nothing; `fresh` exchanges far from it', async () => {
    const [a, b] = instances(2, 20);
    for (let i = 0; i < 12; i++) a!.limiter.take('k', T0);
    await a!.limiter.syncNow(T0);
    const peeked = b!.limiter.peekShared('k', { now: T0 });
    // b alone knows nothing: far from the limit, answered locally.
    expect(peeked).not.toBeInstanceOf(Promise);
    expect(await settle(b!.limiter.peekShared('k', { now: T0, fresh: true }))).toMatchObject({ allowed: true, remaining: 7 });
    expect(b!.counts.exchanges).toEqual([[undefined, undefined]]);
    expect(b!.counts.publishes).toEqual([]);
    // Now b knows of a's 12: within the margin, a peek exchanges (a's count is still 12).
    expect(await settle(b!.limiter.peekShared('k', { now: T0 }))).toMatchObject({ remaining: 7 });
    expect(b!.counts.exchanges.length).toBe(2);
  });

  it('falls back to local counts within syncDeadlineMs when the store hangs, then decides locally until a sync succeeds', async () => {
    vi.useFakeTimers({ now: T0 });
    const errors: unknown[] = [];
    const [a] = instances(1, 5, { syncDeadlineMs: 50, onError: (e) => errors.push(e) });
    a!.counts.hang = true;
    let decided: RateLimitDecision | undefined;
    void settle(a!.limiter.takeShared('k', { now: T0 })).then((d) => (decided = d));
    await vi.advanceTimersByTimeAsync(49);
    expect(decided).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(decided).toMatchObject({ allowed: true, remaining: 4 });
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/longer than 50 ms/);
    // The streak goes on: no more waiting, no more reports, still limiting.
    const local = Array.from({ length: 5 }, () => a!.limiter.takeShared('k', { now: T0 }));
    for (const d of local) expect(d).not.toBeInstanceOf(Promise);
    expect(local.map((d) => (d as RateLimitDecision).allowed)).toEqual([true, true, true, true, false]);
    expect(errors).toHaveLength(1);
    // A successful sync ends the streak: near the limit, exchanges again.
    a!.counts.hang = false;
    await a!.limiter.syncNow(T0);
    const fresh = a!.limiter.peekShared('other', { now: T0, fresh: true });
    expect(fresh).toBeInstanceOf(Promise);
    await fresh;
  });

  it('falls back at once when the store refuses, and answers locally when closed during an exchange', async () => {
    const errors: unknown[] = [];
    const [a, b] = instances(2, 5, { onError: (e) => errors.push(e) });
    const outage = new Error('store unreachable');
    a!.counts.fail = outage;
    expect(await settle(a!.limiter.takeShared('k', { now: T0 }))).toMatchObject({ allowed: true, remaining: 4 });
    expect(errors).toEqual([outage]);

    b!.counts.hang = true;
    const pending = b!.limiter.takeShared('k', { now: T0 });
    expect(pending).toBeInstanceOf(Promise);
    await b!.limiter.close();
    expect(await settle(pending)).toMatchObject({ allowed: true });
    expect(errors).toEqual([outage]);
  });

  it('waits for a periodic publish of the key still in flight, so the store never steps back', async () => {
    const [a] = instances(1, 100, { syncMargin: 97 });
    for (let i = 0; i < 3; i++) a!.limiter.take('k', T0);
    let release = (): void => {};
    a!.counts.hold = new Promise<void>((resolve) => (release = resolve));
    const sync = a!.limiter.syncNow(T0);
    expect(a!.counts.publishes.map((p) => [...p.values()])).toEqual([[3]]);
    // Within the margin: the exchange must not start before the publish of 3 landed.
    a!.counts.hold = undefined;
    const admitted = a!.limiter.takeShared('k', { now: T0 });
    expect(admitted).toBeInstanceOf(Promise);
    // Give a wrong implementation every chance to exchange before the publish lands.
    await new Promise(setImmediate);
    release();
    await sync;
    expect(await settle(admitted)).toMatchObject({ allowed: true, remaining: 96 });
    expect(a!.counts.log).toEqual(['published 3', 'exchange', 'published 4']);
    expect(a!.counts.stored(T0, [...a!.counts.publishes[0]!.keys()][0]!)).toBe(4);
  });

  it('the 6th wrong guess of a sequential client is 429 on any instance (FailedAuthLimiter, no periodic sync)', async () => {
    const wrong = (): never => {
      throw new NotAuthorizedError('Basic');
    };
    const outcome = (p: Promise<unknown>): Promise<number> =>
      p.then(
        () => 200,
        (e: { status: number }) => e.status,
      );
    // Alternating, as the failed-authentication limiter is wired (margin: half the limit).
    const [a, b] = instances(2, 5, { syncMargin: 3 });
    const guards = [guardOn(a!.limiter), guardOn(b!.limiter)];
    const keys = guards[0]!.keys('10.0.0.1', 'admin');
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push(await outcome(guards[i % 2]!.attempt(keys, wrong)));
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);

    // Every failure on one instance, then a guess on the other, which knew none of them.
    const [c, d] = instances(2, 5, { syncMargin: 3 });
    const onC = guardOn(c!.limiter);
    const onD = guardOn(d!.limiter);
    for (let i = 0; i < 5; i++) expect(await outcome(onC.attempt(keys, wrong))).toBe(401);
    const refused = await onD.attempt(keys, wrong).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 429, headers: { 'retry-after': expect.stringMatching(/^[1-9]\d*$/) } });
    // Now d knows: refused before the credentials are checked.
    let checked = false;
    expect(
      await outcome(
        onD.attempt(keys, () => {
          checked = true;
          return 'principal';
        }),
      ),
    ).toBe(429);
    expect(checked).toBe(false);
  });

  it('rejects a bad syncMargin or syncDeadlineMs, naming the option', () => {
    const counts = new MemoryCounts(new Map(), 'a');
    expect(() => new SharedRateLimiter({ limit: 1, counts, syncMargin: -1 })).toThrow(
      /SharedRateLimiter option syncMargin must be an integer >= 0/,
    );
    expect(() => new SharedRateLimiter({ limit: 1, counts, syncDeadlineMs: 0 })).toThrow(
      /SharedRateLimiter option syncDeadlineMs must be a positive integer/,
    );
  });
});
