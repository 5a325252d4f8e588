/** The coalescing of EtcdRecordStore's read barrier, against a scripted source (no etcd). */
import { describe, expect, it } from 'vitest';
import { ReadBarrier, type BarrierSource } from '../../src/storage/etcd-store-sync.js';
import { until } from '../helpers/poll.js';

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
  it('runs one marker read at a time; callers arriving meanwhile share the next one', async () => {
    const source = new ScriptedSource();
    const barrier = new ReadBarrier(source, 5000);
    source.apply(10);
    const first = barrier.sync();
    expect(source.reads).toHaveLength(1);
    const late = [barrier.sync(), barrier.sync(), barrier.sync()];
    expect(source.reads).toHaveLength(1); // no second read while the first is in flight

    source.reads[0]!(10);
    await first;
    // The first read may have been served before a write acknowledged just before the late
    // callers arrived: they are not released by it, but by a read that started after them.
    expect(await settled(Promise.all(late))).toBe(false);
    await settled(Promise.resolve());
    expect(source.reads).toHaveLength(2);
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
    await until(() => performance.now() - started > 25, 'the barrier deadline to pass');
    source.reads[0]!(5);
    await expect(late).rejects.toMatchObject({ code: 'ERR_STORE_UNAVAILABLE' });
    expect(source.waits).toEqual([]);
    const next = barrier.sync();
    expect(source.reads).toHaveLength(2);
    source.reads[1]!(0);
    await next;
  });
});
