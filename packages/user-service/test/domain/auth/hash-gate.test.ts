/** HashGate: password hashes run one at a time (by default), a bounded number wait, the rest get 503 at once. */
import { describe, expect, it } from 'vitest';
import { BasicAuthenticator } from '../../../src/domain/auth/credentials.js';
import { HashGate } from '../../../src/domain/auth/hash-gate.js';

describe('HashGate', () => {
  it('runs at most `concurrency` hashes at once and refuses past the queue with 503', async () => {
    const gate = new HashGate({ concurrency: 1, queue: 32 });
    let active = 0;
    let peak = 0;
    const releases: Array<() => void> = [];
    const hash = () =>
      new Promise<string>((resolve) => {
        active++;
        peak = Math.max(peak, active);
        releases.push(() => {
          active--;
          resolve('key');
        });
      });
    const outcomes = Array.from({ length: 64 }, () =>
      gate.run(hash).then(
        () => 'hashed',
        (e: { status?: number; headers?: Record<string, string> }) => `${e.status}/${e.headers?.['retry-after']}`,
      ),
    );
    // Release one hash at a time, as the thread pool would finish them.
    for (let released = 0, i = 0; released < 33 && i < 1_000; i++) {
      await new Promise((r) => setImmediate(r));
      const release = releases.shift();
      if (release !== undefined) {
        release();
        released++;
      }
    }
    const results = await Promise.all(outcomes);
    expect(peak).toBe(1);
    expect(gate.peakActive).toBe(1);
    expect(results.filter((r) => r === 'hashed')).toHaveLength(33); // one running + 32 waiting
    expect(results.filter((r) => r === '503/1')).toHaveLength(31);
  });

  it('64 concurrent wrong passwords never run more than one scrypt at a time in the authenticator', async () => {
    const gate = new HashGate();
    const auth = await BasicAuthenticator.create('admin', 'right', { scrypt: { N: 1024, r: 8, p: 1, keyLength: 32 }, gate });
    const results = await Promise.all(
      Array.from({ length: 64 }, () =>
        auth.verifyLogin('admin', 'wrong').then(
          (p) => (p === null ? 'refused' : 'accepted'),
          (e: { status?: number }) => String(e.status),
        ),
      ),
    );
    expect(gate.peakActive).toBe(1);
    expect(results.every((r) => r === 'refused' || r === '503')).toBe(true);
    expect(results.filter((r) => r === 'refused').length).toBeGreaterThanOrEqual(33);
  });
});
