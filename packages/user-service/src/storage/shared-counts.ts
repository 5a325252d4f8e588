/**
 * The port through which instances of the service share rate-limit counts: the shared limiter
 * (domain/limits/rate-limit-shared.ts) publishes and reads through it, an engine's adapter
 * implements it (storage/etcd/shared-counts.ts). Types only, beside the record store's port.
 */

/** A fixed window of counts: its start (ms since the epoch, a multiple of its length) and length. */
export interface CountWindow {
  readonly start: number;
  readonly lengthMs: number;
}

/** One window of one key in {@link SharedCounts.exchange}. */
export interface KeyWindow {
  readonly window: CountWindow;
  /** This instance's count of the key in `window`, to publish before reading; undefined: unchanged. */
  readonly own: number | undefined;
}

/**
 * Where instances publish and read their counts. Keys are hashes of client keys (22 base64url
 * characters, never a `/`); counts are absolute per window, so publishing twice is harmless.
 * Every call must settle promptly once `signal` aborts.
 * @example
 * const counts: SharedCounts = new EtcdSharedCounts({ client, prefix: 'user-service', instanceId: 'a' });
 */
export interface SharedCounts {
  /** Stores this instance's counts (hash -> count) for `window`; keys left out keep their last value. */
  publish(window: CountWindow, counts: ReadonlyMap<string, number>, signal: AbortSignal): Promise<void>;
  /** For each window start, every OTHER instance's last published counts, summed per hash. */
  read(windowStarts: readonly number[], signal: AbortSignal): Promise<Map<string, number>[]>;
  /**
   * One key, in one round trip where the store allows: publishes this instance's counts of `hash`
   * given in `windows`, then returns, per window, the OTHER instances' summed count of `hash`.
   */
  exchange(hash: string, windows: readonly KeyWindow[], signal: AbortSignal): Promise<number[]>;
}
