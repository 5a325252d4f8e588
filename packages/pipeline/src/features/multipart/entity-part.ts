import { isUtf8 } from 'node:buffer';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BadRequestError } from '../../core/http/errors.js';
import { mediaTypeString, parseMediaType, type MediaType } from '../../core/http/media-type.js';
import { FORM_PART_TYPE } from '../../core/internal/form-fields.js';
import { BodyErrorCode, unsupportedCharset } from '../../providers/body-errors.js';
import { parseJsonBody } from '../../providers/json.js';
import { charsetOf, encodingOf } from '../../providers/type-tokens.js';
import { safeFilename } from './filename.js';

/** Options of {@link EntityPart.of}. */
export interface EntityPartOptions {
  /** Sent as the part's `filename` parameter (`Content-Disposition`). */
  filename?: string;
  /**
   * The part's media type. Default: `text/plain; charset=utf-8` for a string, `application/json`
   * for an object (written by the application's writer for that type), `application/octet-stream`
   * for bytes and streams.
   */
  mediaType?: string | MediaType;
  /** More part headers (`Content-Disposition` and `Content-Type` are made from the other options). */
  headers?: Record<string, string>;
}

/** What a part is made of; see the {@link EntityPart} constructor. */
export interface EntityPartInit {
  readonly name: string;
  readonly filename: string | undefined;
  readonly mediaType: MediaType;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** A file part (streamed, `partSize`) rather than a text field (`fieldSize`). */
  readonly isFile: boolean;
  /** Opens the content; called once, on first use of {@link EntityPart.content}. */
  readonly open: () => Readable;
  /** A text field's value as the parser decoded it: {@link EntityPart.text} returns it as is. */
  readonly text?: string | undefined;
  /** The value given to {@link EntityPart.of}. */
  readonly entity?: unknown;
}

const TEXT_PLAIN_UTF8 = parseMediaType('text/plain; charset=utf-8')!;
const APPLICATION_JSON = parseMediaType('application/json')!;
const OCTET_STREAM = parseMediaType('application/octet-stream')!;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[^\u0000\r\n]*$/;

/**
 * One part of a multipart entity (Jakarta REST 3.1 §4.2 `EntityPart`): a part read from a
 * `multipart/form-data` request (see `MultipartBody`, `@FormParam`), or one made with
 * {@link EntityPart.of} to be written by `MultipartWriter`.
 *
 * A part read from a request streams: {@link content} delivers the bytes as they arrive, with
 * backpressure on the socket, and nothing is held whole unless {@link buffer}, {@link text} or
 * {@link json} is asked for (bounded by the part limits). Read a part before asking for the next
 * one; one not read by then is drained. Destroying {@link content} drains the rest of the part.
 *
 * @example
 * \@POST() @Path('avatar')
 * async avatar(@FormParam('image') image: EntityPart, @FormParam('alt') alt: string) {
 *   const bytes = await image.pipeTo(createWriteStream(join(dir, randomUUID())));
 *   return { name: image.safeFilename, type: image.mediaType.essence, bytes, alt };
 * }
 */
export class EntityPart {
  /** Makes `@FormParam('x') x: EntityPart` receive the part itself (see `FORM_PART_TYPE`). */
  static readonly [FORM_PART_TYPE] = true;

  /** The part's `name` (`Content-Disposition`). */
  readonly name: string;
  /**
   * The `filename` as sent (`filename*` per RFC 8187 wins; raw UTF-8 is read as UTF-8), path
   * included: display it, never use it as a path. `undefined` for a text field.
   */
  readonly filename: string | undefined;
  /** {@link filename} made safe as one path segment (see `safeFilename`); `undefined` when none is left. */
  readonly safeFilename: string | undefined;
  /** The part's `Content-Type`, parameters included; `text/plain` when absent (RFC 7578 §4.4). */
  readonly mediaType: MediaType;
  /** The part's headers, names in lower case (a repeated header's values joined with `, `). */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * A file part: it has a filename (or is `application/octet-stream`) and streams, bounded by
   * `partSize`; otherwise a text field, read whole by the parser, bounded by `fieldSize`.
   */
  readonly isFile: boolean;
  /** The value given to {@link EntityPart.of}; `undefined` for a part read from a request. */
  readonly entity: unknown;
  private readonly open: () => Readable;
  private readonly fieldText: string | undefined;
  private stream: Readable | undefined;

  /** Parts are made by the multipart reader and by {@link EntityPart.of}. */
  constructor(init: EntityPartInit) {
    this.name = init.name;
    this.filename = init.filename;
    this.safeFilename = safeFilename(init.filename);
    this.mediaType = init.mediaType;
    this.headers = init.headers;
    this.isFile = init.isFile;
    this.entity = init.entity;
    this.open = init.open;
    this.fieldText = init.text;
    this.stream = undefined;
  }

  /**
   * A part to write (`MultipartWriter`): `value` is a string, bytes, a `Readable`, or any other
   * value, which is written by the application's writer for its type and the part's media type
   * (JSON by default). Names and filenames are escaped as the HTML form encoder does (`"` → `%22`,
   * CR → `%0D`, LF → `%0A`); header values with CR, LF or NUL are refused with a `TypeError`.
   *
   * @example
   * return [EntityPart.of('meta', { id: 7 }), EntityPart.of('file', createReadStream(path), { filename: 'a.pdf', mediaType: 'application/pdf' })];
   */
  static of(name: string, value: unknown, options: EntityPartOptions = {}): EntityPart {
    if (typeof name !== 'string') throw new TypeError('EntityPart.of: the name must be a string');
    const mediaType = partMediaType(value, options.mediaType);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(options.headers ?? {})) {
      if (!HEADER_NAME.test(k) || typeof v !== 'string' || !HEADER_VALUE.test(v)) {
        throw new TypeError(`EntityPart.of('${name}'): header ${JSON.stringify(k)} is not a valid header name and value`);
      }
      headers[k.toLowerCase()] = v;
    }
    headers['content-type'] = mediaTypeString(mediaType);
    return new EntityPart({
      name,
      filename: options.filename,
      mediaType,
      headers,
      isFile: options.filename !== undefined,
      entity: value,
      text: typeof value === 'string' ? value : undefined,
      open: () => contentOf(value),
    });
  }

  /** The part's bytes as a stream (opened on first use; read it once). */
  get content(): Readable {
    this.stream ??= this.open();
    return this.stream;
  }

  /** The whole part in memory (bounded by the part limits for a part read from a request). */
  async buffer(): Promise<Buffer> {
    if (this.fieldText !== undefined && this.stream === undefined) return Buffer.from(this.fieldText, 'utf8');
    const chunks: Buffer[] = [];
    for await (const chunk of this.content) chunks.push(chunk as Buffer);
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  }

  /**
   * The part as text in its charset (UTF-8 when none; US-ASCII and ISO-8859-1 too, else 415);
   * bytes that are not valid in it are 400 `PIPE_INVALID_TEXT`.
   */
  async text(): Promise<string> {
    if (this.fieldText !== undefined && this.stream === undefined) return this.fieldText;
    const charset = charsetOf(this.mediaType);
    const encoding = encodingOf(charset);
    if (encoding === undefined) throw unsupportedCharset(charset!, this.mediaType);
    const bytes = await this.buffer();
    if (encoding === 'utf8') {
      if (!isUtf8(bytes)) throw invalidText(this.name, 'UTF-8');
      return bytes.toString('utf8');
    }
    if (encoding === 'ascii' && bytes.some((b) => b > 0x7f)) throw invalidText(this.name, 'US-ASCII');
    return bytes.toString('latin1');
  }

  /** The part parsed as JSON (with the JSON reader's safety checks; 400 `PIPE_INVALID_JSON`). */
  async json<T = unknown>(): Promise<T> {
    return parseJsonBody(await this.buffer()) as T;
  }

  /**
   * Streams the part into `destination` with backpressure and resolves with the byte count once
   * `destination` has finished; on any failure both streams are destroyed and it rejects.
   */
  async pipeTo(destination: Writable, options: { signal?: AbortSignal } = {}): Promise<number> {
    let bytes = 0;
    const content = this.content;
    const count = (chunk: Buffer): void => {
      bytes += chunk.length;
    };
    content.on('data', count);
    try {
      await pipeline(content, destination, options);
    } finally {
      content.removeListener('data', count);
    }
    return bytes;
  }

  /** Reads the part to its end, keeping nothing (the part limits still apply). */
  async skip(): Promise<void> {
    const content = this.content;
    if (content.readableEnded) return;
    for await (const _ of content) {
      // discarded
    }
  }
}

function invalidText(name: string, charset: string): BadRequestError {
  return new BadRequestError(`Part '${name}' is not valid ${charset} text`, { code: BodyErrorCode.InvalidText });
}

function partMediaType(value: unknown, given: string | MediaType | undefined): MediaType {
  if (given !== undefined) {
    const mt = typeof given === 'string' ? parseMediaType(given) : given;
    if (mt === undefined || mt.type === '*' || mt.subtype === '*') {
      throw new TypeError(`EntityPart.of: invalid media type ${typeof given === 'string' ? `'${given}'` : given.essence}`);
    }
    return mt;
  }
  if (typeof value === 'string') return TEXT_PLAIN_UTF8;
  if (value instanceof Uint8Array || value instanceof Readable) return OCTET_STREAM;
  return APPLICATION_JSON;
}

/** The bytes of a value given to {@link EntityPart.of} (objects as JSON when read directly). */
function contentOf(value: unknown): Readable {
  if (value instanceof Readable) return value;
  if (typeof value === 'string') return Readable.from([Buffer.from(value, 'utf8')]);
  if (value instanceof Uint8Array) return Readable.from([Buffer.from(value.buffer, value.byteOffset, value.byteLength)]);
  return Readable.from([Buffer.from(JSON.stringify(value) ?? 'null', 'utf8')]);
}
