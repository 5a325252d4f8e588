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
 * the order of the scan they replace. Trigrams are keyed by number ({@link gramKey}), not by a
 * 3-character string: building the index of 10^6 emails then allocates no string per position.
 *
 * Runs of ASCII digits are also indexed by their 4-digit substrings ({@link quadKey}). Ten digits
 * make only 1 000 trigrams, so a digit trigram is a weak filter: in 10^6 emails of the form
 * `user123456.ann45678@example6.com` each holds ~7 000 users, and a search for `user123456.` would
 * walk ~7 000 candidates at best. A digit 4-gram holds ~500 (10 000 of them), about as selective
 * as a letter trigram (26^3), for ~5 more list entries per such email. They serve fragments only
 * (never the 1-2 character prefixes), and a needle's trigrams inside one of its 4-grams are implied
 * by it and not intersected.
 */
import type { Turn } from './in-turns.js';
import { SortedBlocks, type BlockCursor } from './sorted-blocks.js';

/** Padding after each email; a fragment containing it is not answered by the index. */
export const PAD = '\u0000';

const ascending = (a: number, b: number): number => a - b;

/**
 * A trigram as a number, so indexing hashes no fresh string per position: the three UTF-16 code
 * units in 7 bits each when all are ASCII (every valid email: a small integer V8 keeps unboxed),
 * else above 2^21, so the two forms never collide.
 */
function gramKey(a: number, b: number, c: number): number {
  return (a | b | c) < 128 ? (a << 14) | (b << 7) | c : 2_097_152 + (a * 65_536 + b) * 65_536 + c;
}

/** The key of the 4-digit run with value `digits` (0-9999): negative, apart from every {@link gramKey}. */
function quadKey(digits: number): number {
  return -1 - digits;
}

/** Whether a posting key is a trigram's ({@link gramKey}), not a digit 4-gram's ({@link quadKey}). */
function isTrigram(key: number): boolean {
  return key >= 0;
}

/** The value of the ASCII digit `code`, or -1. */
function digitOf(code: number): number {
  return code >= 48 && code <= 57 ? code - 48 : -1;
}

/** The key of a 1- or 2-character prefix (`b` undefined: 1 character); distinct for the two lengths. */
function prefixKey(a: number, b?: number): number {
  return b === undefined ? a : 65_536 + a * 65_536 + b;
}

/**
 * Calls `visit` with the key and first two code units of the padded trigram at each position of
 * an already lower-cased `text`, and with the key of each 4-digit substring ({@link quadKey}; its
 * code units are not used). A gram found twice is visited twice.
 */
function eachGram(text: string, visit: (key: number, a: number, b: number) => void): void {
  const n = text.length;
  let run = 0; // digits ending here
  let digits = 0; // the last four of them
  for (let i = 0; i < n; i++) {
    const a = text.charCodeAt(i);
    const b = i + 1 < n ? text.charCodeAt(i + 1) : 0; // PAD
    const c = i + 2 < n ? text.charCodeAt(i + 2) : 0;
    visit(gramKey(a, b, c), a, b);
    const digit = digitOf(a);
    if (digit < 0) run = 0;
    else {
      digits = (digits * 10 + digit) % 10_000;
      if (++run >= 4) visit(quadKey(digits), a, b);
    }
  }
}

/** Users per step of {@link TrigramIndex.build}. */
const BUILD_STEP = 2048;

/** Appends `user.id` to the list of each trigram of its email; users come in ascending id order. */
function listUser(lists: Map<number, GramList>, user: { readonly id: number; readonly email: string }): void {
  const id = user.id;
  eachGram(user.email.toLowerCase(), (key, a, b) => {
    const list = lists.get(key);
    if (list === undefined) lists.set(key, { a, b, ids: [id] });
    else if (list.ids[list.ids.length - 1] !== id) list.ids.push(id); // a trigram twice in one email: once
  });
}

/** A posting list being collected by a build, with its trigram's first two code units. */
interface GramList {
  readonly a: number;
  readonly b: number;
  readonly ids: number[];
}

/** The posting list of the gram at positions `[at, at + span)` of a needle. */
interface Gram {
  readonly list: SortedBlocks<number>;
  readonly at: number;
  readonly span: number;
}

/**
 * The lists of a needle's distinct grams in the order {@link intersect} should test them: the
 * shortest first (it drives the walk), then, shortest first, each list whose gram shares no
 * character position with one already chosen, then the rest, shortest first; without the lists,
 * but the first, that hold more than half of the `users` indexed.
 *
 * Why: trigrams that overlap in the needle are not independent. In 10^6 emails `user123456.`,
 * `123` and `234` each hold ~7 000 users and ~500 hold both (nearly every one a `1234`), while
 * `123` and `456` share ~30, fewer than two independent 0.7 % samples would. Testing a disjoint list second
 * rejects most candidates with one probe each; the overlapping ones then see a handful. A list
 * of most users (`use` and `ser` of every `user<n>`) rejects fewer candidates than half, each at
 * the cost of a seek far into a long list (cache misses); the substring test that confirms every
 * candidate anyway is cheaper (in-process at 10^6 users, `user<n>.` 33 -> 23-26 us).
 */
function probeOrder(grams: Gram[], users: number): SortedBlocks<number>[] {
  const rest = [...grams].sort((a, b) => a.list.size - b.list.size);
  const chosen = rest.splice(0, 1);
  for (;;) {
    const next = rest.findIndex((gram) => chosen.every((taken) => taken.at + taken.span <= gram.at || gram.at + gram.span <= taken.at));
    if (next < 0) break;
    chosen.push(...rest.splice(next, 1));
  }
  return [...chosen, ...rest].filter((gram, at) => at === 0 || gram.list.size * 2 <= users).map((gram) => gram.list);
}

/** A posting list being probed: its blocks ({@link SortedBlocks.blockView}), block `b`, id `i`. */
interface Probe {
  readonly blocks: readonly (readonly number[])[];
  block: readonly number[];
  b: number;
  i: number;
}

const PAST_END: readonly number[] = [];

/**
 * Moves `probe` forward to its first id `>= id` and returns that id, or -1 (and leaves the probe
 * past its end) when there is none. Gallops (doubling steps, then a binary search), first over
 * the blocks by their last id, then inside one block: the cost grows with the log of the distance
 * skipped, so a probe into a list of 10^6 ids costs a few steps, not one per id passed.
 */
function seekFrom(probe: Probe, id: number): number {
  const blocks = probe.blocks;
  let b = probe.b;
  let block = probe.block;
  let lo = probe.i;
  if (lastOf(block) < id) {
    let first = b + 1;
    let end = first;
    for (let step = 1; end < blocks.length && lastOf(blocks[end] as readonly number[]) < id; step <<= 1) {
      first = end + 1;
      end = first + step;
    }
    if (end > blocks.length) end = blocks.length;
    while (first < end) {
      const mid = (first + end) >>> 1;
      if (lastOf(blocks[mid] as readonly number[]) < id) first = mid + 1;
      else end = mid;
    }
    if (first === blocks.length) {
      probe.b = first;
      probe.block = PAST_END;
      probe.i = 0;
      return -1;
    }
    b = first;
    block = blocks[b] as readonly number[];
    lo = 0;
  }
  // Here the block's last id is >= id: the search inside it ends on an id.
  let hi = lo;
  for (let step = 1; (block[hi] as number) < id; step <<= 1) {
    lo = hi + 1;
    hi = Math.min(hi + step, block.length - 1);
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((block[mid] as number) < id) lo = mid + 1;
    else hi = mid;
  }
  probe.b = b;
  probe.block = block;
  probe.i = lo;
  return block[lo] as number;
}

/** The last id of a non-empty block. */
function lastOf(block: readonly number[]): number {
  return block[block.length - 1] as number;
}

/**
 * Up to `limit` ids of `lists[0]`, ascending, that every other list holds and `contains` confirms.
 * The first list drives the walk; each candidate is probed in the others in order and dropped at
 * the first that lacks it ({@link probeOrder} puts the most selective second). No cursor objects,
 * closures or seeks from the start: the walk reads the block arrays directly.
 */
function intersect(lists: readonly SortedBlocks<number>[], limit: number, contains: (id: number) => boolean): number[] {
  const out: number[] = [];
  const [lead, ...others] = lists;
  if (lead === undefined || limit <= 0) return out;
  const probes: Probe[] = others.map((list) => {
    const blocks = list.blockView();
    return { blocks, block: blocks[0] ?? PAST_END, b: 0, i: 0 };
  });
  const count = probes.length;
  for (const block of lead.blockView()) {
    for (let k = 0; k < block.length; k++) {
      const id = block[k] as number;
      let p = 0;
      for (; p < count; p++) {
        const probe = probes[p] as Probe;
        let at = probe.block[probe.i];
        if (at === undefined) return out; // that list is exhausted: no more matches
        if (at < id && (at = seekFrom(probe, id)) < 0) return out;
        if (at !== id) break;
      }
      if (p === count && contains(id)) {
        out.push(id);
        if (out.length >= limit) return out;
      }
    }
  }
  return out;
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
  /** By trigram key ({@link gramKey}). */
  private readonly postings = new Map<number, SortedBlocks<number>>();
  /**
   * Users indexed (adds that grew a list minus removes that shrank one): only a yardstick for
   * {@link probeOrder}, which no answer depends on.
   */
  private users = 0;
  /** 1- and 2-character prefixes ({@link prefixKey}) to the keys of the trigrams that start with them. */
  private readonly prefixes = new Map<number, Set<number>>();

  /**
   * Builds the index of `users`, given in ascending id order, list by list (no per-id inserts).
   *
   * @example TrigramIndex.of([{ id: 1, email: 'a@b.io' }]).search('b.i', 10, () => true) // [1]
   */
  static of(users: Iterable<{ readonly id: number; readonly email: string }>): TrigramIndex {
    const lists = new Map<number, GramList>();
    let count = 0;
    for (const user of users) {
      listUser(lists, user);
      count++;
    }
    const index = new TrigramIndex();
    index.users = count;
    for (const [key, list] of lists) index.install(key, list);
    return index;
  }

  /**
   * {@link of} in steps of {@link BUILD_STEP} users with a `turn()` between them (the background
   * build of the service: one pass over 10^6 users takes seconds). `users` must not change meanwhile.
   */
  static async build(users: readonly { readonly id: number; readonly email: string }[], turn: Turn): Promise<TrigramIndex> {
    const lists = new Map<number, GramList>();
    for (let at = 0; at < users.length; at += BUILD_STEP) {
      const end = Math.min(users.length, at + BUILD_STEP);
      for (let i = at; i < end; i++) listUser(lists, users[i] as { readonly id: number; readonly email: string });
      await turn();
    }
    const index = new TrigramIndex();
    index.users = users.length;
    let moved = 0;
    for (const [key, list] of lists) {
      index.install(key, list);
      moved += list.ids.length;
      if (moved >= BUILD_STEP * 20) {
        moved = 0;
        await turn();
      }
    }
    return index;
  }

  private install(key: number, list: GramList): void {
    this.postings.set(key, SortedBlocks.fromSorted(list.ids, ascending));
    if (!isTrigram(key)) return;
    this.prefixed(prefixKey(list.a)).add(key);
    this.prefixed(prefixKey(list.a, list.b)).add(key);
  }

  /** Can {@link search} answer `needle` (lower-cased)? False only for fragments holding {@link PAD}. */
  static answers(needle: string): boolean {
    return !needle.includes(PAD);
  }

  /** Indexes user `id` under `email` (any case). */
  add(id: number, email: string): void {
    // A trigram found twice in one email is inserted twice: the second replaces the first.
    let grew = false;
    eachGram(email.toLowerCase(), (key, a, b) => {
      let list = this.postings.get(key);
      if (list === undefined) {
        list = new SortedBlocks(ascending);
        this.postings.set(key, list);
        if (isTrigram(key)) {
          this.prefixed(prefixKey(a)).add(key);
          this.prefixed(prefixKey(a, b)).add(key);
        }
      }
      const size = list.size;
      list.insert(id);
      grew ||= list.size > size;
    });
    if (grew) this.users++;
  }

  /** Removes user `id`, indexed under `email` (any case). */
  remove(id: number, email: string): void {
    let shrank = false;
    eachGram(email.toLowerCase(), (key, a, b) => {
      const list = this.postings.get(key);
      if (list === undefined) return;
      shrank = list.delete(id) || shrank;
      if (list.size === 0) {
        this.postings.delete(key);
        if (!isTrigram(key)) return;
        this.unprefix(prefixKey(a), key);
        this.unprefix(prefixKey(a, b), key);
      }
    });
    if (shrank) this.users--;
  }

  /**
   * Up to `limit` ids, ascending, whose email contains `needle` (lower-cased, non-empty, see
   * {@link answers}). `contains(id)` is the exact test, run on candidates of 3+ character needles.
   */
  search(needle: string, limit: number, contains: (id: number) => boolean): number[] {
    if (needle.length < 3) {
      const key = prefixKey(needle.charCodeAt(0), needle.length === 2 ? needle.charCodeAt(1) : undefined);
      return this.union([...(this.prefixes.get(key) ?? [])], limit);
    }
    const grams: Gram[] = [];
    const use = (key: number, at: number, span: number): boolean => {
      const list = this.postings.get(key);
      if (list === undefined) return false;
      if (!grams.some((gram) => gram.list === list)) grams.push({ list, at, span });
      return true;
    };
    // The 4-digit runs first; the trigrams at `at` and `at + 1` lie inside the run at `at`.
    const implied: boolean[] = [];
    let run = 0;
    let digits = 0;
    for (let at = 0; at < needle.length; at++) {
      const digit = digitOf(needle.charCodeAt(at));
      if (digit < 0) run = 0;
      else {
        digits = (digits * 10 + digit) % 10_000;
        if (++run < 4) continue;
        if (!use(quadKey(digits), at - 3, 4)) return [];
        implied[at - 3] = implied[at - 2] = true;
      }
    }
    // Only the needle's whole trigrams: its padded end is not a constraint on the email.
    for (let at = 0; at + 2 < needle.length; at++) {
      if (implied[at] === true) continue;
      if (!use(gramKey(needle.charCodeAt(at), needle.charCodeAt(at + 1), needle.charCodeAt(at + 2)), at, 3)) return [];
    }
    return intersect(probeOrder(grams, this.users), limit, contains);
  }

  /** The first `limit` distinct ids of the union of the lists of `grams`, ascending (k-way merge). */
  private union(grams: number[], limit: number): number[] {
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

  private prefixed(prefix: number): Set<number> {
    let grams = this.prefixes.get(prefix);
    if (grams === undefined) {
      grams = new Set();
      this.prefixes.set(prefix, grams);
    }
    return grams;
  }

  private unprefix(prefix: number, gram: number): void {
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
