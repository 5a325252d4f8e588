import { describe, expect, it } from 'vitest';
import { KeyedLock } from '../../../src/domain/users/keyed-lock.js';

/** A promise the test resolves by hand. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe('KeyedLock', () => {
  it('runs tasks of one key one at a time, in arrival order', async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const first = gate();
    const a = lock.run('k', async () => {
      log.push('a start');
      await first.promise;
      log.push('a end');
    });
    const b = lock.run('k', async () => {
      log.push('b');
    });
    await Promise.resolve();
    expect(log).toEqual(['a start']);
    first.open();
    await Promise.all([a, b]);
    expect(log).toEqual(['a start', 'a end', 'b']);
  });

  it('does not serialize different keys', async () => {
    const lock = new KeyedLock();
    const held = gate();
    const slow = lock.run('x', () => held.promise);
    await expect(lock.run('y', async () => 'y done')).resolves.toBe('y done');
    held.open();
    await slow;
  });

  it('a failing task rejects its caller but not the next one, and the map is emptied', async () => {
    const lock = new KeyedLock();
    const failing = lock.run('k', async () => {
      throw new Error('boom');
    });
    const next = lock.run('k', async () => 42);
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe(42);
    expect(lock.pendingKeys).toBe(0);
  });
});
