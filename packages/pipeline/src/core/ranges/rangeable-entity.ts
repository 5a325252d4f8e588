/**
 * Entities of known length that the pipeline can answer in byte ranges (RFC 9110 §14): a file
 * ({@link FileBody}) or bytes in memory ({@link BytesBody}). A resource returns one; the writer of
 * these types and the response step (core/stages/send-ranges.ts) do the rest. See docs/ranges.md.
 */
import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { EntityTag } from '../http/entity-tag.js';

/**
 * Reads bytes of an opened {@link RangeableEntity}, once per response: one or more slices, then
 * `close()` (always called, also when the client goes away).
 */
export interface ByteReader {
  /** Bytes `start` (inclusive) to `end` (exclusive), `0 <= start < end <= length`. */
  slice(start: number, end: number): Readable | Uint8Array;
  /** Releases what `open()` took (a file descriptor); called once. */
  close(): void;
}

/**
 * Content of known length that can be read from any offset: the entity type the pipeline answers
 * with `Accept-Ranges: bytes`, a 206 for a `Range` request, and the validators it states
 * (`ETag`, `Last-Modified`, unless the response already has them). Subclass it for other stores
 * (an object store, a blob column): give `length` and `open()`.
 * @example
 * \@GET() report(): Promise<FileBody> { return FileBody.fromPath('/srv/reports/2026.pdf'); }
 */
export abstract class RangeableEntity {
  /** Size in bytes. */
  abstract readonly length: number;
  /** `Last-Modified` of the content, when known (sent in whole seconds). */
  abstract readonly lastModified: Date | undefined;
  /** `ETag` of the content, when known; only a strong tag lets `If-Range` match (RFC 9110 §13.1.5). */
  abstract readonly entityTag: EntityTag | undefined;
  /**
   * Opens the content for one response, after the pipeline chose what to send and before the
   * headers go out, so a failure here is still an error response. Not called for HEAD.
   */
  abstract open(): ByteReader | Promise<ByteReader>;
}

/** Options of {@link FileBody.fromPath}. */
export interface FileBodyOptions {
  /** The entity tag; default a strong tag made of the file's size and modification time (as nginx does). */
  readonly entityTag?: EntityTag;
  /** Modification time to state; default the file's. */
  readonly lastModified?: Date;
}

/**
 * A file on disk, statted once by {@link FileBody.fromPath}; it holds no descriptor until the
 * response is sent. Each response opens it, checks by `fstat` that it is still the statted file
 * (same size and modification time: otherwise the headers would lie) and reads only the bytes the
 * ranges select.
 * @example
 * \@GET('{name}') async download(@PathParam('name') name: string): Promise<Response> {
 *   const file = await FileBody.fromPath(join(ROOT, safeName(name)));
 *   return Response.ok(file, 'application/pdf').build();
 * }
 */
export class FileBody extends RangeableEntity {
  readonly length: number;
  readonly lastModified: Date | undefined;
  readonly entityTag: EntityTag | undefined;

  private constructor(
    /** The file's path, as given. */
    readonly path: string,
    length: number,
    private readonly mtimeMs: number,
    options: FileBodyOptions,
  ) {
    super();
    this.length = length;
    this.lastModified = options.lastModified ?? new Date(mtimeMs);
    this.entityTag = options.entityTag ?? new EntityTag(`${length.toString(16)}-${Math.floor(mtimeMs).toString(16)}`);
  }

  /**
   * Stats `path` once: size, modification time and the default tag. Rejects (ENOENT, EACCES...)
   * before the resource answers, so a missing file is the resource's error, not a broken response;
   * a path that is not a regular file is a TypeError.
   */
  static async fromPath(path: string, options: FileBodyOptions = {}): Promise<FileBody> {
    const st = await stat(path);
    if (!st.isFile()) throw new TypeError(`FileBody.fromPath: ${path} is not a regular file`);
    return new FileBody(path, st.size, st.mtimeMs, options);
  }

  async open(): Promise<ByteReader> {
    const handle = await open(this.path, 'r');
    try {
      const st = await handle.stat();
      if (st.size !== this.length || st.mtimeMs !== this.mtimeMs) {
        throw new Error(`FileBody: ${this.path} changed after it was statted (${this.length} bytes then, ${st.size} now)`);
      }
    } catch (e) {
      await handle.close();
      throw e;
    }
    return new FileReader(handle);
  }
}

/** Slices of an open file; the descriptor stays open until `close()`. */
class FileReader implements ByteReader {
  private closed = false;
  constructor(private readonly handle: FileHandle) {}

  slice(start: number, end: number): Readable {
    // autoClose false: several slices share the descriptor, closed once by close().
    return this.handle.createReadStream({ start, end: end - 1, autoClose: false });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.handle.close().catch(() => undefined);
  }
}

/** Options of {@link BytesBody}. */
export interface BytesBodyOptions {
  /**
   * The entity tag; default none. `true` computes a strong tag from the bytes (SHA-256, once, when
   * the body is made), so that `If-Range` can match.
   */
  readonly entityTag?: EntityTag | true;
  readonly lastModified?: Date;
}

/**
 * Bytes in memory as a rangeable entity (a generated archive, a cached file).
 * @example
 * return Response.ok(new BytesBody(pdfBytes, { entityTag: true }), 'application/pdf').build();
 */
export class BytesBody extends RangeableEntity {
  readonly length: number;
  readonly lastModified: Date | undefined;
  readonly entityTag: EntityTag | undefined;

  constructor(
    /** The content (not copied: do not change it while it is being sent). */
    readonly bytes: Uint8Array,
    options: BytesBodyOptions = {},
  ) {
    super();
    this.length = bytes.byteLength;
    this.lastModified = options.lastModified;
    const tag = options.entityTag;
    this.entityTag = tag === true ? new EntityTag(createHash('sha256').update(bytes).digest('base64url').slice(0, 27)) : tag;
  }

  open(): ByteReader {
    const bytes = this.bytes;
    return { slice: (start, end) => bytes.subarray(start, end), close: noop };
  }
}

const noop = (): void => {};
