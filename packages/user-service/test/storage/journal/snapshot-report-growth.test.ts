/**
 * Repeated reports during a failure streak: besides its first failure, a streak is reported
 * again at the first failed attempt at which the journal (`journalBytes`) has reached 2x, 4x,
 * 8x, ... its size at the streak's first failure (documented in snapshot-monitor.ts and the
 * README). First the rule on the monitor alone, then through a real store whose snapshots fail
 * (a directory sits where snapshot.json goes), with journal sizes controlled to the byte.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JournalRecordStore, Mutation, RecordStoreError, SnapshotRecovery } from '../../../src/storage/index.js';
import { encodeLine } from '../../../src/storage/journal/format.js';
import { SnapshotMonitor } from '../../../src/storage/journal/snapshot-monitor.js';
import { until } from '../../helpers/poll.js';
import { useTempDirs } from '../temp-dirs.js';
import { reopenedIds, watchedStore } from '../store-helpers.js';
import { obstruct } from '../write-faults.js';

const tempDir = useTempDirs('snapshot-report-growth');
const EVERY = 5;

describe('SnapshotMonitor growth reports', () => {
  it('reports at the first failure, then at 2x, 4x, 8x ... of its journal size, and starts over after a recovery', () => {
    const errors: RecordStoreError[] = [];
    const recoveries: SnapshotRecovery[] = [];
    const monitor = new SnapshotMonitor({ onSnapshotError: (e) => errors.push(e), onSnapshotRecovered: (r) => recoveries.push(r) });
    const cause = new Error('ENOSPC: no space left on device');
    // [journal bytes at the failed attempt, reports so far]
    const steps: Array<[number, number]> = [
      [1000, 1], // the streak starts: reported
      [1500, 1],
      [1999, 1], // one byte short of 2x
      [2000, 2], // 2x
      [3999, 2],
      [4000, 3], // 4x
      [9000, 4], // past 8x: one report, the next threshold is 16x
      [15_999, 4],
      [16_000, 5],
    ];
    for (const [bytes, reports] of steps) {
      monitor.failed('snapshot', '/data/snapshot.json', 2, bytes, cause);
      expect(errors, `after a failure at ${bytes} bytes`).toHaveLength(reports);
    }
    expect(monitor.failures).toBe(steps.length);
    expect(errors[1]?.message).toContain('still failing after 4 attempts, the journal grew from 1000 to 2000 bytes');
    expect(errors[1]).toMatchObject({ code: 'ERR_STORE_SNAPSHOT_FAILED', cause });
    expect(errors[0]?.message).not.toContain('still failing');

    monitor.succeeded('/data/snapshot.json', 3);
    expect(recoveries).toMatchObject([{ failures: steps.length }]);
    // A new streak measures from its own first failure, however small.
    monitor.failed('rotate', '/data/journal-00000004.jsonl', 4, 100, cause);
    monitor.failed('rotate', '/data/journal-00000004.jsonl', 4, 199, cause);
    expect(errors).toHaveLength(6);
    expect(errors[5]?.message).toMatch(/^journal rotation failed while creating \/data\/journal-00000004\.jsonl for generation 4: ENOSPC/);
    monitor.failed('rotate', '/data/journal-00000004.jsonl', 4, 200, cause);
    expect(errors).toHaveLength(7);
    expect(errors[6]?.message).toContain('still failing after 3 attempts, the journal grew from 100 to 200 bytes');
  });
});

/** `EVERY` puts from id `from` on: one batch, so one journal line and exactly one trigger. */
function batch(from: number, padLength: number): Mutation[] {
  return Array.from({ length: EVERY }, (_, i) => ({
    op: 'put' as const,
    collection: 'users',
    record: { id: from + i, name: `user-${from + i}`, pad: 'x'.repeat(i === EVERY - 1 ? padLength : 0) },
  }));
}

const lineBytes = (mutations: Mutation[]): number => Buffer.byteLength(encodeLine(JSON.stringify(mutations), []));

/** A {@link batch} whose journal line is exactly `bytes` long (padding is ASCII: 1 byte each). */
function batchOfSize(from: number, bytes: number): Mutation[] {
  const pad = bytes - lineBytes(batch(from, 0));
  if (pad < 0) throw new Error(`a batch from ${from} needs at least ${bytes - pad} bytes`);
  const mutations = batch(from, pad);
  expect(lineBytes(mutations)).toBe(bytes);
  return mutations;
}

/** A store whose every snapshot fails (snapshot.json is a directory); reports land in `errors` and `recoveries`. */
async function failingStore(dir: string): ReturnType<typeof watchedStore> {
  const watched = await watchedStore(dir, EVERY);
  await obstruct(dir, 'snapshot.json');
  return watched;
}

/** Commits one trigger's batch and waits for its (failing) snapshot attempt to be counted. */
async function failedTrigger(store: JournalRecordStore, mutations: Mutation[], attempt: number): Promise<void> {
  await store.commit(mutations);
  await until(() => store.health().snapshotFailures === attempt, `failed attempt ${attempt}`);
}

describe('JournalRecordStore growth reports', () => {
  it.each([
    ['one byte short of twice its size at the first failure: not reported', -1, 1],
    ['exactly twice its size at the first failure: reported', 0, 2],
  ])('a failed attempt with the journal %s', async (_, offset, reports) => {
    const dir = await tempDir();
    const { store, errors } = await failingStore(dir);
    await failedTrigger(store, batchOfSize(1, 1000), 1);
    expect(errors).toHaveLength(1);
    expect(store.health().journalBytes).toBe(1000);

    const target = 2000 + offset;
    await failedTrigger(store, batchOfSize(EVERY + 1, target - 1000), 2);
    expect(store.health().journalBytes).toBe(target);
    expect(errors).toHaveLength(reports);
    if (reports === 2) {
      expect(errors[1]).toMatchObject({ code: 'ERR_STORE_SNAPSHOT_FAILED', cause: { code: 'EISDIR' } });
      expect(errors[1]?.message).toMatch(/^journal snapshot failed while writing /);
      expect(errors[1]?.message).toContain('still failing after 2 attempts, the journal grew from 1000 to 2000 bytes');
    }
    expect(store.health().snapshotError).toContain(`grew from 1000 to ${target} bytes`);
    await store.close();
    await rm(join(dir, 'snapshot.json'), { recursive: true });
    expect((await reopenedIds(dir)).ids).toHaveLength(2 * EVERY);
  });

  it('then waits for 4x, and a streak after a recovery measures from its own start', async () => {
    const dir = await tempDir();
    const { store, errors, recoveries } = await failingStore(dir);
    const sizes = (): number => store.health().journalBytes;
    await failedTrigger(store, batchOfSize(1, 1000), 1);
    await failedTrigger(store, batchOfSize(6, 1200), 2); // 2200 >= 2x 1000: reported
    await failedTrigger(store, batchOfSize(11, 1799), 3); // 3999: below 4x
    expect([sizes(), errors.length]).toEqual([3999, 2]);
    await failedTrigger(store, batchOfSize(16, 500), 4); // 4499 >= 4x: reported
    expect([sizes(), errors.length]).toEqual([4499, 3]);
    expect(errors[2]?.message).toContain('still failing after 4 attempts, the journal grew from 1000 to 4499 bytes');

    await rm(join(dir, 'snapshot.json'), { recursive: true }); // the operator frees the path
    await store.commit(batchOfSize(21, 500));
    await until(() => recoveries.length === 1, 'the recovery report');
    expect(recoveries[0]).toMatchObject({ failures: 4 });
    expect(sizes()).toBe(0); // every journal written so far is covered by the new snapshot

    await obstruct(dir, 'snapshot.json.tmp'); // and it fails again
    await failedTrigger(store, batchOfSize(26, 800), 1);
    expect(errors).toHaveLength(4); // a new streak: reported at once, with its own start
    expect(errors[3]?.message).not.toContain('still failing');
    await failedTrigger(store, batchOfSize(31, 799), 2); // 1599: below 2x 800
    expect(errors).toHaveLength(4);
    await failedTrigger(store, batchOfSize(36, 500), 3); // 2099
    expect(errors).toHaveLength(5);
    expect(errors[4]?.message).toContain('still failing after 3 attempts, the journal grew from 800 to 2099 bytes');
    await store.close();

    await rm(join(dir, 'snapshot.json.tmp'), { recursive: true });
    expect((await reopenedIds(dir)).ids).toHaveLength(8 * EVERY);
  });
});
