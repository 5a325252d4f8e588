/**
 * One request quota shared by several instances of the service (behind one load balancer). Each
 * instance counts locally exactly like {@link RateLimiter} and, every `syncIntervalMs`, publishes
 * its own per-key counts of the current (and, until its last requests are out, the previous) fixed
 * window to a {@link SharedCounts} store and reads back every other instance's last published
 * counts. A decision weighs local counts plus those counts with the same sliding-window formula as
 * a single instance, for the previous window too.
 *
 * Near the limit. {@link SharedRateLimiter.takeShared} decides alone, without I/O, while its
 * estimate leaves at least `syncMargin` (M) requests after this one. Closer to the limit it first
 * exchanges that key's counts with the store (one transaction: this instance's count put, the
 * others' counts read), decides on those fresh counts and, when it admits, publishes the new count
 * before answering, so that the client's next request, on any instance, sees it. Concurrent
 * requests of one key on one instance share one exchange. A request the local estimate already
 * refuses is refused without I/O: the counts read are lower bounds, fresh ones could only be higher.
 *
 * Bound. Let N be the number of instances, T `syncIntervalMs`, d the longest one sync or exchange
 * takes (a few ms on a LAN), U = 2(T + d), and A the requests of one key admitted on all instances
 * within the last 3(T + d). An instance's view of the others lags by at most U (its last read
 * started at most T + d ago and holds their counts as of their last publish before, at most T + d
 * earlier again), so an admission decided alone, which leaves at least M, can only overshoot if
 * the others admitted more than M in U; and since an instance's own count is always in its
 * estimate, it decides at most limit − M admissions of a key alone per window. An admission
 * decided on fresh counts misses only (a) the other instances' admissions decided alone and not
 * yet published (made within the last T + d), and (b) admissions of the same key on fresh counts
 * on other instances racing it (their exchange read before this one's publish landed): concurrent
 * requests of one client. After any admission the true sliding-window count is therefore at most
 *
 *     limit + min(max(0, A − M), (N − 1) · max(0, limit − M)) + C
 *
 * where C counts those racing admissions (at most N − 1 times the client's concurrency on one
 * instance, within one exchange's duration). A client whose requests do not overlap (each sent
 * after the previous answer) is thus limited exactly on any instance (admitted up to the limit,
 * refused beyond it) when M >= limit, whatever its pace, and otherwise when it sends fewer than M
 * requests within 3(T + d). Its `remaining` is then exact once no instance decides its requests
 * alone any more (each published what it had admitted alone with its first exchange); far from
 * the limit it can be too high by what the others admitted unseen. With the defaults (T = 250 ms,
 * M = max(ceil(limit / 2), 10), 3(T + d) ≈ 0.77 s): every sequential client of a limit of at most
 * 10; for a limit of 600, one below about 390 requests/s, and a faster one gets at most 300 more
 * through two instances (measured: 601 for 900 requests at 60 000/s). It never errs the other way:
 * counts read are lower bounds of the truth, so a request is refused only once the true count
 * reached `limit`.
 *
 * Cost. No store call on the request path for a request that leaves at least M or that local
 * counts refuse (a client hammering past its limit costs nothing); otherwise one exchange, and one
 * publish when admitted: at most M or so admissions per client and window, plus about one refusal
 * on fresh counts per slot the sliding window frees. The periodic sync keeps running whatever the
 * traffic.
 *
 * Failures. A periodic sync that fails (store unreachable, slow, too large) never delays or fails
 * a request. An exchange that fails or outlasts `syncDeadlineMs` lets its requests be decided on
 * local counts as before; until the next successful periodic sync ends that streak, requests near
 * the limit are decided locally at once, so an outage costs one deadline per streak, not one per
 * request. Local decisions use the other instances' counts last read (still true lower bounds;
 * they fall away with their window), so an outage degrades to at worst N times the limit, each
 * instance limiting alone. The failure is reported once per streak through `onError`; the next
 * successful sync publishes what was missed (counts are absolute, so a lost publish is simply
 * repeated).
 *
 * Memory: own counts for at most `maxKeys` keys per window (further keys are limited locally
 * only) plus the other instances' counts of the current and previous windows. Clocks of the
 * instances should agree to well within T; every instance must use the same `windowMs` and store
 * prefix.
 */
import { hash } from 'node:crypto';
import type { CountWindow, KeyWindow, SharedCounts } from '../../storage/shared-counts.js';
import { RateLimiter, type CountSharing, type RateLimitDecision, type RateLimiterOptions } from './rate-limit.js';

// The port lives with the storage ports (an engine's adapter implements it: storage/etcd/); re-exported
// here so the limiter's users need one import.
export type { CountWindow, KeyWindow, SharedCounts } from '../../storage/shared-counts.js';

/** Options of {@link SharedRateLimiter}. */
export interface SharedRateLimiterOptions extends Omit<RateLimiterOptions, 'sharing'> {
  /** The store shared with the other instances. */
  readonly counts: SharedCounts;
  /** Time between syncs, >= 1 and below `windowMs`; default 250 ms. */
  readonly syncIntervalMs?: number;
  /**
   * A request whose local estimate leaves fewer than this many requests after it is decided on
   * fresh counts (see the module comment), an integer >= 0; default max(ceil(limit / 2), 10).
   */
  readonly syncMargin?: number;
  /** Longest a request near the limit waits for its key's exchange and publish, >= 1; default 1000 ms. */
  readonly syncDeadlineMs?: number;
  /** false: no timer, the owner calls {@link SharedRateLimiter.syncNow} itself; default true. */
  readonly timer?: boolean;
  /** Told the first failure of every streak of failed syncs and exchanges; default: a line on stderr. */
  readonly onError?: (error: unknown) => void;
}

/** Options of one {@link SharedRateLimiter.takeShared} or {@link SharedRateLimiter.peekShared}. */
export interface SharedDecisionOptions {
  /** The decision's instant, ms since the epoch; default `Date.now()`. */
  readonly now?: number;
  /** true: exchange the key's counts before deciding even far from the limit (a refusal on local counts stands). */
  readonly fresh?: boolean;
}

interface OwnCount {
  count: number;
  /** What the store last acknowledged. */
  published: number;
  /** The periodic publish carrying this count, while in flight: an exchange waits for it. */
  sending: Promise<void> | undefined;
}

/** A request waiting for its key's next exchange. */
interface Waiter {
  readonly count: boolean;
  readonly now: number;
  readonly resolve: (decision: RateLimitDecision) => void;
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
    else if (counts.size < this.maxKeys) counts.set(key, { count: 1, published: 0, sending: undefined });
  }

  hash(key: string): string {
    let hashed = this.#hashes.get(key);
    if (hashed === undefined) {
      hashed = keyHash(key);
      if (this.#hashes.size < this.maxKeys) this.#hashes.set(key, hashed);
    }
    return hashed;
  }

  /** Records the other instances' count of one key just read, dropping windows that no longer weigh. */
  read(hashed: string, windowStart: number, count: number, windowMs: number): void {
    let counts = this.others.get(windowStart);
    if (counts === undefined) {
      for (const start of this.others.keys()) if (start < windowStart - windowMs) this.others.delete(start);
      counts = new Map();
      this.others.set(windowStart, counts);
    }
    counts.set(hashed, count);
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
 * An abort signal for one exchange: aborted by `parent` (close) or once `ms` have passed.
 * Built by hand rather than with `AbortSignal.any`, which keeps its sources' listeners alive on
 * Node 20.
 */
function deadline(parent: AbortSignal, ms: number): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(
    () => controller.abort(new Error(`SharedRateLimiter: the exchange of a key near its limit took longer than ${ms} ms`)),
    ms,
  );
  timer.unref();
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
      parent.removeEventListener('abort', onAbort);
    },
  };
}

/** Resolves once `promise` settles, either way; rejects with the reason if `signal` aborts first. */
function settled(promise: Promise<unknown>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    const finish = (): void => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    promise.then(finish, finish);
  });
}

/**
 * A {@link RateLimiter} whose quota holds across instances sharing a {@link SharedCounts} store
 * (see the module comment for the bound). `take`/`peek` stay local and synchronous;
 * {@link SharedRateLimiter.takeShared}/{@link SharedRateLimiter.peekShared} add the exchange near
 * the limit. Call {@link SharedRateLimiter.close} on shutdown.
 * @example
 * const limiter = new SharedRateLimiter({
 *   limit: 600,
 *   windowMs: 60_000,
 *   counts: new EtcdSharedCounts({ client: etcd, prefix: 'user-service', instanceId: hostname() }),
 *   onError: (e) => logError(e, undefined),
 * });
 * const decision = await limiter.takeShared(`p:${principal.name}`); // a decision, or a Promise of one near the limit
 * await limiter.close();
 */
export class SharedRateLimiter extends RateLimiter {
  readonly syncIntervalMs: number;
  readonly syncMargin: number;
  readonly syncDeadlineMs: number;
  readonly #tally: Tally;
  readonly #counts: SharedCounts;
  readonly #onError: (error: unknown) => void;
  readonly #abort = new AbortController();
  readonly #timer: ReturnType<typeof setInterval> | undefined;
  /** Requests waiting for their key's next exchange, by key, while that key has one running. */
  readonly #exchanges = new Map<string, Waiter[]>();
  #running: Promise<void> | undefined;
  #failing = false;

  constructor(options: SharedRateLimiterOptions) {
    const tally = new Tally();
    super({ ...options, sharing: tally });
    tally.maxKeys = this.maxKeys;
    const { syncIntervalMs = 250, timer = true, syncMargin = Math.max(Math.ceil(this.limit / 2), 10), syncDeadlineMs = 1000 } = options;
    if (!Number.isSafeInteger(syncIntervalMs) || syncIntervalMs < 1 || syncIntervalMs >= this.windowMs) {
      throw new RangeError(
        `SharedRateLimiter option syncIntervalMs must be a positive integer below windowMs (${this.windowMs}), got ${syncIntervalMs}`,
      );
    }
    if (!Number.isSafeInteger(syncMargin) || syncMargin < 0) {
      throw new RangeError(`SharedRateLimiter option syncMargin must be an integer >= 0 (0: never exchange), got ${syncMargin}`);
    }
    if (!Number.isSafeInteger(syncDeadlineMs) || syncDeadlineMs < 1) {
      throw new RangeError(`SharedRateLimiter option syncDeadlineMs must be a positive integer (ms), got ${syncDeadlineMs}`);
    }
    this.syncIntervalMs = syncIntervalMs;
    this.syncMargin = syncMargin;
    this.syncDeadlineMs = syncDeadlineMs;
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
   * {@link RateLimiter.take} across the instances: synchronous while the local estimate leaves at
   * least `syncMargin` requests (or refuses), else a Promise that exchanges the key's counts,
   * decides on them and, when it admits, resolves once the new count is published. Never rejects.
   * @example
   * const d = limiter.takeShared(key);
   * const decision = d instanceof Promise ? await d : d;
   */
  takeShared(key: string, options?: SharedDecisionOptions): RateLimitDecision | Promise<RateLimitDecision> {
    return this.#shared(key, true, options);
  }

  /**
   * {@link RateLimiter.peek} across the instances: near the limit (or with `fresh`) the key's
   * counts are exchanged first, as for {@link SharedRateLimiter.takeShared}; nothing is counted.
   * @example
   * const d = await limiter.peekShared(`account:${name}`);
   * if (!d.allowed) throw new TooManyRequestsError(d.retryAfterSeconds);
   */
  peekShared(key: string, options?: SharedDecisionOptions): RateLimitDecision | Promise<RateLimitDecision> {
    return this.#shared(key, false, options);
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
   * Stops the timer and aborts a sync or exchange in flight (its requests are decided locally);
   * the limiter then limits on local counts only.
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

  #shared(key: string, count: boolean, options: SharedDecisionOptions | undefined): RateLimitDecision | Promise<RateLimitDecision> {
    const now = options?.now ?? Date.now();
    if (this.#failing || this.#tally.stopped) return count ? this.take(key, now) : this.peek(key, now);
    const estimate = this.peek(key, now);
    if (!estimate.allowed) return estimate;
    const waiting = this.#exchanges.size === 0 ? undefined : this.#exchanges.get(key);
    if (waiting === undefined && estimate.remaining >= this.syncMargin && options?.fresh !== true) {
      return count ? this.take(key, now) : estimate;
    }
    return new Promise((resolve) => {
      const waiter = { count, now, resolve };
      if (waiting !== undefined) waiting.push(waiter);
      else {
        this.#exchanges.set(key, [waiter]);
        void this.#exchangeRounds(key);
      }
    });
  }

  /** Runs exchanges for `key` until no request waits for one; requests that came meanwhile share the next. */
  async #exchangeRounds(key: string): Promise<void> {
    const queue = this.#exchanges.get(key) as Waiter[];
    // Requests of the same event-loop turn share the first exchange too.
    await Promise.resolve();
    while (queue.length > 0) {
      const batch = queue.splice(0);
      try {
        await this.#exchangeRound(key, batch);
      } catch (error) {
        // Not expected (the store's errors are caught inside); never leave a request waiting.
        this.#report(error, this.#abort.signal);
        for (const w of batch) w.resolve(w.count ? this.take(key, w.now) : this.peek(key, w.now));
      }
    }
    this.#exchanges.delete(key);
  }

  /** One exchange of `key` for `batch`: fresh counts, the decisions in arrival order, the new count published. */
  async #exchangeRound(key: string, batch: readonly Waiter[]): Promise<void> {
    const W = this.windowMs;
    const first = batch[0] as Waiter;
    const start = first.now - (first.now % W);
    const tally = this.#tally;
    const hashed = tally.hash(key);
    const owns = [tally.own.get(start)?.get(key), tally.own.get(start - W)?.get(key)];
    const { signal, done } = deadline(this.#abort.signal, this.syncDeadlineMs);
    try {
      let fresh = false;
      if (!this.#failing) {
        try {
          // A periodic publish of this key still in flight could land after ours and step it back.
          for (const own of owns) if (own?.sending !== undefined) await settled(own.sending, signal);
          const sent = owns.map((own) => (own !== undefined && own.count !== own.published ? own.count : undefined));
          const windows = [start, start - W].map((s, i): KeyWindow => ({ window: { start: s, lengthMs: W }, own: sent[i] }));
          const others = await this.#counts.exchange(hashed, windows, signal);
          owns.forEach((own, i) => {
            const count = sent[i];
            if (own !== undefined && count !== undefined) own.published = count;
          });
          tally.read(hashed, start, others[0] ?? 0, W);
          tally.read(hashed, start - W, others[1] ?? 0, W);
          fresh = true;
        } catch (error) {
          this.#report(error, signal);
        }
      }
      let admitted = false;
      const answers: [Waiter, RateLimitDecision][] = [];
      for (const w of batch) {
        const decision = w.count ? this.take(key, w.now) : this.peek(key, w.now);
        if (w.count && decision.allowed && fresh) {
          admitted = true;
          answers.push([w, decision]);
        } else w.resolve(decision);
      }
      if (admitted) await this.#publishKey(key, hashed, start, signal);
      for (const [w, decision] of answers) w.resolve(decision);
    } finally {
      done();
    }
  }

  /** Publishes this instance's count of `key` in the window starting at `start`; a failure is reported. */
  async #publishKey(key: string, hashed: string, start: number, signal: AbortSignal): Promise<void> {
    const own = this.#tally.own.get(start)?.get(key);
    if (own === undefined || own.count === own.published) return;
    const count = own.count;
    try {
      await this.#counts.publish({ start, lengthMs: this.windowMs }, new Map([[hashed, count]]), signal);
      own.published = Math.max(own.published, count);
    } catch (error) {
      this.#report(error, signal);
    }
  }

  /** Reports the first failure of a streak, unless `signal` was aborted by close(). */
  #report(error: unknown, signal: AbortSignal): void {
    if (this.#failing || this.#abort.signal.aborted) return;
    this.#failing = true;
    try {
      this.#onError(signal.aborted ? signal.reason : error);
    } catch {
      // A throwing reporter must not stop the syncs.
    }
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
      this.#report(error, signal);
    }
  }

  /**
   * Publishes the counts of one window that changed since the store last acknowledged them, but
   * not those of keys being exchanged (their exchange publishes them).
   */
  async #publish(window: CountWindow, counts: Map<string, OwnCount>, signal: AbortSignal): Promise<void> {
    const changed = new Map<string, number>();
    const sent: [OwnCount, number][] = [];
    for (const [key, own] of counts) {
      if (own.count === own.published || this.#exchanges.has(key)) continue;
      changed.set(this.#tally.hash(key), own.count);
      sent.push([own, own.count]);
    }
    if (changed.size === 0) return;
    const sending = this.#counts.publish(window, changed, signal);
    for (const [own] of sent) own.sending = sending;
    try {
      await sending;
      for (const [own, count] of sent) own.published = Math.max(own.published, count);
    } finally {
      for (const [own] of sent) if (own.sending === sending) own.sending = undefined;
    }
  }
}
