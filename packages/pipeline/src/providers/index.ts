import type { MessageBodyReader, MessageBodyWriter, TypeToken } from '../core/context/contracts.js';
import { BytesReader, BytesWriter } from './bytes.js';
import { FormReader } from './form.js';
import { IterableWriter } from './iterable.js';
import { JsonReader, JsonWriter } from './json.js';
import { RangeableEntityWriter } from './rangeable.js';
import type { JsonOptions } from './json-options.js';
import { StreamReader, StreamWriter } from './stream.js';
import { TextReader, TextWriter } from './text.js';

export { BodyErrorCode } from './body-errors.js';
export { Int } from './type-tokens.js';
export { readBody } from './read-body.js';
export { collectBody } from './collect-body.js';
export { JsonReader, JsonWriter, parseJsonBody, DEFAULT_MAX_JSON_DEPTH } from './json.js';
export { JsonOptions } from './json-options.js';
export type { JsonReplacer } from './json-options.js';
export { exceedsDepth, findUnsafeJson } from './json-safety.js';
export { TextReader, TextWriter } from './text.js';
export { BytesReader, BytesWriter } from './bytes.js';
export { StreamReader, StreamWriter, BodyLimitGuard, guardStream } from './stream.js';
export { IterableWriter } from './iterable.js';
export { FormReader, toRecord, DEFAULT_MAX_FORM_FIELDS } from './form.js';
export type { FormRecord } from './form.js';

/** A built-in body provider: a reader, a writer, or (for none of ours today) both. */
export type BodyProvider = MessageBodyReader | MessageBodyWriter;

/**
 * Fresh instances of the built-in body providers, in the order they should be tried; readers
 * (with `readFrom`) and writers (with `writeTo`) share one list, each keeping its own order:
 * - readers: the type-bound ones (Buffer, Readable) before the media-type-bound ones (form,
 *   text, JSON), so a `Buffer` parameter gets the raw bytes of a JSON request;
 * - writers: bytes, rangeable entities and streams (any media type) before text and JSON; the writer of streamed
 *   items (JSON array, NDJSON, events) before the byte-stream writer, so that a method without
 *   `@Produces` returning a generator offers JSON first. Text comes before JSON so
 *   that, when only a wildcard is acceptable, a string entity is sent as `text/plain` (as in
 *   Jersey) rather than as a JSON string; objects and arrays can only go to JSON.
 * User providers should be tried before these (JAX-RS 4.2.3: application providers win).
 * @param resolveJsonOptions the `ContextResolver<JsonOptions>` lookup for {@link JsonWriter} and {@link IterableWriter}.
 * @example
 * const all = defaultProviders((type) => jsonResolver?.getContext(type));
 * const readers = all.filter((p): p is MessageBodyReader => 'readFrom' in p);
 */
export function defaultProviders(resolveJsonOptions?: (type: TypeToken) => JsonOptions | undefined): BodyProvider[] {
  return [
    new BytesReader(),
    new BytesWriter(),
    new RangeableEntityWriter(),
    new StreamReader(),
    new IterableWriter(resolveJsonOptions),
    new StreamWriter(),
    new FormReader(),
    new TextReader(),
    new TextWriter(),
    new JsonReader(),
    new JsonWriter(resolveJsonOptions),
  ];
}
