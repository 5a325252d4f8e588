import { pipeline } from 'node:stream';
import { promisify } from 'node:util';
import { createGzip, gzip, type ZlibOptions } from 'node:zlib';
import type { MediaType } from '../../core/http/media-type.js';
import { Priorities } from '../../core/util/priorities.js';
import type { WriterInterceptor, WriterInterceptorContext } from '../../core/context/contracts.js';
import type { OutgoingHeaders } from '../../core/http/response.js';
import { Priority } from '../../decorators/provider.js';
import { appendVary } from '../../core/http/vary.js';
import { acceptsGzip } from './accept-encoding.js';

const gzipAsync = promisify(gzip);
const ignore = (): void => {};

/** Options of {@link GzipWriterInterceptor}. */
export interface GzipWriterOptions {
  /** Smallest string/byte body (in bytes) worth compressing; default 1024. Streams are always compressed. */
  threshold?: number;
  /** zlib compression level, -1 (zlib's default, 6) to 9. */
  level?: number;
  /** Which response media types to compress; default {@link isCompressibleMediaType}. */
  mediaTypes?: (mediaType: MediaType) => boolean;
}

/**
 * The default compressible types: `text/*`, `application/json`, `application/xml`,
 * `application/javascript` and any `+json` / `+xml` suffix (`application/problem+json`,
 * `image/svg+xml`). Images, audio, video, archives and `application/octet-stream` are usually
 * compressed already. `text/event-stream` is excluded: gzip buffers output until a block fills,
 * which would hold server-sent events back.
 */
export function isCompressibleMediaType(mt: MediaType): boolean {
  const sub = mt.subtype;
  if (mt.type === 'text') return sub !== 'event-stream';
  if (sub.endsWith('+json') || sub.endsWith('+xml')) return true;
  return mt.type === 'application' && (sub === 'json' || sub === 'xml' || sub === 'javascript');
}

/**
 * Compresses response bodies with gzip when the client accepts it (JAX-RS `WriterInterceptor`
 * at `ENTITY_CODER`). The writer runs first (`proceed()`), then the serialized body is replaced:
 * a string or bytes become one gzip Buffer (zlib's async API, so the length is known and the
 * body leaves in one write); a stream is piped through `createGzip()`.
 *
 * Skipped for 204 (no body), 206 or `Content-Range` (the ranges would refer to the other
 * coding), a response that already has a `Content-Encoding`, and non-compressible types. Every
 * response that is eligible by type gets `Vary: Accept-Encoding`, compressed or not (too small,
 * client refused), because a cache must not serve one client's variant to another.
 * HEAD is treated like GET so that its headers (and Content-Length) match what GET would send.
 *
 * The gzip bytes are a different representation from the identity bytes (RFC 9110 §8.8.1), so
 * the `ETag` of a compressed response gets a `-gzip` suffix inside the quotes (`"v1"` becomes
 * `"v1-gzip"`, `W/"v1"` becomes `W/"v1-gzip"`): the tag stays strong, and `If-Match` keeps
 * working because `GzipFeature` also registers a `GzipTagFilter`, which removes the
 * suffix from `If-Match` / `If-None-Match` before the resource compares tags. A 304 that still
 * carries the body it stands for (the `ETagFeature` leaves it there) gets the same `Vary` and
 * suffix as the 200 would have (RFC 9110 §15.4.5), and no coding.
 *
 * @example
 * app.register(new GzipWriterInterceptor({ threshold: 2048, level: 6 }));
 */
@Priority(Priorities.ENTITY_CODER)
export class GzipWriterInterceptor implements WriterInterceptor {
  private readonly threshold: number;
  private readonly zlibOptions: ZlibOptions;
  private readonly compressible: (mediaType: MediaType) => boolean;

  constructor(options: GzipWriterOptions = {}) {
    const { threshold = 1024, level, mediaTypes = isCompressibleMediaType } = options;
    if (!Number.isSafeInteger(threshold) || threshold < 0) {
      throw new RangeError(`gzip threshold must be a non-negative integer, got ${threshold}`);
    }
    if (level !== undefined && (!Number.isInteger(level) || level < -1 || level > 9)) {
      throw new RangeError(`gzip level must be an integer from -1 to 9, got ${level}`);
    }
    this.threshold = threshold;
    this.zlibOptions = level === undefined ? {} : { level };
    this.compressible = mediaTypes;
  }

  async aroundWriteTo(ctx: WriterInterceptorContext): Promise<void> {
    await ctx.proceed();
    const body = ctx.body;
    if (body === undefined) return;
    const headers = ctx.headers;
    const status = ctx.response.status;
    if (status === 204 || status === 206 || headers['content-range'] !== undefined) return;
    if (hasContentCoding(headers) || !this.compressible(ctx.mediaType)) return;

    appendVary(headers, 'Accept-Encoding');
    if (!acceptsGzip(ctx.request.getHeader('accept-encoding'))) return;
    const isStream = typeof body !== 'string' && !(body instanceof Uint8Array);
    if (!isStream && byteLengthBelow(body, this.threshold)) return;

    suffixEtag(headers);
    // A 304 sends no body (see send.ts): it only needs the validator of the variant it stands for.
    if (status === 304) return;
    headers['content-encoding'] = 'gzip';
    delete headers['content-length'];
    ctx.body = isStream
      ? // pipeline(): an error on either side destroys both (the source stops producing) and
        // reaches the returned gzip stream, whose consumer (the response pipe) sees it; the
        // callback has nothing left to do.
        pipeline(body, createGzip(this.zlibOptions), ignore)
      : await gzipAsync(body, this.zlibOptions);
  }
}

/** An existing coding other than `identity` means the body is already encoded: leave it. */
function hasContentCoding(headers: OutgoingHeaders): boolean {
  const ce = headers['content-encoding'];
  if (ce === undefined) return false;
  const value = (Array.isArray(ce) ? ce.join(',') : String(ce)).trim().toLowerCase();
  return value !== '' && value !== 'identity';
}

/** `byteLength(body) < threshold`, without measuring UTF-8 when the UTF-16 length decides it. */
function byteLengthBelow(body: string | Uint8Array, threshold: number): boolean {
  if (typeof body !== 'string') return body.byteLength < threshold;
  // UTF-8 needs 1 to 3 bytes per UTF-16 code unit.
  if (body.length >= threshold) return false;
  if (body.length * 3 < threshold) return true;
  return Buffer.byteLength(body, 'utf8') < threshold;
}

/** The suffix the compressed variant's entity tag gets inside the quotes. */
export const GZIP_TAG_SUFFIX = '-gzip';

/**
 * A strong ETag names exact bytes; the gzip bytes differ from the identity bytes (RFC 9110
 * §8.8.1), so the compressed variant gets its own tag, `"v1-gzip"` (as Apache's mod_deflate
 * does); weak tags get the suffix too. A value that is not a tag is left alone.
 */
function suffixEtag(headers: OutgoingHeaders): void {
  const etag = headers.etag;
  if (typeof etag === 'string' && /^(?:W\/)?"[^"]*"$/.test(etag)) headers.etag = `${etag.slice(0, -1)}${GZIP_TAG_SUFFIX}"`;
}
