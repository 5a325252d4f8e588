/**
 * One request quota shared by several instances of the service (behind one load balancer), without
 * a round trip per request: each instance counts locally exactly like {@link RateLimiter} and, every
 * `syncIntervalMs`, publishes its own per-key counts of the current (and, until its last requests
 * are out, the previous) fixed window to a {@link SharedCounts} store and reads back every other
 * instance's last published counts. A decision weighs local counts plus those counts with the same
 * sliding-window formula as a single instance, for the previous window too.
 *
 * Bound. Let N be the number of instances, T `syncIntervalMs`, d the longest one sync takes (its
 * publish and read round trips; a few ms on a LAN), and U = 2(T + d). At any instant an instance
 * misses, of the other instances' requests, at most those they admitted in the last U: its last
 * finished read started at most T + d ago, and what it read includes every other instance's counts
 * as of that instance's last publish before, which started at most T + d earlier again. An instance
 * admits while its estimate + 1 <= limit, so after any admission the true sliding-window count is
 * at most
 *
 *     limit + Σ_{j ≠ i} a_j(U)      <=      limit + (N - 1) · min(limit, r · U)
 *
 * where a_j(U) is what instance j admitted for that key in the last U and r the highest rate at
 * which one instance admits it. A client spreading R requests/s evenly over the instances gets at
 * most (N - 1)/N · R · U requests above the limit; a burst that reaches every instance within U
 * gets at most (N - 1) · limit (every instance admitting its full quota alone). With the default
 * T = 250 ms and d ≈ 5 ms, U ≈ 0.51 s: a client sending 100 requests/s through 2 instances gets at
 * most 0.5 · 100 · 0.51 ≈ 26 requests above the limit. It never errs the other way: counts read
 * are lower bounds of the truth, so a request is denied only once the true count reached `limit`.
 *
 * Failures. A sync that fails (store unreachable, slow, too large) never delays or fails a
 * request: decisions go on from local counts plus the other instances' counts last read (still
 * true lower bounds; they fall away with their window), so an outage degrades to at worst N times
 * the limit, each instance limiting alone. The failure is reported once per streak through
 * `onError`; the next successful sync ends the streak and publishes what was missed (counts are
 * absolute, so a lost publish is simply repeated).
 *
 * Memory: own counts for at most `maxKeys` keys per window (further keys are limited locally
 * only) plus the other instances' counts of the current and previous windows. Clocks of the
 * instances should agree to well within T; every instance must use the same `windowMs` and store
 * prefix.
 */
import { hash } from 'node:crypto';
import { RateLimiter, type CountSharing, type RateLimiterOptions } from './rate-limit.js';

/** A fixed window of counts: its start (ms since the epoch, a multiple of its length) and length. */
export interface CountWindow {
  readonly start: number;
  readonly lengthMs: number;
}

/**
 * Where instances publish and read their counts. Keys are hashes of client keys (22 base64url
 * characters, never a `/`); counts are absolute per window, so publishing twice is harmless.
 * Both calls must settle promptly once `signal` aborts.
 * @example
 * const counts: SharedCounts = new EtcdSharedCounts({ client, prefix: 'user-service', instanceId: 'a' });
 */
export interface SharedCounts {
  /** Stores this instance's counts (hash -> count) for `window`; keys left out keep their last value. */
  publish(window: CountWindow, counts: ReadonlyMap<string, number>, signal: AbortSignal): Promise<void>;
  /** For each window start, every OTHER instance's last published counts, summed per hash. */
  read(windowStarts: readonly number[], signal: AbortSignal): Promise<Map<string, number>[]>;
}

/** Options of {@link SharedRateLimiter}. */
export interface SharedRateLimiterOptions extends Omit<RateLimiterOptions, 'sharing'> {
  /** The store shared with the other instances. */
  readonly counts: SharedCounts;
  /** Time between syncs, >= 1 and below `windowMs`; default 250 ms. */
  readonly syncIntervalMs?: number;
  /** false: no timer, the owner calls {@link SharedRateLimiter.syncNow} itself; default true. */
  readonly timer?: boolean;
  /** Told the first failure of every streak of failed syncs; default: a line on stderr. */
  readonly onError?: (error: unknown) => void;
}

interface OwnCount {
  count: number;
  /** What the store last acknowledged. */
  published: number;
}

/** The hash a client key is published under: 128 bits of SHA-256, so no client name is stored. */
function keyHash(key: string): string {
  return hash('sha256', key, 'base64url').slice(0, 22);
}

function defaultOnError(error: unknown): void {
  console.error('SharedRateLimiter: sync failed, limiting on local counts until it recovers:', error);
}

/** The request-path half: what the limiter asks per request, all in memory. */
class Tally implements CountSharing {
  /** This instance's counts by window start, then client key. */
  readonly own = new Map<number, Map<string, OwnCount>>();
  /** The other instances' counts by window start, then key hash, as last read. */
  others = new Map<number, Map<string, number>>();
  stopped = false;
  /** Hashes of the keys seen in the current window, so a key is hashed about once per window. */
  #hashes = new Map<string, string>();
  #hashesWindow = 0;

  /** Set from the limiter's `maxKeys` once it is constructed. */
  maxKeys = 0;

  elsewhere(key: string, windowStart: number): number {
    const counts = this.others.get(windowStart);
    if (counts === undefined || counts.size === 0) return 0;
    return counts.get(this.hash(key)) ?? 0;
  }

  counted(key: string, windowStart: number): void {
    if (this.stopped) return;
    let counts = this.own.get(windowStart);
    if (counts === undefined) {
      counts = new Map();
      this.own.set(windowStart, counts);
    }
    const own = counts.get(key);
    if (own !== undefined) own.count++;
    else if (counts.size < this.maxKeys) counts.set(key, { count: 1, published: 0 });
  }

  hash(key: string): string {
    let hashed = this.#hashes.get(key);
    if (hashed === undefined) {
      hashed = keyHash(key);
      if (this.#hashes.size < this.maxKeys) this.#hashes.set(key, hashed);
    }
    return hashed;
  }

  /** Drops what no longer overlaps the sliding window ending in the window starting at `start`. */
  prune(start: number, windowMs: number): void {
    for (const windowStart of this.own.keys()) if (windowStart < start - windowMs) this.own.delete(windowStart);
    if (this.#hashesWindow !== start) {
      this.#hashes = new Map();
      this.#hashesWindow = start;
    }
  }
}

/**
 * A {@link RateLimiter} whose quota holds across instances sharing a {@link SharedCounts} store
 * (see the module comment for the bound). Same `take`/`peek`, no I/O on the request path; call
 * {@link SharedRateLimiter.close} on shutdown.
 * @example
 * const limiter = new SharedRateLimiter({
 *   limit: 600,
 *   windowMs: 60_000,
 *   counts: new EtcdSharedCounts({ client: etcd, prefix: 'user-service', instanceId: hostname() }),
 *   onError: (e) => logError(e, undefined),
 * });
 * limiter.take(`p:${principal.name}`); // as RateLimiter
 * await limiter.close();
 */
export class SharedRateLimiter extends RateLimiter {
  readonly syncIntervalMs: number;
  readonly #tally: Tally;
  readonly #counts: SharedCounts;
  readonly #onError: (error: unknown) => void;
  readonly #abort = new AbortController();
  readonly #timer: ReturnType<typeof setInterval> | undefined;
  #running: Promise<void> | undefined;
  #failing = false;

  constructor(options: SharedRateLimiterOptions) {
    const tally = new Tally();
    super({ ...options, sharing: tally });
    tally.maxKeys = this.maxKeys;
    const { syncIntervalMs = 250, timer = true } = options;
    if (!Number.isSafeInteger(syncIntervalMs) || syncIntervalMs < 1 || syncIntervalMs >= this.windowMs) {
      throw new RangeError(
        `SharedRateLimiter option syncIntervalMs must be a positive integer below windowMs (${this.windowMs}), got ${syncIntervalMs}`,
      );
    }
    this.syncIntervalMs = syncIntervalMs;
    this.#tally = tally;
    this.#counts = options.counts;
    this.#onError = options.onError ?? defaultOnError;
    if (timer) {
      // A tick while a sync is still running is skipped, so a slow store never piles syncs up.
      this.#timer = setInterval(() => {
        if (this.#running === undefined) void this.syncNow();
      }, syncIntervalMs);
      this.#timer.unref();
    }
  }

  /**
   * Publishes this instance's changed counts and reads the others' now (after any sync still
   * running). Never rejects: a failure is reported through `onError`.
   * @example
   * await limiter.syncNow(); // e.g. in tests, instead of waiting for the timer
   */
  async syncNow(now: number = Date.now()): Promise<void> {
    while (this.#running !== undefined) await this.#running;
    if (this.#abort.signal.aborted) return;
    const running = this.#sync(now);
    this.#running = running;
    try {
      await running;
    } finally {
      this.#running = undefined;
    }
  }

  /**
   * Stops the timer and aborts a sync in flight; the limiter then limits on local counts only.
   * @example
   * await limiter.close();
   */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#abort.abort();
    this.#tally.stopped = true;
    this.#tally.own.clear();
    this.#tally.others = new Map();
    await this.#running;
  }

  async #sync(now: number): Promise<void> {
    const W = this.windowMs;
    const start = now - (now % W);
    const tally = this.#tally;
    tally.prune(start, W);
    const signal = this.#abort.signal;
    try {
      for (const [windowStart, counts] of tally.own) await this.#publish({ start: windowStart, lengthMs: W }, counts, signal);
      const [current, previous] = await this.#counts.read([start, start - W], signal);
      tally.others = new Map([
        [start, current ?? new Map()],
        [start - W, previous ?? new Map()],
      ]);
      this.#failing = false;
    } catch (error) {
      if (this.#failing || signal.aborted) return;
      this.#failing = true;
      try {
        this.#onError(error);
      } catch {
        // A throwing reporter must not stop the syncs.
      }
    }
  }

  /** Publishes the counts of one window that changed since the store last acknowledged them. */
  async #publish(window: CountWindow, counts: Map<string, OwnCount>, signal: AbortSignal): Promise<void> {
    const changed = new Map<string, number>();
    const sent: [OwnCount, number][] = [];
    for (const [key, own] of counts) {
      if (own.count === own.published) continue;
      changed.set(this.#tally.hash(key), own.count);
      sent.push([own, own.count]);
    }
    if (changed.size === 0) return;
    await this.#counts.publish(window, changed, signal);
    for (const [own, count] of sent) own.published = count;
  }
}
