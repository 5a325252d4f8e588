/**
 * Per-key serialization of read-modify-write cycles.
 *
 * Why: an update reads a record, validates, then awaits `commit`. Whether the store shows a
 * mutation before `commit` resolves is the store's business, so two updates of one record (or an
 * update racing a delete, or two order transitions) could both start from the same old state:
 * a lost update, a deleted user resurrected by a PATCH, or PENDING->PROCESSING accepted twice.
 * Holding a per-key lock across the cycle rules that out without serializing unrelated records
 * (which would defeat the store's group commit).
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * Runs `task` once every earlier task for `key` has settled. Failures do not poison the queue.
   *
   * @example await lock.run(`users/${id}`, async () => { ... read, validate, commit ... })
   */
  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key);
    let release!: () => void;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous === undefined ? done : previous.then(() => done);
    this.tails.set(key, tail);
    try {
      if (previous !== undefined) await previous;
      return await task();
    } finally {
      release();
      // Only the last holder removes the entry, so the map stays bounded by in-flight keys.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Number of keys with a task queued or running (for tests and metrics). */
  get pendingKeys(): number {
    return this.tails.size;
  }
}
