/**
 * Substring index over the lower-cased emails of the regular users: for every trigram, the
 * ascending ids of the users whose email contains it.
 *
 * Every email is padded with two {@link PAD} characters and indexed at each of its own positions
 * (`ab` yields `ab\0` and `b\0\0`), so every 1- or 2-character substring is the prefix of some
 * indexed trigram. That answers short fragments exactly, which plain trigrams cannot: the users
 * containing `a` are the union of the lists of the trigrams starting with `a`. Longer fragments
 * intersect the lists of their trigrams and confirm each candidate with a real substring test
 * (all trigrams present does not imply the fragment is). Results come out in ascending id order,
 * the order of the scan they replace.
 */
import type { Turn } from './in-turns.js';
import { SortedBlocks, type BlockCursor } from './sorted-blocks.js';

/** Padding after each email; a fragment containing it is not answered by the index. */
export const PAD = '\u0000';

const ascending = (a: number, b: number): number => a - b;

/** The distinct padded trigrams of an already lower-cased `text`. */
function trigramsOf(text: string): Set<string> {
  const padded = text + PAD + PAD;
  const grams = new Set<string>();
  for (let i = 0; i < text.length; i++) grams.add(padded.slice(i, i + 3));
  return grams;
}

/** Users per step of {@link TrigramIndex.build}. */
const BUILD_STEP = 2048;

/** Appends `user.id` to the list of each trigram of its email; users come in ascending id order. */
function listUser(lists: Map<string, number[]>, user: { readonly id: number; readonly email: string }): void {
  const text = user.email.toLowerCase();
  const padded = text + PAD + PAD;
  for (let i = 0; i < text.length; i++) {
    const gram = padded.slice(i, i + 3);
    const ids = lists.get(gram);
    if (ids === undefined) lists.set(gram, [user.id]);
    else if (ids[ids.length - 1] !== user.id) ids.push(user.id); // a trigram twice in one email: once
  }
}

/** One posting list being walked. */
interface Walk {
  list: SortedBlocks<number>;
  cursor: BlockCursor;
}

/**
 * Ids by the trigrams of their lower-cased email.
 *
 * @example
 * const index = new TrigramIndex();
 * index.add(1, 'Ann@Example.com');
 * index.search('xam', 10, () => true); // [1]
 */
export class TrigramIndex {
  private readonly postings = new Map<string, SortedBlocks<number>>();
  /** 1- and 2-character prefixes to the trigrams that start with them. */
  private readonly prefixes = new Map<string, Set<string>>();

  /**
   * Builds the index of `users`, given in ascending id order, list by list (no per-id inserts).
   *
   * @example TrigramIndex.of([{ id: 1, email: 'a@b.io' }]).search('b.i', 10, () => true) // [1]
   */
  static of(users: Iterable<{ readonly id: number; readonly email: string }>): TrigramIndex {
    const lists = new Map<string, number[]>();
    for (const user of users) listUser(lists, user);
    const index = new TrigramIndex();
    for (const [gram, ids] of lists) index.install(gram, ids);
    return index;
  }

  /**
   * {@link of} in steps of {@link BUILD_STEP} users with a `turn()` between them (the background
   * build of the service: one pass over 10^6 users takes seconds). `users` must not change meanwhile.
   */
  static async build(users: readonly { readonly id: number; readonly email: string }[], turn: Turn): Promise<TrigramIndex> {
    const lists = new Map<string, number[]>();
    for (let at = 0; at < users.length; at += BUILD_STEP) {
      const end = Math.min(users.length, at + BUILD_STEP);
      for (let i = at; i < end; i++) listUser(lists, users[i] as { readonly id: number; readonly email: string });
      await turn();
    }
    const index = new TrigramIndex();
    let moved = 0;
    for (const [gram, ids] of lists) {
      index.install(gram, ids);
      moved += ids.length;
      if (moved >= BUILD_STEP * 20) {
        moved = 0;
        await turn();
      }
    }
    return index;
  }

  private install(gram: string, ids: readonly number[]): void {
    this.postings.set(gram, SortedBlocks.fromSorted(ids, ascending));
    this.prefixed(gram.slice(0, 1)).add(gram);
    this.prefixed(gram.slice(0, 2)).add(gram);
  }

  /** Can {@link search} answer `needle` (lower-cased)? False only for fragments holding {@link PAD}. */
  static answers(needle: string): boolean {
    return !needle.includes(PAD);
  }

  /** Indexes user `id` under `email` (any case). */
  add(id: number, email: string): void {
    for (const gram of trigramsOf(email.toLowerCase())) {
      let list = this.postings.get(gram);
      if (list === undefined) {
        list = new SortedBlocks(ascending);
        this.postings.set(gram, list);
        this.prefixed(gram.slice(0, 1)).add(gram);
        this.prefixed(gram.slice(0, 2)).add(gram);
      }
      list.insert(id);
    }
  }

  /** Removes user `id`, indexed under `email` (any case). */
  remove(id: number, email: string): void {
    for (const gram of trigramsOf(email.toLowerCase())) {
      const list = this.postings.get(gram);
      if (list === undefined) continue;
      list.delete(id);
      if (list.size === 0) {
        this.postings.delete(gram);
        this.unprefix(gram.slice(0, 1), gram);
        this.unprefix(gram.slice(0, 2), gram);
      }
    }
  }

  /**
   * Up to `limit` ids, ascending, whose email contains `needle` (lower-cased, non-empty, see
   * {@link answers}). `contains(id)` is the exact test, run on candidates of 3+ character needles.
   */
  search(needle: string, limit: number, contains: (id: number) => boolean): number[] {
    if (needle.length < 3) return this.union([...(this.prefixes.get(needle) ?? [])], limit);
    const lists: SortedBlocks<number>[] = [];
    for (const gram of trigramsOf(needle)) {
      if (gram.includes(PAD)) continue; // the needle's own end, not a constraint on the email
      const list = this.postings.get(gram);
      if (list === undefined) return [];
      lists.push(list);
    }
    lists.sort((a, b) => a.size - b.size);
    return this.intersect(lists, limit, contains);
  }

  /** Ids of the smallest list that every other list holds and `contains` confirms. */
  private intersect(lists: SortedBlocks<number>[], limit: number, contains: (id: number) => boolean): number[] {
    const walks: Walk[] = lists.map((list) => ({ list, cursor: { b: 0, i: 0 } }));
    const [lead, ...others] = walks as [Walk, ...Walk[]];
    const out: number[] = [];
    candidates: for (let id = lead.list.get(lead.cursor); id !== undefined && out.length < limit; id = lead.list.get(lead.cursor)) {
      lead.list.advance(lead.cursor);
      for (const walk of others) {
        let other = walk.list.get(walk.cursor);
        if (other !== undefined && other < id) {
          walk.cursor = walk.list.seek((x) => x < id);
          other = walk.list.get(walk.cursor);
        }
        if (other === undefined) break candidates; // that list is exhausted: no more matches
        if (other !== id) continue candidates;
      }
      if (contains(id)) out.push(id);
    }
    return out;
  }

  /** The first `limit` distinct ids of the union of the lists of `grams`, ascending (k-way merge). */
  private union(grams: string[], limit: number): number[] {
    // Min-heap of walks by their current id.
    const heap: Walk[] = [];
    for (const gram of grams) {
      const list = this.postings.get(gram) as SortedBlocks<number>;
      heap.push({ list, cursor: { b: 0, i: 0 } });
    }
    const head = (walk: Walk): number => walk.list.get(walk.cursor) as number;
    for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(heap, i, head);
    const out: number[] = [];
    while (heap.length > 0 && out.length < limit) {
      const top = heap[0] as Walk;
      const id = head(top);
      if (out[out.length - 1] !== id) out.push(id);
      top.list.advance(top.cursor);
      if (top.list.get(top.cursor) === undefined) {
        const last = heap.pop() as Walk;
        if (heap.length === 0) break;
        heap[0] = last;
      }
      siftDown(heap, 0, head);
    }
    return out;
  }

  private prefixed(prefix: string): Set<string> {
    let grams = this.prefixes.get(prefix);
    if (grams === undefined) {
      grams = new Set();
      this.prefixes.set(prefix, grams);
    }
    return grams;
  }

  private unprefix(prefix: string, gram: string): void {
    const grams = this.prefixes.get(prefix);
    grams?.delete(gram);
    if (grams?.size === 0) this.prefixes.delete(prefix);
  }
}

function siftDown(heap: Walk[], index: number, key: (walk: Walk) => number): void {
  const item = heap[index] as Walk;
  const itemKey = key(item);
  let i = index;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= heap.length) break;
    let child = left;
    if (left + 1 < heap.length && key(heap[left + 1] as Walk) < key(heap[left] as Walk)) child = left + 1;
    if (key(heap[child] as Walk) >= itemKey) break;
    heap[i] = heap[child] as Walk;
    i = child;
  }
  heap[i] = item;
}
