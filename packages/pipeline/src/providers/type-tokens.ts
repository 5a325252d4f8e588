import { Readable } from 'node:stream';
import type { MediaType } from '../core/http/media-type.js';
import type { TypeToken } from '../core/context/contracts.js';
import { RangeableEntity } from '../core/ranges/rangeable-entity.js';

/**
 * The integer type token (Java's `int`/`long` for parameters): `@QueryParam('page', { type: Int })
 * page: number` accepts only decimal integers within the safe-integer range (|n| <= 2^53 - 1), so
 * `1.5`, `1e9` written as an exponent and `99999999999999999999` are 400, never a float or 1e20.
 * A type token only: never instantiated.
 */
export abstract class Int {
  private constructor() {}
}

/** `%TypedArray%`, the common base of Uint8Array, Int16Array, Float64Array... */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
const TypedArray = Object.getPrototypeOf(Uint8Array) as Function;

/**
 * Is `type` the class `base` or one of its subclasses? Type tokens are classes (`Buffer`), built-in
 * constructors (`String`) or, for objects without a useful constructor, plain objects.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export function isSubtypeOf(type: TypeToken, base: Function): boolean {
  return type === base || (typeof type === 'function' && type.prototype instanceof base);
}

/** Entity types that are raw bytes or streams: structured-data readers and writers leave them alone. */
export function isRawType(type: TypeToken): boolean {
  return (
    isSubtypeOf(type, TypedArray) ||
    isSubtypeOf(type, ArrayBuffer) ||
    isSubtypeOf(type, DataView) ||
    isSubtypeOf(type, Readable) ||
    isSubtypeOf(type, URLSearchParams)
  );
}

/** Byte containers a writer can send as is (Buffer, any typed array, DataView, ArrayBuffer). */
export function isBinaryType(type: TypeToken): boolean {
  return isSubtypeOf(type, TypedArray) || isSubtypeOf(type, ArrayBuffer) || isSubtypeOf(type, DataView);
}

/** Entities of known length answered in byte ranges (`FileBody`, `BytesBody`): bytes, never JSON. */
export function isRangeableType(type: TypeToken): boolean {
  return isSubtypeOf(type, RangeableEntity);
}

/** Primitive wrappers written as their `String()` form by the text writer. */
export function isScalarType(type: TypeToken): boolean {
  return type === String || type === Number || type === Boolean || type === BigInt;
}

/**
 * Does the type stand for a stream of chunks: a Readable, an async iterable, or an iterator
 * (a generator object)? Plain iterable collections (Array, Set, Map, String, typed arrays) are
 * NOT streams: they are data for the JSON writer, and they have no `next` method.
 *
 * The token for a generator object is odd: its `constructor` resolves to
 * `%GeneratorFunction.prototype%`, an object whose `prototype` is `%GeneratorPrototype%`; so an
 * object token is checked both as a prototype and through its `prototype` property.
 */
export function isStreamType(type: TypeToken): boolean {
  if (isSubtypeOf(type, Readable)) return true;
  if (typeof type === 'function') return isStreamPrototype(type.prototype);
  if (typeof type !== 'object' || type === null) return false;
  if (isStreamPrototype(type)) return true;
  return isStreamPrototype((type as { prototype?: unknown }).prototype);
}

function isStreamPrototype(proto: unknown): boolean {
  if (typeof proto !== 'object' || proto === null) return false;
  if (Symbol.asyncIterator in proto) return true;
  return Symbol.iterator in proto && typeof (proto as { next?: unknown }).next === 'function';
}

/** Is the entity itself streamable (see {@link isStreamType})? */
export function isStreamEntity(entity: unknown): entity is Readable | AsyncIterable<unknown> | Iterator<unknown> {
  if (typeof entity !== 'object' || entity === null) return false;
  if (entity instanceof Readable || Symbol.asyncIterator in entity) return true;
  return Symbol.iterator in entity && typeof (entity as { next?: unknown }).next === 'function';
}

/** `application/json` or any structured `+json` type (RFC 6839 §3.1), e.g. `application/problem+json`. */
export function isJsonMediaType(mt: MediaType): boolean {
  return mt.type === 'application' && (mt.subtype === 'json' || mt.subtype.endsWith('+json'));
}

/** The lower-cased `charset` parameter, if any. */
export function charsetOf(mt: MediaType | undefined): string | undefined {
  const c = mt?.params.charset;
  return c === undefined ? undefined : c.toLowerCase();
}

/** Node encoding for a charset name we decode and encode; undefined when unsupported. */
export type TextEncoding = 'utf8' | 'ascii' | 'latin1';

const CHARSETS: ReadonlyMap<string, TextEncoding> = new Map<string, TextEncoding>([
  ['utf-8', 'utf8'],
  ['utf8', 'utf8'],
  ['us-ascii', 'ascii'],
  ['ascii', 'ascii'],
  ['iso-8859-1', 'latin1'],
  ['iso8859-1', 'latin1'],
  ['iso_8859-1', 'latin1'],
  ['latin1', 'latin1'],
  ['l1', 'latin1'],
]);

/** Maps a lower-cased charset name to the encoding we use for it (absent means UTF-8). */
export function encodingOf(charset: string | undefined): TextEncoding | undefined {
  return charset === undefined ? 'utf8' : CHARSETS.get(charset);
}
