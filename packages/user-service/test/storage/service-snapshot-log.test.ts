/**
 * Wiring: the service hands its loggers to the journal store it builds, so a failing snapshot
 * shows up in the service's error log (once, naming the file) and its recovery in the info log.
 * The store is driven directly (no HTTP): one batch of `snapshotEvery` (10 000, the default)
 * mutations reaches the snapshot trigger with a single journal line and a single fsync.
 */
import 'reflect-metadata';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/domain/config/app-config.js';
import { createService, type Service } from '../../src/server.js';
import { JournalRecordStore, type Mutation } from '../../src/storage/index.js';
import { until } from '../helpers/poll.js';
import { useTempDirs } from './temp-dirs.js';

const tempDir = useTempDirs('service-snapshot-log');
const SNAPSHOT_EVERY = 10_000; // the store's default, which the service uses

/** How long a log line may take: a snapshot of 10 000 records is written in between. */
const LOG_LINE_MS = 10_000;

/** One batch of `SNAPSHOT_EVERY` puts into a collection no domain service reads. */
function fillBatch(round: number): Mutation[] {
  return Array.from({ length: SNAPSHOT_EVERY }, (_, i) => ({
    op: 'put' as const,
    collection: 'snapshot-filler',
    record: { id: round * SNAPSHOT_EVERY + i + 1 },
  }));
}

describe('service wiring of journal snapshot reports', () => {
  let service: Service | undefined;
  afterAll(async () => {
    await service?.close();
  });

  it('logs a snapshot failure once through logError and the recovery through logInfo', async () => {
    const dataDir = await tempDir();
    const config = await loadConfig({ DATA_DIR: dataDir, SEED: 'none', STORAGE: 'journal', LOG_REQUESTS: 'false' });
    const errors: unknown[] = [];
    const infos: string[] = [];
    service = await createService(config, {
      log: null,
      logError: (e) => errors.push(e),
      logInfo: (m) => infos.push(m),
    });
    const store = service.store;
    expect(store).toBeInstanceOf(JournalRecordStore);
    const storeDir = join(dataDir, 'store');
    const snapshotFile = join(storeDir, 'snapshot.json');
    await mkdir(join(snapshotFile, 'blocker'), { recursive: true }); // snapshot.json is a directory

    await store.commit(fillBatch(0));
    await until(() => errors.length > 0, 'the error log line', LOG_LINE_MS);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'ERR_STORE_SNAPSHOT_FAILED' });
    expect((errors[0] as Error).message).toContain(snapshotFile);
    expect(infos).toEqual([]);

    await rm(snapshotFile, { recursive: true });
    await store.commit(fillBatch(1));
    await until(() => infos.length > 0, 'the recovery log line', LOG_LINE_MS);
    expect(infos).toHaveLength(1);
    expect(infos[0]).toContain(snapshotFile);
    expect(infos[0]).toMatch(/recovered/);
    expect(errors).toHaveLength(1);
    expect((await readdir(storeDir)).filter((n) => n.startsWith('journal-'))).toEqual(['journal-00000003.jsonl']);
    expect(store.size('snapshot-filler')).toBe(2 * SNAPSHOT_EVERY);
  });
});
