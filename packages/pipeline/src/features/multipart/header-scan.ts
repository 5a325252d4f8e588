import { limitExceeded, MultipartErrorCode } from './errors.js';

const enum State {
  /** Looking for the next delimiter (`CRLF--boundary`). */
  Body,
  /** Just after a delimiter: `--` ends the body, `CRLF` starts a header block. */
  AfterDelimiter,
  /** Inside a part's header block, up to the blank line. */
  Headers,
  /** After the closing delimiter: the epilogue, passed through unread. */
  Epilogue,
}

const CR = 13;
const LF = 10;
const DASH = 45;

/**
 * Finds each part's header block in the bytes on their way to busboy, as busboy will (the body is
 * read as if preceded by CRLF; a delimiter followed by anything but `--` or CRLF is data): a block
 * above `headerSize` throws 413 (busboy's own cap is a fixed 16 KiB, reported as malformed), and
 * each complete block is handed to `onHeaders`, so parts keep every header, which busboy does not
 * report. The delimiter is found with `Buffer.indexOf` over whole chunks; only header bytes are
 * looked at one by one.
 */
export class HeaderScan {
  private readonly delimiter: Buffer;
  private state = State.Body;
  /** The last bytes of the previous chunk that may begin a delimiter (starts as the implied CRLF). */
  private tail: Buffer = Buffer.from('\r\n');
  /** AfterDelimiter: bytes seen after the delimiter (0, or 1 with {@link first}). */
  private afterCount = 0;
  private first = 0;
  /** Headers: bytes of the block so far, and how much of CRLF CRLF has been matched. */
  private headerBytes = 0;
  private blankMatch = 2;
  private block: Buffer[] = [];

  constructor(
    boundary: string,
    private readonly headerSize: number,
    private readonly onHeaders: (block: Buffer) => void,
  ) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  }

  /** Looks at the next chunk of the body; throws the 413 for a header block above the limit. */
  scan(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      switch (this.state) {
        case State.Epilogue:
          return;
        case State.Body: {
          const end = this.findDelimiter(chunk, at);
          if (end < 0) return;
          at = end;
          this.state = State.AfterDelimiter;
          this.afterCount = 0;
          break;
        }
        case State.AfterDelimiter:
          at = this.afterDelimiter(chunk, at);
          break;
        case State.Headers:
          at = this.headers(chunk, at);
          break;
      }
    }
  }

  /** The offset just past the next delimiter, or -1 (keeping the bytes that may start one). */
  private findDelimiter(chunk: Buffer, from: number): number {
    const d = this.delimiter;
    const keep = d.length - 1;
    const tail = this.tail;
    if (tail.length > 0) {
      this.tail = EMPTY;
      // A delimiter that began in the previous chunk.
      const joint = Buffer.concat([tail, chunk.subarray(from, from + keep)]);
      const i = joint.indexOf(d);
      if (i >= 0) return from + i + d.length - tail.length;
      if (chunk.length - from < keep) {
        this.tail = Buffer.from(joint.subarray(Math.max(0, joint.length - keep)));
        return -1;
      }
    }
    const i = chunk.indexOf(d, from);
    if (i >= 0) return i + d.length;
    this.tail = Buffer.from(chunk.subarray(Math.max(from, chunk.length - keep)));
    return -1;
  }

  private afterDelimiter(chunk: Buffer, at: number): number {
    const c = chunk[at]!;
    if (this.afterCount === 0) {
      if (c !== DASH && c !== CR) return this.notADelimiter(at);
      this.first = c;
      this.afterCount = 1;
      return at + 1;
    }
    if (this.first === DASH) {
      if (c !== DASH) return this.notADelimiter(at);
      this.state = State.Epilogue;
      return chunk.length;
    }
    if (c !== LF) return this.notADelimiter(at);
    this.state = State.Headers;
    this.headerBytes = 0;
    this.blankMatch = 2; // the CRLF that ended the delimiter line counts towards CRLF CRLF
    this.block = [];
    return at + 1;
  }

  /** busboy treats the delimiter as data then, and searches on from the byte after it. */
  private notADelimiter(at: number): number {
    this.state = State.Body;
    if (this.afterCount === 0) return at;
    if (at > 0) return at - 1;
    this.tail = Buffer.from([this.first]); // that byte came at the end of the previous chunk
    return at;
  }

  private headers(chunk: Buffer, at: number): number {
    let i = at;
    for (; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (++this.headerBytes > this.headerSize) {
        throw limitExceeded(MultipartErrorCode.HeaderTooLarge, `A part's headers exceed the limit of ${this.headerSize} bytes`);
      }
      if (c === CR) this.blankMatch = this.blankMatch === 2 ? 3 : 1;
      else if (c === LF && (this.blankMatch === 1 || this.blankMatch === 3)) this.blankMatch++;
      else this.blankMatch = 0;
      if (this.blankMatch === 4) {
        this.block.push(chunk.subarray(at, i + 1));
        this.onHeaders(Buffer.concat(this.block));
        this.block = [];
        this.state = State.Body;
        return i + 1;
      }
    }
    this.block.push(Buffer.from(chunk.subarray(at, i)));
    return i;
  }
}

const EMPTY = Buffer.alloc(0);
