/** Temporary store directories for the storage tests, removed after each file. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** Returns a function creating fresh temp dirs, all removed once the test file finishes. */
export function useTempDirs(prefix: string): () => Promise<string> {
  const made: string[] = [];
  afterAll(async () => {
    await Promise.all(made.map((d) => rm(d, { recursive: true, force: true })));
  });
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), `${prefix}-`));
    made.push(dir);
    return dir;
  };
}
