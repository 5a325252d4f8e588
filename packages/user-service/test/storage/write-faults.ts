/**
 * Fault injection for the storage tests: a torn write, as on a full disk. `FileHandle.write`
 * writes only part of the buffer (a short write) and the next write on that handle throws
 * ENOSPC, so `writeAll` leaves exactly that part in the file and reports the error.
 *
 * The patch lives on `FileHandle.prototype` (the class is not exported by node:fs/promises) and
 * only for the duration of one callback; it is always restored, also when the callback throws.
 */
import { mkdir, open, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { JournalRecordStore, type Mutation, type RecordStoreError, type SnapshotRecovery } from '../../src/storage/index.js';

type Write = (this: FileHandle, buffer: Buffer, offset?: number, length?: number, ...rest: unknown[]) => Promise<unknown>;

/** What to do to the writes made while {@link withWriteFaults} runs. */
export interface WriteFaults {
  /** Called with the text of every write before it happens (e.g. to commit from inside it). */
  readonly before?: (text: string) => void;
  /** The FIRST write whose text matches writes only its first half; later ones on its handle fail. */
  readonly tear?: (text: string) => boolean;
}

async function fileHandlePrototype(dir: string): Promise<{ write: Write }> {
  const probe = join(dir, 'probe');
  const handle = await open(probe, 'w');
  await handle.close();
  await rm(probe);
  return Object.getPrototypeOf(handle) as { write: Write };
}

function enospc(): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error('ENOSPC: no space left on device, write');
  err.code = 'ENOSPC';
  return err;
}

/** Runs `body` with the {@link WriteFaults} applied to every `FileHandle.write` in the process. */
export async function withWriteFaults<T>(scratchDir: string, faults: WriteFaults, body: () => Promise<T>): Promise<T> {
  const proto = await fileHandlePrototype(scratchDir);
  const original = proto.write;
  const torn = new WeakSet<FileHandle>(); // handles whose writes fail from now on
  let tornOnce = false;
  proto.write = async function (this: FileHandle, buffer: Buffer, offset = 0, length = buffer.length - offset, ...rest: unknown[]) {
    if (torn.has(this)) throw enospc();
    const text = buffer.toString('utf8', offset, offset + length);
    faults.before?.(text);
    if (!tornOnce && faults.tear?.(text) === true) {
      tornOnce = true;
      torn.add(this);
      return original.call(this, buffer, offset, Math.floor(length / 2), ...rest);
    }
    return original.call(this, buffer, offset, length, ...rest);
  };
  try {
    return await body();
  } finally {
    proto.write = original;
  }
}

/** Whether `text` is the start of a journal line (not a snapshot chunk) putting record `id`. */
export function isJournalLineOf(text: string, id: number): boolean {
  return /^[0-9a-f]{8} \{"m":/.test(text) && text.includes(`"id":${id},`);
}

/**
 * Polls `done` every 5 ms until it holds; bounded by `timeoutMs`, so a missing event fails (naming
 * `what`) instead of hanging.
 */
export async function until(done: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A user record put, the mutation these tests commit. */
export const putUser = (id: number): Mutation => ({ op: 'put', collection: 'users', record: { id, name: `user-${id}` } });
/** The file name of journal generation `g`. */
export const journalFile = (g: number): string => `journal-${String(g).padStart(8, '0')}.jsonl`;
/** `from`..`to` inclusive. */
export const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/**
 * Ids of `collection` in a fresh store on `dir` (opened with the default snapshot interval, so
 * reopening never rotates, and closed again), with what recovery truncated and replayed.
 */
export async function reopenedIds(dir: string, collection = 'users'): Promise<{ ids: number[]; truncatedBytes: number; replayed: number }> {
  const store = new JournalRecordStore({ dir });
  await store.open();
  try {
    return {
      ids: Array.from(store.values(collection), (r) => r.id),
      truncatedBytes: store.stats.truncatedBytes,
      replayed: store.stats.replayedBatches,
    };
  } finally {
    await store.close();
  }
}

/** An open journal store snapshotting every `snapshotEvery` mutations, with what it reports. */
export async function watchedStore(
  dir: string,
  snapshotEvery: number,
): Promise<{ store: JournalRecordStore; errors: RecordStoreError[]; recoveries: SnapshotRecovery[] }> {
  const errors: RecordStoreError[] = [];
  const recoveries: SnapshotRecovery[] = [];
  const store = new JournalRecordStore({
    dir,
    snapshotEvery,
    onSnapshotError: (e) => errors.push(e),
    onSnapshotRecovered: (r) => recoveries.push(r),
  });
  await store.open();
  return { store, errors, recoveries };
}

/**
 * Puts a non-empty directory where the store wants to write `name` in `dir`, and returns its path:
 * a real file-system error (EISDIR, EEXIST) for every write there. (chmod would not do: the tests
 * run as root, which ignores permissions.)
 */
export async function obstruct(dir: string, name: string): Promise<string> {
  const path = join(dir, name);
  await mkdir(path);
  await writeFile(join(path, 'keep'), 'x');
  return path;
}

/** Commits users `from`..`to`, one acknowledged commit each. */
export async function commitUsers(store: JournalRecordStore, from: number, to: number): Promise<void> {
  for (let id = from; id <= to; id++) await store.commit([putUser(id)]);
}
