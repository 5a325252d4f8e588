import { declareExclusiveRole } from '../../core/internal/exclusive-roles.js';
import { pipeline } from 'node:stream';
import type { MediaType } from '../../core/http/media-type.js';
import { Priorities } from '../../core/util/priorities.js';
import type { WriterInterceptor, WriterInterceptorContext } from '../../core/context/contracts.js';
import type { OutgoingHeaders } from '../../core/http/response.js';
import { Priority } from '../../decorators/provider.js';
import { appendVary } from '../../core/http/vary.js';
import { contentCodingNegotiator } from './accept-encoding.js';
import {
  AVAILABLE_CONTENT_CODINGS,
  CODING_LEVELS,
  createEncoder,
  encode,
  isContentCoding,
  ZSTD_AVAILABLE,
  type ContentCoding,
  contentCodingRole,
} from './codings.js';

const ignore = (): void => {};

/** Compression level per coding; a coding left out gets its default (gzip 6, br 5, zstd 3). */
export type ContentCodingLevels = Partial<Record<ContentCoding, number>>;

/** Options of {@link ContentEncodingWriterInterceptor}. */
export interface ContentEncodingWriterOptions {
  /**
   * The codings offered, in the server's order of preference among equal `Accept-Encoding`
   * weights; default every coding this Node has, `['zstd', 'br', 'gzip']` (`['br', 'gzip']`
   * without zstd). Naming `zstd` on a Node without it throws.
   */
  codings?: readonly ContentCoding[];
  /** Compression level per coding: gzip -1 to 9 (default 6), br 0 to 11 (default 5), zstd 1 to 19 (default 3). */
  levels?: ContentCodingLevels;
  /** Smallest string/byte body (in bytes) worth compressing; default 1024. Streams are always compressed. */
  threshold?: number;
  /** Which response media types to compress; default {@link isCompressibleMediaType}. */
  mediaTypes?: (mediaType: MediaType) => boolean;
}

/**
 * The default compressible types: `text/*`, `application/json`, `application/xml`,
 * `application/javascript` and any `+json` / `+xml` suffix (`application/problem+json`,
 * `image/svg+xml`). Images, audio, video, archives and `application/octet-stream` are usually
 * compressed already. `text/event-stream` is excluded: an encoder buffers output until a block
 * fills, which would hold server-sent events back.
 */
export function isCompressibleMediaType(mt: MediaType): boolean {
  const sub = mt.subtype;
  if (mt.type === 'text') return sub !== 'event-stream';
  if (sub.endsWith('+json') || sub.endsWith('+xml')) return true;
  return mt.type === 'application' && (sub === 'json' || sub === 'xml' || sub === 'javascript');
}

/** The suffix a coded variant's entity tag gets inside the quotes: `-gzip`, `-br`, `-zstd`. */
export function codingTagSuffix(coding: ContentCoding): string {
  return `-${coding}`;
}

/**
 * Compresses response bodies with the coding the client prefers among those offered (JAX-RS
 * `WriterInterceptor` at `ENTITY_CODER`; `Accept-Encoding` negotiation as in RFC 9110 §12.5.3, see
 * {@link contentCodingNegotiator}). The writer runs first (`proceed()`), then the serialized body is
 * replaced: a string or bytes become one encoded Buffer (zlib's async API, on its thread pool, so
 * the length is known and the body leaves in one write); a stream is piped through the coding's
 * streaming encoder.
 *
 * Skipped for 204 (no body), 206 or `Content-Range` (the ranges would refer to the other
 * coding), a response that already has a `Content-Encoding`, and non-compressible types. Every
 * response that is eligible by type gets `Vary: Accept-Encoding`, compressed or not (too small,
 * client refused), because a cache must not serve one client's variant to another.
 * HEAD is treated like GET so that its headers (and Content-Length) match what GET would send.
 *
 * The coded bytes are a different representation from the identity bytes (RFC 9110 §8.8.1), so
 * the `ETag` of a compressed response gets the coding as a suffix inside the quotes (`"v1"` becomes
 * `"v1-br"`, `W/"v1"` becomes `W/"v1-br"`, as Apache's mod_deflate does for gzip): the tag stays
 * strong, and `If-Match` keeps working because the features also register a
 * {@link ContentCodingTagFilter}, which removes the suffix from `If-Match` / `If-None-Match` before
 * the resource compares tags. A 304 that still carries the body it stands for (the `ETagFeature`
 * leaves it there) gets the same `Vary` and suffix as the 200 would have (RFC 9110 §15.4.5), and
 * no coding.
 *
 * Options are checked here, at start-up: an unknown coding, a level out of range, or `zstd` on a
 * Node without it throws a `RangeError` naming the option and the fix.
 *
 * @example
 * app.register(new ContentEncodingWriterInterceptor({ codings: ['br', 'gzip'], levels: { br: 5 } }));
 */
@Priority(Priorities.ENTITY_CODER)
export class ContentEncodingWriterInterceptor implements WriterInterceptor {
  private readonly threshold: number;
  private readonly levels: Readonly<Record<ContentCoding, number>>;
  private readonly compressible: (mediaType: MediaType) => boolean;
  private readonly negotiate: (header: string | undefined) => ContentCoding | undefined;

  constructor(options: ContentEncodingWriterOptions = {}) {
    const owner = new.target.name;
    const { threshold = 1024, mediaTypes = isCompressibleMediaType } = options;
    if (!Number.isSafeInteger(threshold) || threshold < 0) {
      throw new RangeError(`${owner}: threshold must be a non-negative integer, got ${threshold}`);
    }
    const codings = validCodings(owner, options.codings);
    this.levels = validLevels(owner, options.levels);
    this.threshold = threshold;
    this.compressible = mediaTypes;
    this.negotiate = contentCodingNegotiator(codings);
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
    const coding = this.negotiate(ctx.request.getHeader('accept-encoding'));
    if (coding === undefined) return;
    const isStream = typeof body !== 'string' && !(body instanceof Uint8Array);
    if (!isStream && byteLengthBelow(body, this.threshold)) return;

    suffixEtag(headers, coding);
    // A 304 sends no body (see send.ts): it only needs the validator of the variant it stands for.
    if (status === 304) return;
    headers['content-encoding'] = coding;
    delete headers['content-length'];
    const level = this.levels[coding];
    ctx.body = isStream
      ? // pipeline(): an error on either side destroys both (the source stops producing) and
        // reaches the returned encoder stream, whose consumer (the response pipe) sees it; the
        // callback has nothing left to do.
        pipeline(body, createEncoder(coding, level), ignore)
      : await encode(coding, body, level);
  }
}

/** The offered codings, checked: known, available here, no repeats, at least one. */
function validCodings(owner: string, codings: readonly ContentCoding[] | undefined): readonly ContentCoding[] {
  if (codings === undefined) return AVAILABLE_CONTENT_CODINGS;
  if (codings.length === 0)
    throw new RangeError(`${owner}: codings is empty; list at least one of ${AVAILABLE_CONTENT_CODINGS.join(', ')}`);
  const seen = new Set<ContentCoding>();
  for (const coding of codings) {
    if (!isContentCoding(coding)) {
      throw new RangeError(`${owner}: codings has ${JSON.stringify(coding)}; the codings are gzip, br and zstd`);
    }
    if (coding === 'zstd' && !ZSTD_AVAILABLE) {
      throw new RangeError(
        `${owner}: codings has zstd, but this Node (${process.version}) has no zstd in node:zlib (Node 22.15+ or 23.8+); ` +
          'remove it or leave codings out to offer what this Node has',
      );
    }
    if (seen.has(coding)) throw new RangeError(`${owner}: codings has ${coding} twice`);
    seen.add(coding);
  }
  return [...seen];
}

/** Every coding's level: the given one, checked against its range, else the default. */
function validLevels(owner: string, levels: ContentCodingLevels = {}): Readonly<Record<ContentCoding, number>> {
  const result = { gzip: CODING_LEVELS.gzip.default, br: CODING_LEVELS.br.default, zstd: CODING_LEVELS.zstd.default };
  for (const [coding, level] of Object.entries(levels)) {
    if (level === undefined) continue;
    if (!isContentCoding(coding)) throw new RangeError(`${owner}: levels has ${JSON.stringify(coding)}; the codings are gzip, br and zstd`);
    const { min, max } = CODING_LEVELS[coding];
    if (!Number.isInteger(level) || level < min || level > max) {
      throw new RangeError(`${owner}: levels.${coding} must be an integer from ${min} to ${max}, got ${level}`);
    }
    result[coding] = level;
  }
  return result;
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

/**
 * A strong ETag names exact bytes; the coded bytes differ from the identity bytes (RFC 9110
 * §8.8.1), so the coded variant gets its own tag, `"v1-br"`; weak tags get the suffix too. A value
 * that is not a tag is left alone.
 */
function suffixEtag(headers: OutgoingHeaders, coding: ContentCoding): void {
  const etag = headers.etag;
  if (typeof etag === 'string' && /^(?:W\/)?"[^"]*"$/.test(etag)) headers.etag = `${etag.slice(0, -1)}${codingTagSuffix(coding)}"`;
}

// One coder of responses per application (see contentCodingRole).
declareExclusiveRole(ContentEncodingWriterInterceptor, contentCodingRole('responses'));
