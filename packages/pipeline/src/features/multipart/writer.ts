import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Body, MessageBodyWriter, TypeToken, WriteContext } from '../../core/context/contracts.js';
import { mediaTypeString, type MediaType } from '../../core/http/media-type.js';
import { Exchange } from '../../core/internal/exchange.js';
import { selectWriter } from '../../core/internal/writers.js';
import { isSubtypeOf } from '../../providers/type-tokens.js';
import { EntityPart } from './entity-part.js';

const CRLF = Buffer.from('\r\n');
// RFC 2046 §5.1.1, as for the reader.
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;
/** Headers made from the part's name, filename and media type, not copied from `part.headers`. */
const MADE = new Set(['content-disposition', 'content-type', 'content-length']);

/**
 * Writes an array of {@link EntityPart}s as `multipart/form-data` or `multipart/mixed` (RFC 7578,
 * RFC 2046 §5.1), streamed part by part with a random boundary (or the `boundary` parameter of the
 * media type, when given), which it adds to `Content-Type`. Part contents: strings and bytes as
 * they are, a `Readable` piped with backpressure, a part read from a request streamed on, any
 * other value through the application's writer for its type and the part's media type (JSON by
 * default), chosen before the first byte goes out (none: 500 `PIPE_NO_WRITER`).
 *
 * It declares no `produces`, so an array is written as multipart only where the method's
 * `@Produces` (or the response's `Content-Type`) says so: JSON stays the default for arrays.
 *
 * @example
 * \@GET() @Produces('multipart/mixed')
 * report() { return [EntityPart.of('summary', { total: 3 }), EntityPart.of('data', csv, { filename: 'data.csv', mediaType: 'text/csv' })]; }
 */
export class MultipartWriter implements MessageBodyWriter<readonly EntityPart[]> {
  readonly name = 'MultipartWriter';

  isWriteable(type: TypeToken, mediaType: MediaType): boolean {
    return (
      mediaType.type === 'multipart' && (mediaType.subtype === 'form-data' || mediaType.subtype === 'mixed') && isSubtypeOf(type, Array)
    );
  }

  writeTo(entity: readonly EntityPart[], _type: TypeToken, mediaType: MediaType, ctx: WriteContext): Body {
    if (!Array.isArray(entity) || !entity.every((p) => p instanceof EntityPart)) {
      throw new TypeError('MultipartWriter writes an array of EntityPart (EntityPart.of(name, value, options))');
    }
    let boundary = mediaType.params.boundary;
    let contentType = mediaTypeString(mediaType);
    if (boundary === undefined) {
      boundary = `jaxrs-node-${randomBytes(16).toString('hex')}`;
      contentType += `; boundary=${boundary}`;
    } else if (!BOUNDARY.test(boundary)) {
      throw new TypeError(`MultipartWriter: boundary '${boundary}' is not 1 to 70 characters of RFC 2046 §5.1.1`);
    }
    ctx.response.headers['content-type'] = contentType;
    const formData = mediaType.subtype === 'form-data';
    // Writers are chosen now, so a part nobody can write fails before the head goes out.
    const bodies = entity.map((part) => bodyOf(part, ctx));
    return Readable.from(encode(entity, bodies, boundary, formData), { objectMode: false });
  }
}

/** The part's bytes: its own content, or what the application's writer makes of its value. */
function bodyOf(part: EntityPart, ctx: WriteContext): () => Body | Promise<Body> {
  const value = part.entity;
  if (value === undefined || typeof value === 'string' || value instanceof Uint8Array || value instanceof Readable) {
    return () => part.content;
  }
  const type = ((value as object).constructor ?? Object) as TypeToken;
  if (!(ctx.request instanceof Exchange)) return () => JSON.stringify(value);
  const writer = selectWriter(ctx.request, type, part.mediaType);
  return () => writer.writeTo(value, type, part.mediaType, ctx);
}

async function* encode(
  parts: readonly EntityPart[],
  bodies: ReadonlyArray<() => Body | Promise<Body>>,
  boundary: string,
  formData: boolean,
): AsyncGenerator<Buffer> {
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    yield Buffer.from(`--${boundary}\r\n${headerBlock(part, formData)}\r\n`, 'utf8');
    const body = await bodies[i]!();
    if (typeof body === 'string') yield Buffer.from(body, 'utf8');
    else if (body instanceof Uint8Array) yield Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    else for await (const chunk of body) yield typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer);
    yield CRLF;
  }
  yield Buffer.from(`--${boundary}--\r\n`, 'latin1');
}

function headerBlock(part: EntityPart, formData: boolean): string {
  const file = part.filename === undefined ? '' : `; filename="${escape(part.filename)}"`;
  const disposition = formData ? 'form-data' : part.filename === undefined ? 'inline' : 'attachment';
  let block = `Content-Disposition: ${disposition}; name="${escape(part.name)}"${file}\r\n`;
  block += `Content-Type: ${mediaTypeString(part.mediaType)}\r\n`;
  for (const [name, value] of Object.entries(part.headers)) {
    if (!MADE.has(name)) block += `${name}: ${value.replace(/[\r\n\u0000]/g, ' ')}\r\n`;
  }
  return block;
}

/** The HTML form encoding of a name or filename in a quoted-string: `"` CR LF percent-encoded. */
function escape(value: string): string {
  return value.replace(/["\r\n]/g, (c) => (c === '"' ? '%22' : c === '\r' ? '%0D' : '%0A'));
}
