/**
 * The background build's sort (query/in-turns.ts) gives exactly the native stable sort, at run
 * boundaries too, and yields between bounded steps.
 */
import { describe, expect, it } from 'vitest';
import { MERGE_STEP, SORT_RUN, sortInTurns } from '../../../src/domain/query/in-turns.js';

describe('sortInTurns', () => {
  it('equals the native stable sort for sizes around the run length, with equal keys kept in input order', async () => {
    let seed = 27;
    const next = (): number => (seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0);
    for (const n of [0, 1, 2, SORT_RUN - 1, SORT_RUN, SORT_RUN + 1, 3 * SORT_RUN + 5, 4 * SORT_RUN]) {
      // Few distinct keys: stability decides most of the order.
      const items = Array.from({ length: n }, (_, at) => ({ key: next() % 50, at }));
      const compare = (a: { key: number }, b: { key: number }): number => a.key - b.key;
      let turns = 0;
      const sorted = await sortInTurns(items, compare, async () => void turns++);
      expect(sorted).toEqual([...items].sort(compare));
      // One turn per sorted run, plus one per MERGE_STEP items moved by each merge pass.
      const runs = Math.ceil(n / SORT_RUN);
      expect(turns).toBeGreaterThanOrEqual(runs);
      if (n > SORT_RUN) expect(turns).toBeGreaterThanOrEqual(runs + Math.floor((n * Math.ceil(Math.log2(runs))) / MERGE_STEP));
    }
  });
});
