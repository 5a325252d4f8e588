/** The coalescing of EtcdRecordStore's read barrier, against a scripted source (no etcd). */
import { describe, expect, it } from 'vitest';
import { ReadBarrier, type BarrierSource } from '../../../src/storage/etcd/store-sync.js';
import { until } from '../../helpers/poll.js';

/** A source whose marker reads and watch progress the test resolves by hand. */
class ScriptedSource implements BarrierSource {
  readonly reads: Array<(revision: number) => void> = [];
  readonly waits: number[] = [];
  #applied = 0;
  #waiters: Array<{ revision: number; resolve: () => void }> = [];

  readMarker(): Promise<number> {
    return new Promise((resolve) => this.reads.push(resolve));
  }

  waitFor(revision: number, timeoutMs: number): Promise<void> {
    this.waits.push(revision);
    if (revision <= this.#applied) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#waiters.push({ revision, resolve });
      setTimeout(() => reject(new Error('timeout')), timeoutMs).unref();
    });
  }

  apply(revision: number): void {
    this.#applied = revision;
    for (const w of this.#waiters.filter((x) => x.revision <= revision)) w.resolve();
    this.#waiters = this.#waiters.filter((x) => x.revision > revision);
  }
}

/** Lets the barrier's end-of-turn callbacks (setImmediate) run. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const settled = async (p: Promise<unknown>): Promise<boolean> => {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 10; i++) await Promise.resolve();
  return done;
};

describe('ReadBarrier', () => {
  it('callers of one event-loop turn share one marker read; a read in flight is never joined', async () => {
    const source = new ScriptedSource();
    const barrier = new ReadBarrier(source, 5000);
    source.apply(10);
    const first = [barrier.sync(), barrier.sync()];
    expect(source.reads).toHaveLength(0); // started at the end of the turn
    await turn();
    expect(source.reads).toHaveLength(1);
    // Arriving while that read is in flight: it may have been served before a write acknowledged
    // just before these callers arrived, so they get a read of their own, started after them.
    const late = [barrier.sync(), barrier.sync(), barrier.sync()];
    await turn();
    expect(source.reads).toHaveLength(2);
    source.reads[0]!(10);
    await Promise.all(first);
    expect(await settled(Promise.all(late))).toBe(false);
    source.reads[1]!(12);
    expect(await settled(Promise.all(late))).toBe(false); // the watch is not at 12 yet
    source.apply(12);
    await Promise.all(late);
    expect(source.reads).toHaveLength(2);
    expect(source.waits).toEqual([10, 12]);
  });

  it('rejects with ERR_STORE_UNAVAILABLE when the marker answers after its deadline; the next call reads again', async () => {
    const source = new ScriptedSource();
    const barrier = new ReadBarrier(source, 20);
    const started = performance.now();
    const late = barrier.sync();
    await until(() => performance.now() - started > 25 && source.reads.length === 1, 'the barrier deadline to pass');
    source.reads[0]!(5);
    await expect(late).rejects.toMatchObject({ code: 'ERR_STORE_UNAVAILABLE' });
    expect(source.waits).toEqual([]);
    const next = barrier.sync();
    await turn();
    expect(source.reads).toHaveLength(2);
    source.reads[1]!(0);
    await next;
  });
});
