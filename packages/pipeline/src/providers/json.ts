import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import { BadRequestError } from '../core/http/errors.js';
import type { MediaType } from '../core/http/media-type.js';
import type { Body, MessageBodyReader, MessageBodyWriter, ReadContext, TypeToken, WriteContext } from '../core/context/contracts.js';
import { BodyErrorCode, unsupportedCharset } from './body-errors.js';
import { exceedsDepth, findUnsafeJson } from './json-safety.js';
import { JsonOptions, replacerFor } from './json-options.js';
import { readBodyInto } from './read-body.js';
import { readsInto } from '../core/internal/readers.js';
import { charsetOf, encodingOf, isBinaryType, isJsonMediaType, isRangeableType, isRawType, isStreamType } from './type-tokens.js';

export { JsonOptions } from './json-options.js';

/** Default bound on request JSON nesting; real payloads stay below 20. */
export const DEFAULT_MAX_JSON_DEPTH = 256;

/**
 * Reads `application/json` and any `+json` type (RFC 6839) into a plain value.
 *
 * - EMPTY BODY POLICY: zero bytes (after an optional UTF-8 BOM) give `undefined`, so the
 *   lifecycle alone decides whether the entity was required (real clients send empty JSON
 *   POSTs). Whitespace only is NOT empty: it is invalid JSON, 400.
 * - Only UTF-8 (RFC 8259 §8.1): a `charset` other than utf-8 is 415 before any byte is read;
 *   bytes that are not valid UTF-8 are 400 instead of being silently replaced with U+FFFD.
 * - 400 for invalid JSON (the message never echoes the input), for nesting deeper than
 *   `maxDepth`, for `__proto__` / `constructor.prototype` keys, for numbers that overflow to
 *   Infinity. Duplicate keys: the last one wins (`JSON.parse` semantics).
 * - Raw types (Buffer, Readable, URLSearchParams) are left to their own readers.
 */
export class JsonReader implements MessageBodyReader<unknown> {
  readonly name = 'JsonReader';
  /** Concrete types only: `+json` suffixes are matched by {@link JsonReader.isReadable}. */
  readonly consumes: readonly string[] = ['application/json'];
  readonly maxDepth: number;

  constructor(options: { maxDepth?: number } = {}) {
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  }

  isReadable(type: TypeToken, mediaType: MediaType | undefined): boolean {
    return mediaType !== undefined && isJsonMediaType(mediaType) && !isRawType(type);
  }

  /**
   * Not `async`: one promise per body, the bytes parsed inside it (issue 27). Every failure is a
   * rejection. Without reader interceptors the lifecycle calls its callback twin instead (no
   * promise at all); a subclass that overrides this method is called as written.
   */
  readFrom(_type: TypeToken, mediaType: MediaType | undefined, input: Readable, ctx: ReadContext): Promise<unknown> {
    return new Promise((resolve, reject) => this.readInto(mediaType, input, ctx, resolve, reject));
  }

  static {
    // The function itself is the key (never called unbound): a subclass overriding readFrom has another.
    // eslint-disable-next-line typescript/unbound-method
    readsInto(JsonReader.prototype.readFrom, (reader, _type, mediaType, input, ctx, done, fail) =>
      (reader as JsonReader).readInto(mediaType, input, ctx, done, fail),
    );
  }

  /** {@link JsonReader.readFrom} answered to `done` or `fail`: a charset other than UTF-8 fails at once (415). */
  private readInto(
    mediaType: MediaType | undefined,
    input: Readable,
    ctx: ReadContext,
    done: (value: unknown) => void,
    fail: (reason: unknown) => void,
  ): void {
    const charset = charsetOf(mediaType);
    if (charset !== undefined && encodingOf(charset) !== 'utf8') {
      fail(unsupportedCharset(charset, mediaType as MediaType));
      return;
    }
    readBodyInto(input, ctx.limit, ctx.contentLength, this.parse, done, fail);
  }

  /** {@link parseJsonBody} with this reader's depth bound, made once per reader (no closure per request). */
  private readonly parse = (bytes: Buffer): unknown => parseJsonBody(bytes, this.maxDepth);
}

/**
 * Parses request JSON bytes with every check of {@link JsonReader}; `undefined` for an empty body.
 * @example parseJsonBody(Buffer.from('{"a":1}')) // { a: 1 }
 */
export function parseJsonBody(bytes: Buffer, maxDepth = DEFAULT_MAX_JSON_DEPTH): unknown {
  if (bytes.length === 0) return undefined;
  // RFC 8259 §8.1: a parser MAY ignore a byte order mark; JSON.parse would reject it.
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  // No arguments: Buffer's toString goes straight to the UTF-8 decoder (no encoding lookup, no range checks).
  const text = start === 0 ? bytes.toString() : bytes.toString('utf8', start);
  // Decoding replaces every invalid UTF-8 sequence with U+FFFD (the WHATWG decoder's rule), so a
  // text without one came from valid UTF-8: the usual body (ASCII, held one byte per character)
  // answers `indexOf` without a scan. With one, the bytes decide: a valid body may hold U+FFFD.
  if (text.indexOf('\uFFFD') !== -1 && !isUtf8(bytes)) throw invalidJson('the body is not valid UTF-8');
  if (start === bytes.length) return undefined;
  if (exceedsDepth(bytes, maxDepth)) {
    throw new BadRequestError(`JSON nesting exceeds ${maxDepth} levels`, { code: BodyErrorCode.TooDeep });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw invalidJson(describeSyntaxError(err));
  }
  const problem = findUnsafeJson(value);
  if (problem === BodyErrorCode.ForbiddenKey) {
    throw new BadRequestError('JSON keys "__proto__" and "constructor.prototype" are not allowed', { code: problem });
  }
  if (problem === BodyErrorCode.NonFiniteNumber) {
    throw new BadRequestError('JSON number out of range', { code: problem });
  }
  return value;
}

function invalidJson(detail: string): BadRequestError {
  return new BadRequestError(`Invalid JSON: ${detail}`, { code: BodyErrorCode.InvalidJson });
}

/**
 * V8's messages quote the input (`Unexpected token 'x', "xxxxxxxxxx"... is not valid JSON`):
 * keep only the kind of error and the position, never the client's bytes.
 */
function describeSyntaxError(err: unknown): string {
  const message = err instanceof Error ? err.message : '';
  if (message.startsWith('Unexpected end')) return 'unexpected end of input';
  const at = /position (\d+)/.exec(message);
  return at === null ? 'syntax error' : `syntax error at position ${at[1]}`;
}

/**
 * Writes any value as `application/json` or a `+json` type, in UTF-8 (the lifecycle sets the
 * `Content-Type`). Without options this is one `JSON.stringify` returning a string. With a
 * {@link JsonOptions} from the resolver (a JAX-RS `ContextResolver<JsonOptions>` bridged by the
 * lifecycle) indentation, date format, null omission and a user replacer apply.
 *
 * Serialization errors (cycles, BigInt) propagate: they are server bugs, mapped to 500.
 */
export class JsonWriter implements MessageBodyWriter<unknown> {
  readonly name = 'JsonWriter';
  /** Concrete types only: `+json` suffixes are matched by {@link JsonWriter.isWriteable}. */
  readonly produces: readonly string[] = ['application/json'];
  private readonly resolve: ((type: TypeToken) => JsonOptions | undefined) | undefined;

  constructor(resolve?: (type: TypeToken) => JsonOptions | undefined) {
    this.resolve = resolve;
  }

  isWriteable(type: TypeToken, mediaType: MediaType): boolean {
    if (!isJsonMediaType(mediaType)) return false;
    const charset = charsetOf(mediaType);
    if (encodingOf(charset) !== 'utf8') return false;
    // A file or bytes served as application/json are sent as they are (RangeableEntityWriter).
    return !isBinaryType(type) && !isStreamType(type) && !isRangeableType(type);
  }

  writeTo(entity: unknown, type: TypeToken, _mediaType?: MediaType, _ctx?: WriteContext): Body {
    const options = this.resolve === undefined ? undefined : this.resolve(type);
    const json = options === undefined ? JSON.stringify(entity) : JSON.stringify(entity, replacerFor(options), options.indent);
    if (json !== undefined) return json;
    // A root null removed by omitNulls is still the JSON document `null`.
    if (entity === null) return 'null';
    throw new TypeError(`Entity of type ${typeof entity} has no JSON representation`);
  }
}
