import { Readable } from 'node:stream';

const ignore = (): void => {};

/**
 * What a file part's `content` is: a Readable over busboy's file stream that pulls on demand, so
 * backpressure reaches the socket. Destroying it (a consumer that stopped early, a `for await`
 * left with `break`) drains the rest of busboy's stream instead of destroying it: busboy waits
 * for every file stream to end, and a destroyed one would stall the rest of the body.
 */
export class PartStream extends Readable {
  /** Resolves once busboy's stream is done (ended, or failed with the body). */
  readonly sourceDone: Promise<void>;

  /**
   * @param source busboy's file stream.
   * @param failure what this stream fails with when `source` fails: the body's own error (busboy
   *   destroys its file streams with its raw parse error before it reports that error itself).
   */
  constructor(
    private readonly source: Readable,
    highWaterMark: number,
    failure: (sourceError: unknown) => Error,
  ) {
    super({ highWaterMark });
    // A failed body destroys both; its error also reaches the waiting next(), so a part nobody reads must not crash the process.
    source.on('error', ignore);
    this.on('error', ignore);
    this.sourceDone = new Promise<void>((resolve) => {
      source.once('end', resolve);
      source.once('close', resolve);
    });
    source.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) source.pause();
    });
    source.once('end', () => this.push(null));
    source.once('error', (err) => this.destroy(failure(err)));
    source.pause();
  }

  override _read(): void {
    this.source.resume();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    if (!this.source.readableEnded && !this.source.destroyed) {
      this.source.removeAllListeners('data');
      this.source.resume();
    }
    cb(err);
  }

  /** Nobody reads it: no listener, no pipe. */
  get idle(): boolean {
    return this.listenerCount('data') === 0 && this.listenerCount('readable') === 0;
  }
}
