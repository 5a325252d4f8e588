/**
 * A bound on password hashing running at once. scrypt runs on libuv's thread pool (4 threads by
 * default), the same pool that runs the journal's fsync and every file-system call: 64 concurrent
 * wrong passwords once pushed durable writes from 2 ms to 1.5 s. Through this gate at most
 * `concurrency` hashes run at a time and at most `queue` wait; past that, the attempt is refused
 * with 503 and `Retry-After: 1` at once, so the pool always has threads left for the store.
 */
import { ServiceUnavailableError } from '@jaxrs-node/pipeline';

/** Options of {@link HashGate}. */
export interface HashGateOptions {
  /** Hashes running at once; default 1 (leaves three of libuv's four threads to the store). */
  readonly concurrency?: number;
  /** Hashes allowed to wait; default 32. */
  readonly queue?: number;
}

/**
 * @example
 * const gate = new HashGate();
 * const key = await gate.run(() => scryptAsync(password, salt, params));
 */
export class HashGate {
  readonly concurrency: number;
  readonly queueLimit: number;
  #active = 0;
  #waiting: Array<() => void> = [];
  /** Most hashes ever seen running at once (for tests and metrics). */
  peakActive = 0;

  constructor(options: HashGateOptions = {}) {
    const { concurrency = 1, queue = 32 } = options;
    if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be a positive integer');
    if (!Number.isSafeInteger(queue) || queue < 0) throw new RangeError('queue must be a non-negative integer');
    this.concurrency = concurrency;
    this.queueLimit = queue;
  }

  /** Runs `hash` when a slot is free. @throws ServiceUnavailableError (503) when the queue is full. */
  async run<T>(hash: () => Promise<T>): Promise<T> {
    if (this.#active >= this.concurrency) {
      if (this.#waiting.length >= this.queueLimit) {
        throw new ServiceUnavailableError('Authentication is busy, retry later', { retryAfterSeconds: 1, code: 'AUTH_BUSY' });
      }
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#active++;
    }
    this.peakActive = Math.max(this.peakActive, this.#active);
    try {
      return await hash();
    } finally {
      const next = this.#waiting.shift();
      // The slot passes straight to the next waiter: #active stays the same.
      if (next !== undefined) next();
      else this.#active--;
    }
  }
}
