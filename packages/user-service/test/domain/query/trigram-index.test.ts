/**
 * TrigramIndex against a linear scan: the same ids, ascending, capped at the limit, for random
 * fragments over emails built from a small alphabet rich in digit runs (so digit 4-grams, dense
 * lists of several blocks and rare lists meet in one intersection), whether the index was built in
 * one pass or by single adds, removes and re-adds. Deterministic seeds, so a failure reproduces.
 */
import { describe, expect, it } from 'vitest';
import { BLOCK_LOAD } from '../../../src/domain/query/sorted-blocks.js';
import { TrigramIndex } from '../../../src/domain/query/trigram-index.js';
import { random } from '../../helpers/random.js';

const PIECES = ['user', 'Ann', 'bo', '.', '@', 'ex', '0', '1', '12', '123', '2024', '9', '77', '-', 'Zz'];

function randomEmail(next: () => number): string {
  let email = 'u';
  const parts = 2 + Math.floor(next() * 8);
  for (let i = 0; i < parts; i++) {
    email += next() < 0.4 ? String(Math.floor(next() * 100_000)) : (PIECES[Math.floor(next() * PIECES.length)] as string);
  }
  return `${email}@ex${Math.floor(next() * 50)}.com`;
}

/** The scan the index replaces: ids ascending whose lower-cased email contains `needle`, at most `limit`. */
function scan(emails: Map<number, string>, needle: string, limit: number): number[] {
  const ids = [...emails.keys()].sort((a, b) => a - b);
  return ids.filter((id) => (emails.get(id) as string).toLowerCase().includes(needle)).slice(0, limit);
}

function randomNeedle(next: () => number, emails: Map<number, string>): string {
  const pick = next();
  if (pick < 0.2) return String(Math.floor(next() * 1_000_000)); // a digit run, often absent
  if (pick < 0.3) return `user${Math.floor(next() * 3000)}`;
  const all = [...emails.values()];
  const email = (all[Math.floor(next() * all.length)] ?? 'u@ex.com').toLowerCase();
  const length = 1 + Math.floor(next() * 12);
  const from = Math.floor(next() * Math.max(1, email.length - length));
  return email.slice(from, from + length);
}

function compare(index: TrigramIndex, emails: Map<number, string>, next: () => number, rounds: number): void {
  const contains = (needle: string) => (id: number) => (emails.get(id) as string).toLowerCase().includes(needle);
  let found = 0;
  for (let round = 0; round < rounds; round++) {
    const needle = randomNeedle(next, emails);
    if (needle === '') continue;
    for (const limit of [1, 7, 1000]) {
      expect(index.search(needle, limit, contains(needle)), `search(${JSON.stringify(needle)}, ${limit})`).toEqual(
        scan(emails, needle, limit),
      );
    }
    if (scan(emails, needle, 1).length > 0) found++;
  }
  expect(found, 'fragments found').toBeGreaterThan(rounds / 2); // not a comparison of empty answers
}

describe('TrigramIndex', () => {
  it('answers like a linear scan, built in one pass, over lists of many blocks', () => {
    const next = random(27);
    const emails = new Map<number, string>();
    // Every email holds `u` and `@ex`: those lists span several blocks.
    for (let id = 1; id <= 4 * BLOCK_LOAD; id++) emails.set(id * 3, `user${id}.${randomEmail(next)}`);
    const index = TrigramIndex.of([...emails].map(([id, email]) => ({ id, email })));
    compare(index, emails, next, 400);
  });

  it('answers like a linear scan after single adds, removes and changed emails', () => {
    const next = random(28);
    const emails = new Map<number, string>();
    const index = new TrigramIndex();
    for (let id = 1; id <= 3 * BLOCK_LOAD; id++) {
      const email = `user${id}.${randomEmail(next)}`;
      emails.set(id, email);
      index.add(id, email);
    }
    for (let write = 0; write < 2000; write++) {
      const id = 1 + Math.floor(next() * 3 * BLOCK_LOAD);
      const old = emails.get(id);
      if (old !== undefined) index.remove(id, old);
      if (next() < 0.3) emails.delete(id);
      else {
        const email = next() < 0.5 ? randomEmail(next) : `user${id}.${randomEmail(next)}`;
        emails.set(id, email);
        index.add(id, email);
      }
    }
    compare(index, emails, next, 400);
  });

  it('finds digit runs by their 4-digit substrings and confirms the whole run (hand-checked)', () => {
    const all = (): boolean => true;
    const emails = ['a12345@x.io', 'b1234.2345@x.io', 'c123x234@x.io', 'd9912345@x.io'];
    const index = TrigramIndex.of(emails.map((email, i) => ({ id: i + 1, email })));
    const exact = (needle: string) => (id: number) => (emails[id - 1] as string).includes(needle);
    expect(index.search('12345', 10, exact('12345'))).toEqual([1, 4]);
    // Both 4-grams of `12345` are in b's email, the run is not: the candidate is not confirmed.
    expect(index.search('12345', 10, all)).toEqual([1, 2, 4]);
    // c holds the trigrams of `1234` but not the 4-gram: not even a candidate.
    expect(index.search('1234', 10, all)).toEqual([1, 2, 4]);
    expect(index.search('123', 10, all)).toEqual([1, 2, 3, 4]);
    // 1- and 2-character fragments come from the trigrams' prefixes only, never a 4-gram's list.
    expect(index.search('12', 10, all)).toEqual([1, 2, 3, 4]);
    expect(index.search('99', 10, all)).toEqual([4]);
    index.remove(4, 'd9912345@x.io');
    index.remove(1, 'a12345@x.io');
    expect(index.search('12345', 10, all)).toEqual([2]);
    expect(index.search('9912', 10, all)).toEqual([]);
    expect(index.search('9', 10, all)).toEqual([]);
    index.add(5, 'E99123@X.IO');
    expect(index.search('9912', 10, all)).toEqual([5]);
    expect(index.search('9', 10, all)).toEqual([5]);
  });

  it('confirms every candidate when the lists it skips (those of most users) would have rejected some', () => {
    const emails = ['user1@x.io', 'user2@x.io', 'user3@x.io', 'xer1@x.io'];
    const index = TrigramIndex.of(emails.map((email, i) => ({ id: i + 1, email })));
    const exact = (needle: string) => (id: number) => (emails[id - 1] as string).includes(needle);
    // `ser` holds 3 of 4 users and is not probed; `er1` leads; the substring test drops `xer1@`.
    expect(index.search('ser1@', 10, exact('ser1@'))).toEqual([1]);
    expect(index.search('ser1@', 10, () => true)).toEqual([1, 4]);
    // A remove of an id never indexed changes neither answers nor the yardstick.
    index.remove(42, 'user42@x.io');
    expect(index.search('ser1@', 10, exact('ser1@'))).toEqual([1]);
    expect(index.search('user', 10, exact('user'))).toEqual([1, 2, 3]);
  });
});
