/**
 * A deterministic pseudo-random generator (mulberry32) for the tests that draw many inputs: the
 * same seed gives the same sequence, so a failure reproduces.
 */

/** A generator of numbers in [0, 1), seeded with `seed`. */
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
