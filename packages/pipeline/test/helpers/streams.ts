/**
 * Byte sources for the body tests that must tell how much of the input was read: a limit that
 * works stops pulling early, so `pulled()` shows the input was not drained behind the answer.
 */
import { Readable } from 'node:stream';

/** A Readable that also tells how many chunks were pulled from it. */
export type CountingSource = Readable & { pulled: () => number };

/**
 * A source that hands out `chunks` one per read() (highWaterMark 1, so nothing is read ahead)
 * and counts how many were pulled. With `end: false` it never ends once they run out: a body
 * whose end has not arrived, which only a limit or a declared length can stop reading.
 */
export function countingSource(chunks: Iterable<Buffer>, end = true): CountingSource {
  const next = chunks[Symbol.iterator]();
  let pulled = 0;
  const src = new Readable({
    highWaterMark: 1,
    read() {
      const c = next.next();
      if (c.done !== true) {
        pulled++;
        this.push(c.value);
      } else if (end) this.push(null);
    },
  });
  return Object.assign(src, { pulled: () => pulled });
}

/** `chunk`, `count` times (the same Buffer each time: nothing is copied). */
export function* repeated(chunk: Buffer, count: number): Generator<Buffer> {
  for (let i = 0; i < count; i++) yield chunk;
}
