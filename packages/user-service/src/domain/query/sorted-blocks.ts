/**
 * A sorted multiset kept as a list of small sorted blocks (the layout of Python's
 * `sortedcontainers.SortedList`): the index structure behind the user sort and search indexes.
 *
 * Why not one sorted array: inserting into or deleting from the middle of a 10^6-element array
 * moves half of it on every write (measured with packages/bench/src/service/indexes.ts). Why not a B-tree: pages need
 * positions (page 25 000 of 20) and ranges, which blocks give with no per-node objects. Here a
 * write splices one block of at most 2 × {@link BLOCK_LOAD} items, a lookup is two binary searches
 * (blocks by their last item, then inside one block), and a position is found by summing block
 * lengths (about n / BLOCK_LOAD additions: a few microseconds at 10^6).
 */
import type { Comparator } from './paging-select.js';

/** Target block length; blocks split at twice this and merge below a quarter of it. */
export const BLOCK_LOAD = 1024;

/** A position inside a {@link SortedBlocks}: block `b`, item `i`. Invalid after any write. */
export interface BlockCursor {
  b: number;
  i: number;
}

/**
 * Items sorted by a total order `compare`; equal items (compare 0) are the same item.
 *
 * @example
 * const ids = new SortedBlocks<number>((a, b) => a - b);
 * ids.insert(5); ids.insert(2);
 * ids.slice(0, 2); // [2, 5]
 */
export class SortedBlocks<T> {
  private blocks: T[][] = [];
  private count = 0;

  constructor(private readonly compare: Comparator<T>) {}

  /**
   * Builds from items already sorted by `compare` (copied into blocks; `items` is not kept).
   *
   * @example SortedBlocks.fromSorted([1, 2, 3], (a, b) => a - b).size // 3
   */
  static fromSorted<T>(items: readonly T[], compare: Comparator<T>): SortedBlocks<T> {
    const sorted = new SortedBlocks(compare);
    for (let at = 0; at < items.length; at += BLOCK_LOAD) sorted.blocks.push(items.slice(at, at + BLOCK_LOAD));
    sorted.count = items.length;
    return sorted;
  }

  /** Number of items. */
  get size(): number {
    return this.count;
  }

  /** Adds `item`; an equal item already present is replaced by it. */
  insert(item: T): void {
    const blocks = this.blocks;
    if (blocks.length === 0) {
      blocks.push([item]);
      this.count = 1;
      return;
    }
    const cursor = this.seek((x) => this.compare(x, item) < 0);
    if (cursor.b === blocks.length) {
      cursor.b--; // after every item: append to the last block
      cursor.i = (blocks[cursor.b] as T[]).length;
    }
    const block = blocks[cursor.b] as T[];
    if (cursor.i < block.length && this.compare(block[cursor.i] as T, item) === 0) {
      block[cursor.i] = item;
      return;
    }
    if (cursor.i === block.length) block.push(item);
    else block.splice(cursor.i, 0, item);
    this.count++;
    if (block.length > 2 * BLOCK_LOAD) blocks.splice(cursor.b + 1, 0, block.splice(BLOCK_LOAD));
  }

  /** Removes the item equal to `item`; false when there is none. */
  delete(item: T): boolean {
    const cursor = this.seek((x) => this.compare(x, item) < 0);
    const block = this.blocks[cursor.b];
    if (block === undefined || cursor.i >= block.length || this.compare(block[cursor.i] as T, item) !== 0) return false;
    block.splice(cursor.i, 1);
    this.count--;
    if (block.length < BLOCK_LOAD >> 2) this.mergeSmall(cursor.b);
    return true;
  }

  /**
   * The first position whose item is not `before` (`before` must hold for a prefix of the order).
   * Returns `{ b: blocks, i: 0 }` when every item is before.
   */
  seek(before: (item: T) => boolean): BlockCursor {
    const blocks = this.blocks;
    let lo = 0;
    let hi = blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const block = blocks[mid] as T[];
      if (before(block[block.length - 1] as T)) lo = mid + 1;
      else hi = mid;
    }
    if (lo === blocks.length) return { b: lo, i: 0 };
    const block = blocks[lo] as T[];
    let left = 0;
    let right = block.length;
    while (left < right) {
      const mid = (left + right) >>> 1;
      if (before(block[mid] as T)) left = mid + 1;
      else right = mid;
    }
    return { b: lo, i: left };
  }

  /** Number of items that are `before` (see {@link seek}). */
  rank(before: (item: T) => boolean): number {
    return this.positionOf(this.seek(before));
  }

  /**
   * The blocks themselves, in order, each non-empty and sorted, for read loops too tight for a
   * cursor (the trigram index's galloping intersection). Read-only, and stale after any write.
   */
  blockView(): readonly (readonly T[])[] {
    return this.blocks;
  }

  /** The item under `cursor`, or undefined past the end. */
  get(cursor: BlockCursor): T | undefined {
    return this.blocks[cursor.b]?.[cursor.i];
  }

  /** Moves `cursor` to the next item. */
  advance(cursor: BlockCursor): void {
    cursor.i++;
    if (cursor.i >= (this.blocks[cursor.b]?.length ?? 0)) {
      cursor.b++;
      cursor.i = 0;
    }
  }

  /** A cursor on the item at sorted position `position` (past the end when `position >= size`). */
  cursorAt(position: number): BlockCursor {
    const blocks = this.blocks;
    let rest = Math.max(0, position);
    for (let b = 0; b < blocks.length; b++) {
      const length = (blocks[b] as T[]).length;
      if (rest < length) return { b, i: rest };
      rest -= length;
    }
    return { b: blocks.length, i: 0 };
  }

  /** Items at sorted positions `[from, to)`. */
  slice(from: number, to: number): T[] {
    const out: T[] = [];
    const end = Math.min(to, this.count);
    const cursor = this.cursorAt(from);
    for (let at = Math.max(0, from); at < end; at++) {
      out.push(this.get(cursor) as T);
      this.advance(cursor);
    }
    return out;
  }

  private positionOf(cursor: BlockCursor): number {
    let position = cursor.i;
    for (let b = 0; b < cursor.b; b++) position += (this.blocks[b] as T[]).length;
    return position;
  }

  /** Joins the small block `b` with a neighbour (splitting again if that grows too long). */
  private mergeSmall(b: number): void {
    const blocks = this.blocks;
    const block = blocks[b] as T[];
    if (blocks.length === 1) {
      if (block.length === 0) blocks.length = 0;
      return;
    }
    const left = b > 0 ? b - 1 : b;
    const joined = (blocks[left] as T[]).concat(blocks[left + 1] as T[]);
    if (joined.length > 2 * BLOCK_LOAD) blocks.splice(left, 2, joined.slice(0, BLOCK_LOAD), joined.slice(BLOCK_LOAD));
    else blocks.splice(left, 2, joined);
  }
}
