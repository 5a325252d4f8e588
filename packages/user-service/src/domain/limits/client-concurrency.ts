/**
 * A bound on expensive responses in flight: per client and in total. A client that opens many
 * large downloads and never reads them holds a socket, its buffers and a producer each; without a
 * bound, a few hundred of them stalled every other request of the process (an outside test: 200
 * unread `GET /api/large-data?count=1000000` cost 13 s of CPU in 20 s and delayed a plain GET by
 * 12 s). Past the per-client bound: 429 with `Retry-After`; past the total: 503.
 */
import { ServiceUnavailableError, TooManyRequestsError } from '@jaxrs-node/pipeline';

/** `/api/large-data` responses in flight in total, whatever the clients. */
export const LARGE_DATA_TOTAL = 64;

/** Options of {@link ClientConcurrency}. */
export interface ClientConcurrencyOptions {
  /** In flight per client key, >= 1. */
  readonly perClient: number;
  /** In flight in total, >= perClient. */
  readonly total: number;
}

/**
 * @example
 * const release = downloads.acquire(`a:${ctx.remoteAddress}`); // throws 429 / 503
 * stream.once('close', release);
 */
export class ClientConcurrency {
  readonly perClient: number;
  readonly total: number;
  readonly #inFlight = new Map<string, number>();
  #count = 0;

  constructor(options: ClientConcurrencyOptions) {
    const { perClient, total } = options;
    if (!Number.isSafeInteger(perClient) || perClient < 1) throw new RangeError('perClient must be a positive integer');
    if (!Number.isSafeInteger(total) || total < perClient) throw new RangeError('total must be an integer >= perClient');
    this.perClient = perClient;
    this.total = total;
  }

  /** Responses in flight now (for tests and metrics). */
  get inFlight(): number {
    return this.#count;
  }

  /**
   * Takes a slot for `key`; returns its release (idempotent: call it from every way the response
   * can end). @throws TooManyRequestsError (429) / ServiceUnavailableError (503) when full.
   */
  acquire(key: string): () => void {
    const mine = this.#inFlight.get(key) ?? 0;
    if (mine >= this.perClient) {
      throw new TooManyRequestsError(1, `At most ${this.perClient} of these responses at a time per client`);
    }
    if (this.#count >= this.total) {
      throw new ServiceUnavailableError('Too many of these responses in progress, retry later', { retryAfterSeconds: 1 });
    }
    this.#inFlight.set(key, mine + 1);
    this.#count++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#count--;
      const left = (this.#inFlight.get(key) ?? 1) - 1;
      // Only keys with something in flight are kept: the map is bounded by `total`.
      if (left <= 0) this.#inFlight.delete(key);
      else this.#inFlight.set(key, left);
    };
  }
}
