/**
 * Content codings on the client (RFC 9110 §8.4.1): {@link GzipRequestEncoder} compresses request
 * bodies with gzip, {@link GzipResponseDecoder} asks for (`Accept-Encoding: zstd, br, gzip`, zstd
 * where this Node has it) and decodes compressed responses, bomb-safe: decoded bytes count against
 * `maxResponseBytes`, as the server's `ContentEncodingReaderInterceptor` counts request bodies (the
 * same `decodeBody`).
 */
import { pipeline } from 'node:stream';
import { promisify } from 'node:util';
import { createGzip, gzip, type ZlibOptions } from 'node:zlib';
import type { Feature, FeatureContext } from '../core/context/contracts.js';
import { Priorities } from '../core/util/priorities.js';
import { Priority } from '../decorators/provider.js';
import { AVAILABLE_CONTENT_CODINGS, codingOf, ZSTD_AVAILABLE, type ContentCoding } from '../features/content-coding/codings.js';
import { decodeBody } from '../features/content-coding/content-encoding-reader-interceptor.js';
import type {
  ClientReaderInterceptor,
  ClientReaderInterceptorContext,
  ClientRequestFilter,
  ClientWriterInterceptor,
  ClientWriterInterceptorContext,
} from './contracts.js';
import type { ClientRequestContext } from './request-context.js';

const gzipAsync = promisify(gzip);
const ignore = (): void => {};

/** Options of {@link GzipRequestEncoder}. */
export interface GzipRequestEncoderOptions {
  /** Smallest text or byte body (in bytes) worth compressing; default 1024. Streams are always compressed. */
  threshold?: number;
  /** zlib compression level, -1 (zlib's default, 6) to 9. */
  level?: number;
}

/**
 * Compresses request bodies with gzip (`Content-Encoding: gzip`), after the writer ran: text and
 * bytes of at least `threshold` bytes in one buffer, streams through `createGzip()`. A body that
 * already has a `Content-Encoding` is left alone. The server must accept gzip (the pipeline's
 * `GzipFeature` does; others answer 415).
 * @example new Client({ baseUrl, providers: [new GzipRequestEncoder({ threshold: 4096 })] });
 */
@Priority(Priorities.ENTITY_CODER)
export class GzipRequestEncoder implements ClientWriterInterceptor {
  private readonly threshold: number;
  private readonly zlib: ZlibOptions;

  constructor(options: GzipRequestEncoderOptions = {}) {
    const { threshold = 1024, level } = options;
    if (!Number.isSafeInteger(threshold) || threshold < 0)
      throw new RangeError(`gzip threshold must be a non-negative integer, got ${threshold}`);
    if (level !== undefined && (!Number.isInteger(level) || level < -1 || level > 9)) {
      throw new RangeError(`gzip level must be an integer from -1 to 9, got ${level}`);
    }
    this.threshold = threshold;
    this.zlib = level === undefined ? {} : { level };
  }

  async aroundWriteTo(ctx: ClientWriterInterceptorContext): Promise<void> {
    await ctx.proceed();
    const body = ctx.body;
    if (body === undefined || ctx.headers['content-encoding'] !== undefined) return;
    const isStream = typeof body !== 'string' && !(body instanceof Uint8Array);
    if (!isStream && Buffer.byteLength(body) < this.threshold) return;
    ctx.headers['content-encoding'] = 'gzip';
    delete ctx.headers['content-length'];
    ctx.body = isStream ? pipeline(body, createGzip(this.zlib), ignore) : await gzipAsync(body, this.zlib);
  }
}

/** Options of {@link GzipResponseDecoder}. */
export interface GzipResponseDecoderOptions {
  /** Most decoded bytes accepted; default the call's `maxResponseBytes` (which also caps the compressed bytes). */
  maxDecodedBytes?: number;
  /**
   * The codings asked for in `Accept-Encoding`, in order of preference; default every coding this
   * Node decodes, `['zstd', 'br', 'gzip']` (`['br', 'gzip']` without zstd). Naming `zstd` on a
   * Node without it throws.
   */
  codings?: readonly ContentCoding[];
}

/**
 * Sends `Accept-Encoding: zstd, br, gzip` (the `codings` option; zstd only where this Node's
 * `node:zlib` has it; unless the request sets its own) and decodes `Content-Encoding: gzip`, `br`
 * or `zstd` responses before the reader, dropping `Content-Encoding` and `Content-Length` from the
 * headers the reader sees. A corrupt body is `CLIENT_RESPONSE_UNREADABLE`, a decoded body past the
 * limit `CLIENT_RESPONSE_TOO_LARGE`. The name is historical: it decodes every coding the server
 * side offers.
 * @example new Client({ baseUrl, providers: [new GzipResponseDecoder({ codings: ['br', 'gzip'] })] });
 */
@Priority(Priorities.ENTITY_CODER)
export class GzipResponseDecoder implements ClientRequestFilter, ClientReaderInterceptor {
  private readonly maxDecodedBytes: number | undefined;
  private readonly acceptEncoding: string;

  constructor(options: GzipResponseDecoderOptions = {}) {
    const max = options.maxDecodedBytes;
    if (max !== undefined && (!Number.isSafeInteger(max) || max < 0))
      throw new RangeError(`maxDecodedBytes must be a non-negative integer, got ${max}`);
    const codings = options.codings ?? AVAILABLE_CONTENT_CODINGS;
    for (const coding of codings) {
      if (coding !== 'gzip' && coding !== 'br' && coding !== 'zstd') {
        throw new RangeError(`GzipResponseDecoder: codings has ${JSON.stringify(coding)}; the codings are gzip, br and zstd`);
      }
      if (coding === 'zstd' && !ZSTD_AVAILABLE) {
        throw new RangeError(
          `GzipResponseDecoder: codings has zstd, but this Node (${process.version}) has no zstd in node:zlib (Node 22.15+ or 23.8+); remove it`,
        );
      }
    }
    if (codings.length === 0) throw new RangeError('GzipResponseDecoder: codings is empty; list at least one of gzip, br, zstd');
    this.maxDecodedBytes = max;
    this.acceptEncoding = codings.join(', ');
  }

  filterClientRequest(request: ClientRequestContext): void {
    if (request.headers['accept-encoding'] === undefined) request.headers['accept-encoding'] = this.acceptEncoding;
  }

  aroundReadFrom(ctx: ClientReaderInterceptorContext): unknown {
    const header = ctx.headers['content-encoding'];
    // Any coding this Node decodes, asked for or not: decoding more than advertised costs nothing.
    const coding = header === undefined ? undefined : codingOf(header.trim().toLowerCase());
    if (coding === undefined) return ctx.proceed();
    ctx.input = decodeBody(ctx.input, coding, ctx.limit, this.maxDecodedBytes ?? ctx.limit);
    if (this.maxDecodedBytes !== undefined) ctx.limit = this.maxDecodedBytes;
    delete ctx.headers['content-encoding'];
    delete ctx.headers['content-length'];
    return ctx.proceed();
  }
}

/**
 * Codings both ways: registers a {@link GzipRequestEncoder} (gzip request bodies) and a
 * {@link GzipResponseDecoder} (asks for and decodes zstd, br and gzip answers).
 * @example new Client({ baseUrl, providers: [new ClientGzipFeature({ threshold: 2048 })] });
 */
export class ClientGzipFeature implements Feature {
  private readonly encoder: GzipRequestEncoder;
  private readonly decoder: GzipResponseDecoder;

  constructor(options: GzipRequestEncoderOptions & GzipResponseDecoderOptions = {}) {
    this.encoder = new GzipRequestEncoder({ threshold: options.threshold, level: options.level });
    this.decoder = new GzipResponseDecoder({ maxDecodedBytes: options.maxDecodedBytes, codings: options.codings });
  }

  setup(context: FeatureContext): void {
    context.register(this.encoder).register(this.decoder);
  }
}
