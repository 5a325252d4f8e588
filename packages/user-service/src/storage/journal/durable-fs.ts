/**
 * The few file-system primitives durability rests on. All async: nothing here blocks the event
 * loop (never block the event loop: Node's "Don't Block the Event Loop" guide).
 */
import { open, type FileHandle } from 'node:fs/promises';

/** Counts fsync-family calls; the journal store passes its stats counter in. */
export type SyncCounter = () => void;

/**
 * fsyncs a directory so that file creations, renames and truncations inside it survive a power
 * loss (POSIX: fsync of the file does not persist its directory entry). Windows cannot open a
 * directory for syncing and persists entries synchronously, so it is skipped there.
 */
export async function syncDir(dir: string, count: SyncCounter): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
    count();
  } finally {
    await handle.close();
  }
}

/**
 * Writes all of `buf`, looping over short writes (a signal or a full disk can cut a write short
 * without an error; the next call then reports the error).
 */
export async function writeAll(handle: FileHandle, buf: Buffer): Promise<void> {
  let offset = 0;
  while (offset < buf.length) {
    const { bytesWritten } = await handle.write(buf, offset, buf.length - offset);
    if (bytesWritten <= 0) throw new Error('write made no progress');
    offset += bytesWritten;
  }
}
