/**
 * The read barrier of {@link EtcdRecordStore}: every commit puts the marker key in its
 * transaction, so a linearizable read of the marker's mod_revision `M` names the newest write
 * acknowledged before the read; once the watch has applied revision `M`, local reads reflect
 * every write acknowledged (by any instance) before the barrier began.
 *
 * Coalescing: the callers of one turn of the event loop (every request parsed in one poll phase)
 * share one marker read, started at the end of that turn (`setImmediate`). A read already in
 * flight is never joined, since it may have been served before a write acknowledged just before
 * the caller arrived; rounds of successive turns may overlap, so a caller waits about one round
 * trip, not up to two (as it would behind a single read in flight).
 *
 * @module
 */
import { unavailable } from './store-errors.js';

/** What a barrier round needs from the store. */
export interface BarrierSource {
  /** The marker's mod_revision by a linearizable read (0 when absent), within `deadlineMs`. */
  readMarker(deadlineMs: number): Promise<number>;
  /** Resolves once the watch has applied `revision`; rejects after `timeoutMs`. */
  waitFor(revision: number, timeoutMs: number): Promise<void>;
}

/**
 * Coalesced read barrier.
 * @example
 * const barrier = new ReadBarrier(source, 2000);
 * await barrier.sync(); // local reads now see every write acknowledged before this line
 */
export class ReadBarrier {
  readonly #source: BarrierSource;
  readonly #timeoutMs: number;
  /** The round the callers of the current turn share, started at the end of the turn. */
  #next: Promise<void> | undefined;

  constructor(source: BarrierSource, timeoutMs: number) {
    this.#source = source;
    this.#timeoutMs = timeoutMs;
  }

  /** Resolves once local reads reflect every write acknowledged before the call. */
  sync(): Promise<void> {
    if (this.#next !== undefined) return this.#next;
    // The first caller of the turn sets the deadline: everyone joining later waits less.
    const deadline = performance.now() + this.#timeoutMs;
    const round = new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        this.#next = undefined;
        this.#round(deadline).then(resolve, reject);
      });
    });
    this.#next = round;
    return round;
  }

  async #round(deadline: number): Promise<void> {
    const remaining = (): number => {
      const ms = Math.floor(deadline - performance.now());
      if (ms <= 0) throw unavailable('a read barrier', new Error(`no answer within ${this.#timeoutMs} ms`));
      return ms;
    };
    const marker = await this.#source.readMarker(remaining());
    await this.#source.waitFor(marker, remaining());
  }
}
