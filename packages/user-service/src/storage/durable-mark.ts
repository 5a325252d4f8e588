/**
 * {@link DurableMark}: which journal lines of a store are durable, so that a snapshot is only
 * published when every batch in its captured state is.
 *
 * Why: the journal store applies a batch to memory when `commit()` is called, before its line
 * is written. A snapshot capture can therefore hold batches still queued; if their write then
 * fails, those commits are rejected and the store is failed, and a snapshot holding them must
 * not be renamed into place (it would persist what the client was told failed).
 */

/**
 * Sequence numbers of queued and durable journal lines, plus waiters on them.
 *
 * @example
 * ```ts
 * const mark = new DurableMark();
 * const seq = mark.next();      // when a line is queued (its batch is already in memory)
 * const ok = mark.check();      // when the state is captured for a snapshot
 * mark.reached(seq);            // once the line is written and fsynced
 * if (await ok()) publish();    // false instead if mark.fail() came first
 * ```
 */
export class DurableMark {
  /** Sequence number of the last line queued (lines are numbered from 1 in queue order). */
  private queued = 0;
  /** Sequence number of the last line written and fsynced; lines are written in order. */
  private durable = 0;
  private failed = false;
  private waiters: Array<{ readonly seq: number; readonly settle: (durable: boolean) => void }> = [];

  /** Numbers the next queued line. Call in the synchronous step that queues it. */
  next(): number {
    return ++this.queued;
  }

  /** Records that every line up to `seq` is durable, and wakes the waiters that covers. */
  reached(seq: number): void {
    this.durable = seq;
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) {
      if (w.seq <= seq) w.settle(true);
      else this.waiters.push(w);
    }
  }

  /** Records that the store failed: no later line becomes durable; every waiter gets false. */
  fail(): void {
    this.failed = true;
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w.settle(false);
  }

  /**
   * A check for every line queued so far: resolves to true once they are all durable, or to
   * false as soon as the store fails before that. Taken in the synchronous step of a state
   * capture, true means the capture holds no batch whose commit was rejected.
   */
  check(): () => Promise<boolean> {
    const seq = this.queued;
    return () => {
      if (seq <= this.durable) return Promise.resolve(true);
      if (this.failed) return Promise.resolve(false);
      return new Promise<boolean>((settle) => this.waiters.push({ seq, settle }));
    };
  }
}
