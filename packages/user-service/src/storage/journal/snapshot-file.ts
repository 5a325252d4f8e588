/**
 * Snapshots: the full state plus id counters, as one JSON document in `snapshot.json`.
 *
 *     {"format":1,"generation":G,"collections":[{"name":"users","nextId":7,"records":[...]}]}
 *
 * Generation G means "this state includes every journal generation below G; replay G and up".
 * Written to `snapshot.json.tmp`, fsynced, renamed over `snapshot.json`, then the directory is
 * fsynced: a crash at any point leaves either the old or the new snapshot, never a mix.
 */
import { open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isRecordId } from '../record-codec.js';
import type { CollectionImage } from '../record-state.js';
import { RecordStoreError, type StoredRecord } from '../record-store.js';
import { syncDir, writeAll, type SyncCounter } from './durable-fs.js';

/** Name of the current snapshot inside the store directory. */
export const SNAPSHOT_FILE = 'snapshot.json';
/** Name of a snapshot being written; a leftover one is garbage from a crash. */
export const SNAPSHOT_TMP_FILE = 'snapshot.json.tmp';

const FORMAT = 1;
/**
 * Records per write: keeps each synchronous JSON.stringify short so requests keep flowing (a
 * request arriving during a step waits for it: 1000 records were about 1-2 ms on the benchmark
 * machine, 250 a quarter of that).
 */
const CHUNK = 250;

/** A loaded snapshot. */
export interface Snapshot {
  readonly generation: number;
  readonly collections: CollectionImage[];
}

/**
 * Writes `collections` as the snapshot of `generation`, durably when `fsync` is true.
 * The records are frozen, so they can be serialised while commits carry on. Before the rename
 * waits for `ready()`: if it says false (the captured state holds a batch whose journal write
 * failed), removes the temp file and returns false, leaving `snapshot.json` as it was. On
 * failure the temp file is removed (best effort) and the error rethrown; `snapshot.json` is then
 * either the old snapshot or, if only the final directory sync failed, the new one.
 */
export async function writeSnapshot(
  dir: string,
  generation: number,
  collections: readonly CollectionImage[],
  fsync: boolean,
  count: SyncCounter,
  ready: () => Promise<boolean> = async () => true,
): Promise<boolean> {
  const tmp = join(dir, SNAPSHOT_TMP_FILE);
  let renamed = false;
  try {
    await writeTemp(tmp, generation, collections, fsync, count);
    if (await ready()) {
      await rename(tmp, join(dir, SNAPSHOT_FILE));
      renamed = true;
    }
  } catch (err) {
    // A partial copy of the whole state would hold on to exactly the disk space (ENOSPC) the
    // journal needs. Not recursive: a directory in its place is not ours to delete.
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
  if (!renamed) {
    await rm(tmp, { force: true }).catch(() => undefined);
    return false;
  }
  if (fsync) await syncDir(dir, count);
  return true;
}

async function writeTemp(
  tmp: string,
  generation: number,
  collections: readonly CollectionImage[],
  fsync: boolean,
  count: SyncCounter,
): Promise<void> {
  const handle = await open(tmp, 'w');
  try {
    let text = `{"format":${FORMAT},"generation":${generation},"collections":[`;
    for (const [i, c] of collections.entries()) {
      text += `${i === 0 ? '' : ','}{"name":${JSON.stringify(c.name)},"nextId":${c.nextId},"records":[`;
      for (let at = 0; at < c.records.length; at += CHUNK) {
        const chunk = c.records.slice(at, at + CHUNK).map((r) => JSON.stringify(r));
        text += (at === 0 ? '' : ',') + chunk.join(',');
        await writeAll(handle, Buffer.from(text));
        text = '';
      }
      text += ']}';
    }
    await writeAll(handle, Buffer.from(`${text}]}\n`));
    if (fsync) {
      await handle.sync();
      count();
    }
  } finally {
    await handle.close();
  }
}

function corrupt(why: string): RecordStoreError {
  return new RecordStoreError('ERR_STORE_CORRUPT', `${SNAPSHOT_FILE}: ${why}`);
}

function isImage(c: unknown): c is CollectionImage {
  const x = c as Partial<CollectionImage> | null;
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof x.name === 'string' &&
    x.name.length > 0 &&
    isRecordId(x.nextId) &&
    Array.isArray(x.records) &&
    x.records.every((r: StoredRecord | null) => typeof r === 'object' && r !== null && isRecordId(r.id))
  );
}

/** Loads `snapshot.json`, or returns `undefined` when there is none. Throws when it is damaged. */
export async function readSnapshot(dir: string): Promise<Snapshot | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, SNAPSHOT_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let value: { format?: unknown; generation?: unknown; collections?: unknown };
  try {
    value = JSON.parse(text) as typeof value;
  } catch (err) {
    throw new RecordStoreError('ERR_STORE_CORRUPT', `${SNAPSHOT_FILE}: invalid JSON`, { cause: err });
  }
  if (value?.format !== FORMAT) throw corrupt(`unknown format ${String(value?.format)}`);
  if (!isRecordId(value.generation)) throw corrupt('bad generation');
  if (!Array.isArray(value.collections) || !value.collections.every(isImage)) {
    throw corrupt('malformed collections');
  }
  return { generation: value.generation, collections: value.collections };
}
