import { isAscii, isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import { BadRequestError } from '../core/http/errors.js';
import type { MediaType } from '../core/http/media-type.js';
import type { Body, MessageBodyReader, MessageBodyWriter, ReadContext, TypeToken, WriteContext } from '../core/context/contracts.js';
import { BodyErrorCode, unsupportedCharset } from './body-errors.js';
import { readBody } from './read-body.js';
import { charsetOf, encodingOf, isScalarType } from './type-tokens.js';

/**
 * Reads `text/plain` and every other `text/*` type into a string, for entity parameters typed
 * `string` (or left untyped: `Object`).
 *
 * Charsets: absent or utf-8 (the modern default; RFC 2046's us-ascii default is obsolete in
 * practice), us-ascii and iso-8859-1 (latin1). Others: 415 before reading. Bytes invalid in the
 * charset (bad UTF-8, a high byte in us-ascii): 400, never silent U+FFFD replacement.
 * An empty body is the empty string: unlike JSON, zero bytes are a valid text.
 */
export class TextReader implements MessageBodyReader<string> {
  readonly name = 'TextReader';
  readonly consumes: readonly string[] = ['text/plain', 'text/*'];

  isReadable(type: TypeToken, mediaType: MediaType | undefined): boolean {
    return mediaType !== undefined && mediaType.type === 'text' && (type === String || type === Object);
  }

  async readFrom(_type: TypeToken, mediaType: MediaType | undefined, input: Readable, ctx: ReadContext): Promise<string> {
    const charset = charsetOf(mediaType);
    const encoding = encodingOf(charset);
    if (encoding === undefined) throw unsupportedCharset(charset as string, mediaType as MediaType);
    const bytes = await readBody(input, ctx.limit, ctx.contentLength);
    if (bytes.length === 0) return '';
    if (encoding === 'utf8') {
      if (!isUtf8(bytes)) throw invalidText('UTF-8');
      return bytes.toString('utf8');
    }
    if (encoding === 'ascii' && !isAscii(bytes)) throw invalidText('US-ASCII');
    // Node's 'ascii' decoder strips the high bit; for checked ASCII latin1 is the identical, exact decode.
    return bytes.toString('latin1');
  }
}

function invalidText(charset: string): BadRequestError {
  return new BadRequestError(`The body is not valid ${charset} text`, { code: BodyErrorCode.InvalidText });
}

/**
 * Writes `string`, `number`, `boolean` and `bigint` entities as `text/plain` or any `text/*`,
 * via `String()`. The lifecycle sets `Content-Type` (adding `charset=utf-8` when absent); when
 * an explicit charset is us-ascii or iso-8859-1 the text is encoded in it, characters outside it
 * becoming `?` (as Java's encoders do). Other charsets: not writeable (no silent mislabelling).
 */
export class TextWriter implements MessageBodyWriter<unknown> {
  readonly name = 'TextWriter';
  readonly produces: readonly string[] = ['text/plain', 'text/*'];

  isWriteable(type: TypeToken, mediaType: MediaType): boolean {
    return mediaType.type === 'text' && isScalarType(type) && encodingOf(charsetOf(mediaType)) !== undefined;
  }

  writeTo(entity: unknown, _type: TypeToken, mediaType: MediaType, _ctx?: WriteContext): Body {
    const text = String(entity);
    const encoding = encodingOf(charsetOf(mediaType));
    if (encoding === undefined || encoding === 'utf8') return text;
    const outside = encoding === 'ascii' ? NON_ASCII : NON_LATIN1;
    // replace() with a global regex resets lastIndex itself; one '?' per code point (flag u).
    return Buffer.from(text.replace(outside, '?'), 'latin1');
  }
}

const NON_ASCII = /[^\u0000-\u007f]/gu;
const NON_LATIN1 = /[^\u0000-\u00ff]/gu;
