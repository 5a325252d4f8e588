import type { Readable } from 'node:stream';
import type { Body } from '../core/context/contracts.js';

/**
 * Collects a body as a writer or a writer interceptor produced it (a string, bytes or a stream)
 * into one Buffer, for interceptors that need the bytes (a digest, a signature, an ETag). Bounded:
 * past `limit` bytes the stream is destroyed and the promise rejects with a `RangeError`, so an
 * endless stream cannot take the process's memory. Strings count as their UTF-8 bytes.
 *
 * @example
 * \@Priority(Priorities.HEADER_DECORATOR)
 * class Digest implements WriterInterceptor {
 *   async aroundWriteTo(ctx: WriterInterceptorContext) {
 *     await ctx.proceed();
 *     const bytes = await collectBody(ctx.body, 1024 * 1024);
 *     ctx.headers['repr-digest'] = `sha-256=:${createHash('sha256').update(bytes).digest('base64')}:`;
 *     ctx.body = bytes;
 *   }
 * }
 */
export async function collectBody(body: Body | undefined, limit: number): Promise<Buffer> {
  if (!(limit >= 0)) throw new RangeError('limit must be a non-negative number');
  if (body === undefined) return Buffer.alloc(0);
  const whole =
    typeof body === 'string'
      ? Buffer.from(body)
      : body instanceof Uint8Array
        ? Buffer.from(body.buffer, body.byteOffset, body.byteLength)
        : undefined;
  if (whole !== undefined) {
    if (whole.length > limit) throw new RangeError(`body of ${whole.length} bytes exceeds the limit of ${limit}`);
    return whole;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of body) {
    const chunk = typeof c === 'string' ? Buffer.from(c) : Buffer.from(c as Uint8Array);
    size += chunk.length;
    if (size > limit) {
      (body as Readable).destroy();
      throw new RangeError(`body exceeds the limit of ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}
