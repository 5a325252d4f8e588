import type { Readable } from 'node:stream';
import { PayloadTooLargeError } from '../core/http/errors.js';
import type { MediaType } from '../core/http/media-type.js';
import type { MessageBodyReader, ReadContext, TypeToken } from '../core/context/contracts.js';
import { BodyErrorCode, unsupportedCharset } from './body-errors.js';
import { readBody } from './read-body.js';
import { charsetOf, encodingOf, isSubtypeOf } from './type-tokens.js';

/** Default cap on form fields (body-parser's and qs's `parameterLimit`). */
export const DEFAULT_MAX_FORM_FIELDS = 1000;

/** A parsed form as a plain record: one value per name, an array for repeated names. */
export type FormRecord = Record<string, string | string[]>;

/**
 * Reads `application/x-www-form-urlencoded` (WHATWG URL "urlencoded parser": `+` is a space,
 * percent escapes are UTF-8) for entity parameters typed `URLSearchParams` (kept as is, order
 * and repeats included) or `Object` / untyped (a null-prototype {@link FormRecord}, so a field
 * named `__proto__` or `constructor` is just a field).
 *
 * Body size: the usual `readBody` limit. More than `maxFields` fields: 413, counted before any
 * decoding. Charset: absent or utf-8, else 415. An empty body is an empty form.
 */
export class FormReader implements MessageBodyReader<URLSearchParams | FormRecord> {
  readonly name = 'FormReader';
  readonly consumes: readonly string[] = ['application/x-www-form-urlencoded'];
  readonly maxFields: number;

  constructor(options: { maxFields?: number } = {}) {
    this.maxFields = options.maxFields ?? DEFAULT_MAX_FORM_FIELDS;
  }

  isReadable(type: TypeToken, mediaType: MediaType | undefined): boolean {
    return (
      mediaType !== undefined &&
      mediaType.essence === 'application/x-www-form-urlencoded' &&
      (type === Object || isSubtypeOf(type, URLSearchParams))
    );
  }

  async readFrom(
    type: TypeToken,
    mediaType: MediaType | undefined,
    input: Readable,
    ctx: ReadContext,
  ): Promise<URLSearchParams | FormRecord> {
    const charset = charsetOf(mediaType);
    if (charset !== undefined && encodingOf(charset) !== 'utf8') {
      throw unsupportedCharset(charset, mediaType as MediaType);
    }
    const text = (await readBody(input, ctx.limit, ctx.contentLength)).toString('utf8');
    if (countFields(text) > this.maxFields) {
      throw new PayloadTooLargeError(`Form has more than ${this.maxFields} fields`, { code: BodyErrorCode.TooManyFields });
    }
    const params = new URLSearchParams(text);
    return type === Object ? toRecord(params) : params;
  }
}

/** Non-empty `&`-separated segments: what URLSearchParams would turn into entries. */
function countFields(text: string): number {
  let count = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('&', start);
    if (end < 0) end = text.length;
    if (end > start) count++;
    start = end + 1;
  }
  return count;
}

/** Entries in order; a repeated name becomes an array of its values in order. */
export function toRecord(params: URLSearchParams): FormRecord {
  const out = Object.create(null) as FormRecord;
  for (const [name, value] of params) {
    const prev = out[name];
    if (prev === undefined) out[name] = value;
    else if (Array.isArray(prev)) prev.push(value);
    else out[name] = [prev, value];
  }
  return out;
}
