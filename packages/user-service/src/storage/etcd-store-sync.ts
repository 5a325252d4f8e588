/**
 * The read barrier of {@link EtcdRecordStore}: every commit puts the marker key in its
 * transaction, so a linearizable read of the marker's mod_revision `M` names the newest write
 * acknowledged before the read; once the watch has applied revision `M`, local reads reflect
 * every write acknowledged (by any instance) before the barrier began.
 *
 * Coalescing: at most one marker read is in flight. A caller arriving while one is in flight
 * shares the NEXT read, started when the current one returns: the current read may have been
 * served before a write acknowledged just before that caller arrived.
 *
 * @module
 */
import { unavailable } from './etcd-store-errors.js';

/** What a barrier round needs from the store. */
export interface BarrierSource {
  /** The marker's mod_revision by a linearizable read (0 when absent), within `deadlineMs`. */
  readMarker(deadlineMs: number): Promise<number>;
  /** Resolves once the watch has applied `revision`; rejects after `timeoutMs`. */
  waitFor(revision: number, timeoutMs: number): Promise<void>;
}

const ignore = (): void => undefined;

/**
 * Coalesced read barrier.
 * @example
 * const barrier = new ReadBarrier(source, 2000);
 * await barrier.sync(); // local reads now see every write acknowledged before this line
 */
export class ReadBarrier {
  readonly #source: BarrierSource;
  readonly #timeoutMs: number;
  #current: Promise<void> | undefined;
  #queued: Promise<void> | undefined;

  constructor(source: BarrierSource, timeoutMs: number) {
    this.#source = source;
    this.#timeoutMs = timeoutMs;
  }

  /** Resolves once local reads reflect every write acknowledged before the call. */
  sync(): Promise<void> {
    const deadline = performance.now() + this.#timeoutMs;
    if (this.#current === undefined) return this.#start(deadline);
    // The first caller of the next round sets its deadline: everyone joining later waits less.
    this.#queued ??= this.#current.then(ignore, ignore).then(() => {
      this.#queued = undefined;
      return this.#start(deadline);
    });
    return this.#queued;
  }

  #start(deadline: number): Promise<void> {
    const round = this.#round(deadline);
    this.#current = round;
    void round.then(ignore, ignore).finally(() => {
      if (this.#current === round) this.#current = undefined;
    });
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
