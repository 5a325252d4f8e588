/**
 * SortedBlocks against a plain sorted array: random inserts (new and replacing), deletes (present
 * and absent), enough items to split blocks and few enough afterwards to merge them.
 */
import { describe, expect, it } from 'vitest';
import { BLOCK_LOAD, SortedBlocks } from '../../../src/domain/query/sorted-blocks.js';
import { random } from '../../helpers/random.js';

const ascending = (a: number, b: number): number => a - b;

function check(blocks: SortedBlocks<number>, reference: number[], next: () => number): void {
  expect(blocks.size).toBe(reference.length);
  expect(blocks.slice(0, reference.length)).toEqual(reference);
  for (let n = 0; n < 20; n++) {
    const from = Math.floor(next() * (reference.length + 2));
    const to = from + Math.floor(next() * 50);
    expect(blocks.slice(from, to)).toEqual(reference.slice(from, to));
    const value = Math.floor(next() * 20 * BLOCK_LOAD);
    const rank = reference.filter((x) => x < value).length;
    expect(blocks.rank((x) => x < value)).toBe(rank);
    expect(blocks.get(blocks.seek((x) => x < value))).toBe(reference[rank]);
    expect(blocks.get(blocks.cursorAt(from))).toBe(reference[from]);
  }
}

describe('SortedBlocks', () => {
  it('matches a sorted array through growth (block splits) and shrinking (block merges)', () => {
    const next = random(3);
    const reference: number[] = [];
    const blocks = new SortedBlocks(ascending);
    const insert = (value: number): void => {
      blocks.insert(value);
      const at = reference.findIndex((x) => x >= value);
      if (at === -1) reference.push(value);
      else if (reference[at] !== value) reference.splice(at, 0, value);
    };
    for (let n = 0; n < 6 * BLOCK_LOAD; n++) insert(Math.floor(next() * 20 * BLOCK_LOAD));
    check(blocks, reference, next);
    while (reference.length > BLOCK_LOAD / 2) {
      const value = next() < 0.8 ? (reference[Math.floor(next() * reference.length)] as number) : -1;
      const at = reference.indexOf(value);
      expect(blocks.delete(value)).toBe(at !== -1);
      if (at !== -1) reference.splice(at, 1);
      if (reference.length % 997 === 0) check(blocks, reference, next);
    }
    for (let n = 0; n < 3 * BLOCK_LOAD; n++) insert(Math.floor(next() * 20 * BLOCK_LOAD));
    check(blocks, reference, next);
    for (const value of reference.splice(0)) expect(blocks.delete(value)).toBe(true);
    expect(blocks.size).toBe(0);
    expect(blocks.slice(0, 10)).toEqual([]);
    insert(5);
    check(blocks, reference, next);
  });

  it('builds from sorted input and keeps equal items once (the newest)', () => {
    const byKey = (a: { k: number }, b: { k: number }): number => a.k - b.k;
    const items = Array.from({ length: 3 * BLOCK_LOAD + 5 }, (_, k) => ({ k, v: 'old' }));
    const blocks = SortedBlocks.fromSorted(items, byKey);
    blocks.insert({ k: 2000, v: 'new' });
    expect(blocks.size).toBe(items.length);
    expect(blocks.slice(2000, 2001)).toEqual([{ k: 2000, v: 'new' }]);
  });
});
