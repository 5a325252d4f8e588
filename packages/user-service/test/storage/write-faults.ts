/**
 * Fault injection for the storage tests (the store helpers they share are in store-helpers.ts).
 *
 * A torn write, as on a full disk: `FileHandle.write` writes only part of the buffer (a short
 * write) and the next write on that handle throws ENOSPC, so `writeAll` leaves exactly that part
 * in the file and reports the error. The patch lives on `FileHandle.prototype` (the class is not
 * exported by node:fs/promises) and only for the duration of one callback; it is always restored,
 * also when the callback throws.
 *
 * A blocked path: a directory where the store wants to write a file, for real file-system errors.
 */
import { mkdir, open, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

type Write = (this: FileHandle, buffer: Buffer, offset?: number, length?: number, ...rest: unknown[]) => Promise<unknown>;

/** What to do to the writes made while {@link withWriteFaults} runs. */
export interface WriteFaults {
  /** Called with the text of every write before it happens (e.g. to commit from inside it). */
  readonly before?: (text: string) => void;
  /** The FIRST write whose text matches writes only its first half; later ones on its handle fail. */
  readonly tear?: (text: string) => boolean;
  /** While it returns true, every write fails with ENOSPC before writing anything (a full disk). */
  readonly full?: () => boolean;
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
    if (torn.has(this) || faults.full?.() === true) throw enospc();
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
