/**
 * Work over every user split into short synchronous steps, so the indexes of 10^6 users are built
 * in the background without holding the event loop for seconds (one `Array.prototype.sort` of
 * 10^6 users by a string field takes about 3 s on the benchmark machine, during which no probe or
 * request is answered).
 */
import type { Comparator } from './paging-select.js';

/** Yields to the event loop (I/O callbacks and timers run before the next step). */
export type Turn = () => Promise<void>;

/** A {@link Turn} through `setImmediate`: pending I/O is served before the next step. */
export const nextTurn: Turn = () => new Promise((resolve) => setImmediate(resolve));

/** Items sorted per step (one native sort of this many: a few milliseconds). */
export const SORT_RUN = 8192;
/** Items moved per step of a merge pass. */
export const MERGE_STEP = 32_768;

/**
 * `items` sorted by `compare` into a new array (stable), in steps of at most about
 * {@link MERGE_STEP} comparisons with a `turn()` between them: runs of {@link SORT_RUN} sorted
 * natively, then merged pairwise, pass by pass. `items` must not change meanwhile.
 *
 * @example const sorted = await sortInTurns(users, byLastName, nextTurn);
 */
export async function sortInTurns<T>(items: readonly T[], compare: Comparator<T>, turn: Turn): Promise<T[]> {
  const n = items.length;
  let from: T[] = [];
  for (let at = 0; at < n; at += SORT_RUN) {
    for (const item of items.slice(at, at + SORT_RUN).sort(compare)) from.push(item);
    await turn();
  }
  let budget = MERGE_STEP;
  for (let width = SORT_RUN; width < n; width *= 2) {
    const to: T[] = new Array<T>(n);
    let out = 0;
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      while (i < mid || j < hi) {
        // Ties take the left run first: the merge is stable, like the native sort.
        if (j >= hi || (i < mid && compare(from[i] as T, from[j] as T) <= 0)) to[out++] = from[i++] as T;
        else to[out++] = from[j++] as T;
        if (--budget === 0) {
          budget = MERGE_STEP;
          await turn();
        }
      }
    }
    from = to;
  }
  return from;
}
