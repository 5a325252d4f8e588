import { Transform, type TransformCallback } from 'node:stream';

/** The states of the frame walk: what the next bytes are. */
const enum Next {
  Magic,
  FrameHeader,
  BlockHeader,
  BlockBody,
  Checksum,
  SkippableSize,
  SkippableBody,
  /** Not a zstd frame: the decoder reports it; nothing more is checked. */
  Unknown,
}

const ZSTD_MAGIC = 0xfd2fb528;
const SKIPPABLE_MAGIC_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;

/**
 * Passes zstd bytes through unchanged and fails at the end when they stop inside a frame (or when
 * there is no frame at all), with a `Z_BUF_ERROR` "unexpected end of file" as zlib's decoders
 * report truncation. Needed only where the running Node's zstd decoder ends quietly on a truncated
 * frame (Node 22 does; 24 reports it): without it, a cut-off body would reach the reader as if it
 * were whole. It walks the frame structure of RFC 8878 §3.1.1 (frame header, block headers, the
 * optional checksum, skippable frames), skipping block contents, so it costs a few comparisons per
 * chunk.
 */
export class ZstdFrameCheck extends Transform {
  private next = Next.Magic;
  /** Bytes still to skip (block bodies) or to collect (headers) for the current state. */
  private needed = 4;
  /** Header bytes collected so far for the current state. */
  private header: number[] = [];
  private hasChecksum = false;
  /** The block being skipped is the frame's last. */
  private lastBlock = false;
  private frames = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    let i = 0;
    while (i < chunk.length && this.next !== Next.Unknown) {
      if (this.next === Next.BlockBody || this.next === Next.SkippableBody) {
        const skip = Math.min(this.needed, chunk.length - i);
        i += skip;
        this.needed -= skip;
        if (this.needed === 0) this.afterBody();
        continue;
      }
      const byte = chunk[i++] ?? 0;
      this.header.push(byte);
      if (this.next === Next.FrameHeader && this.header.length === 1) this.needed = 1 + frameHeaderRest(byte);
      if (this.header.length === this.needed) this.afterHeader();
    }
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    const complete = this.next === Next.Unknown || (this.next === Next.Magic && this.header.length === 0 && this.frames > 0);
    if (complete) return callback();
    const error = Object.assign(new Error('unexpected end of file'), { code: 'Z_BUF_ERROR' });
    callback(error);
  }

  private afterHeader(): void {
    const h = this.header;
    this.header = [];
    switch (this.next) {
      case Next.Magic: {
        const magic = ((h[0] ?? 0) | ((h[1] ?? 0) << 8) | ((h[2] ?? 0) << 16) | ((h[3] ?? 0) << 24)) >>> 0;
        if (magic === ZSTD_MAGIC) this.expect(Next.FrameHeader, 1);
        else if ((magic & SKIPPABLE_MAGIC_MASK) >>> 0 === SKIPPABLE_MAGIC) this.expect(Next.SkippableSize, 4);
        else this.next = Next.Unknown;
        return;
      }
      case Next.FrameHeader:
        this.hasChecksum = ((h[0] ?? 0) & 0x04) !== 0;
        return this.expect(Next.BlockHeader, 3);
      case Next.BlockHeader: {
        const value = (h[0] ?? 0) | ((h[1] ?? 0) << 8) | ((h[2] ?? 0) << 16);
        const last = (value & 1) === 1;
        const type = (value >> 1) & 3;
        const size = value >>> 3;
        if (type === 3) {
          this.next = Next.Unknown; // reserved: the decoder reports it
          return;
        }
        const body = type === 1 ? 1 : size;
        this.lastBlock = last;
        if (body === 0) return this.afterBody();
        return this.expect(Next.BlockBody, body);
      }
      case Next.Checksum:
        return this.frameDone();
      case Next.SkippableSize: {
        const size = ((h[0] ?? 0) | ((h[1] ?? 0) << 8) | ((h[2] ?? 0) << 16) | ((h[3] ?? 0) << 24)) >>> 0;
        if (size === 0) return this.frameDone();
        return this.expect(Next.SkippableBody, size);
      }
      default:
        return;
    }
  }

  private afterBody(): void {
    if (this.next === Next.SkippableBody) return this.frameDone();
    if (!this.lastBlock) return this.expect(Next.BlockHeader, 3);
    if (this.hasChecksum) return this.expect(Next.Checksum, 4);
    this.frameDone();
  }

  private frameDone(): void {
    this.frames++;
    this.expect(Next.Magic, 4);
  }

  private expect(next: Next, bytes: number): void {
    this.next = next;
    this.needed = bytes;
    this.header = [];
  }
}

/**
 * Bytes of the frame header after its descriptor (RFC 8878 §3.1.1.1): the window descriptor
 * (unless single-segment), the dictionary id (0, 1, 2 or 4 bytes) and the content size (0 or 1
 * when single-segment, 2, 4 or 8).
 */
function frameHeaderRest(descriptor: number): number {
  const singleSegment = (descriptor & 0x20) !== 0;
  const dictionary = [0, 1, 2, 4][descriptor & 3] ?? 0;
  const fcsFlag = descriptor >> 6;
  const contentSize = fcsFlag === 0 ? (singleSegment ? 1 : 0) : ([0, 2, 4, 8][fcsFlag] ?? 0);
  return (singleSegment ? 0 : 1) + dictionary + contentSize;
}
