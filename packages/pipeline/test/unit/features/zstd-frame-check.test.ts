// The zstd frame walk that finds truncated bodies on Nodes whose zstd decoder does not (Node 22):
// handmade frames (RFC 8878 §3.1.1) run on every Node; real ones where node:zlib has zstd.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ZSTD_AVAILABLE } from '../../../src/features/content-coding/codings.js';
import { ZstdFrameCheck } from '../../../src/features/content-coding/zstd-frame-check.js';

/** Passes `bytes` through a check in chunks of `chunk` bytes: the bytes out, or the error. */
async function check(bytes: Buffer, chunk = bytes.length || 1): Promise<Buffer | Error> {
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunk) parts.push(bytes.subarray(i, i + chunk));
  const out: Buffer[] = [];
  try {
    await pipeline(Readable.from(parts), new ZstdFrameCheck(), async (source: AsyncIterable<Buffer>) => {
      for await (const b of source) out.push(b);
    });
    return Buffer.concat(out);
  } catch (error) {
    return error as Error;
  }
}

const MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);
/** A single-segment frame with a one-byte content size and one raw block holding `content`. */
const rawFrame = (content: Buffer, checksum = false): Buffer => {
  const block = (content.length << 3) | 1; // last, raw
  return Buffer.concat([
    MAGIC,
    Buffer.from([0x20 | (checksum ? 0x04 : 0), content.length]),
    Buffer.from([block & 0xff, (block >> 8) & 0xff, (block >> 16) & 0xff]),
    content,
    checksum ? Buffer.from([1, 2, 3, 4]) : Buffer.alloc(0),
  ]);
};
const skippable = (content: Buffer): Buffer => Buffer.concat([Buffer.from([0x50, 0x2a, 0x4d, 0x18, content.length, 0, 0, 0]), content]);

describe('ZstdFrameCheck', () => {
  const first = rawFrame(Buffer.from('a'));
  const skip = skippable(Buffer.from('xyz'));
  // [name, bytes, the lengths at which a cut leaves whole frames]
  const whole: Array<[string, Buffer, number[]]> = [
    ['one raw block', rawFrame(Buffer.from('hello')), []],
    ['with a checksum', rawFrame(Buffer.from('hello'), true), []],
    [
      'two frames and a skippable one',
      Buffer.concat([first, skip, rawFrame(Buffer.from('b'), true)]),
      [first.length, first.length + skip.length],
    ],
  ];

  it.each(whole)('%s: passed through unchanged, in any chunking', async (_, frame) => {
    for (const chunk of [1, 2, 3, 7, frame.length]) expect(await check(frame, chunk)).toEqual(frame);
  });

  it.each(whole)('%s, cut anywhere inside a frame: Z_BUF_ERROR at the end', async (_, frame, boundaries) => {
    for (let cut = 0; cut < frame.length; cut++) {
      const result = await check(frame.subarray(0, cut), 2);
      if (boundaries.includes(cut)) {
        // Whole frames: a shorter body, but not a truncated one.
        expect(result, `cut at ${cut}`).toEqual(frame.subarray(0, cut));
        continue;
      }
      expect(result, `cut at ${cut}`).toBeInstanceOf(Error);
      expect((result as Error & { code?: string }).code).toBe('Z_BUF_ERROR');
    }
  });

  it('not zstd: passed through, left to the decoder to refuse', async () => {
    const bytes = Buffer.from('not a zstd frame at all');
    expect(await check(bytes)).toEqual(bytes);
  });

  it.skipIf(!ZSTD_AVAILABLE)('real frames of node:zlib (several blocks, a checksum), whole and cut', async () => {
    const compress: unknown = Reflect.get(zlib, 'zstdCompressSync');
    const checksumFlag: unknown = Reflect.get(zlib.constants, 'ZSTD_c_checksumFlag');
    const encode = compress as (input: Buffer, options?: { params?: Record<number, number> }) => Buffer;
    const input = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 31) % 251));
    for (const frame of [encode(input), encode(input, { params: { [checksumFlag as number]: 1 } })]) {
      expect(await check(frame, 4096)).toEqual(frame);
      for (const cut of [1, 5, 100, frame.length - 1]) expect(await check(frame.subarray(0, cut), 4096)).toBeInstanceOf(Error);
    }
  });
});
