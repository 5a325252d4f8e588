import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Feature, FeatureContext, WriterInterceptor, WriterInterceptorContext } from '../../core/context/contracts.js';
import { EntityTag } from '../../core/http/entity-tag.js';
import type { OutgoingHeaders } from '../../core/http/response.js';
import { Priorities } from '../../core/util/priorities.js';
import { Priority } from '../../decorators/provider.js';

/** Options of {@link ETagFeature}. */
export interface ETagFeatureOptions {
  /**
   * Largest body (in bytes) that gets a computed tag; default 64 KiB. A larger body, or a stream
   * body without a `Content-Length` (or with one above this), is sent unchanged and untagged.
   */
  readonly maxBytes?: number;
}

const DEFAULT_MAX_BYTES = 64 * 1024;
const OPTIONS: ReadonlySet<string> = new Set(['maxBytes']);

/**
 * The interceptor's priority: above `ENTITY_CODER`, so it runs inside the gzip interceptor (writer
 * interceptors nest in ascending order) and hashes the identity bytes, after any `USER`-priority
 * interceptor changed them.
 */
const ETAG_PRIORITY = Priorities.ENTITY_CODER + 100;

/**
 * Automatic entity tags, opt-in, for resources that do not compute their own (RFC 9110 §8.8.3,
 * §13.1.2). For a GET or HEAD answered 200 without an `ETag`, whose body is at most `maxBytes`,
 * it sets a strong `ETag` computed from the bytes written (SHA-256, base64url, truncated), and
 * when the request's `If-None-Match` matches it (weak comparison; `*` matches) answers 304
 * instead: no body, the headers kept (Cache-Control, Content-Location, Expires, Vary,
 * Last-Modified, ETag). Other methods, other statuses, responses that already carry an `ETag`
 * (a resource using `evaluatePreconditions`, say) and larger bodies are left alone; a stream body
 * is read only when its `Content-Length` is declared and within `maxBytes`, so a long or endless
 * stream (server-sent events) is never buffered.
 *
 * The method still runs and the entity is still serialized on a 304: this saves bandwidth, not
 * work. With `ContentEncodingFeature` (or `GzipFeature`), the tag is computed over the identity bytes
 * and a compressed response carries it with the coding's suffix, `-zstd`, `-br` or `-gzip` (see
 * `ContentEncodingWriterInterceptor`).
 *
 * @example
 * new Application({ resources: [Catalog], providers: [new ETagFeature({ maxBytes: 256 * 1024 }), new GzipFeature()] });
 */
export class ETagFeature implements Feature {
  private readonly interceptor: ETagWriterInterceptor;

  constructor(options: ETagFeatureOptions = {}) {
    if (typeof options !== 'object' || options === null)
      throw new TypeError('ETagFeature: options must be an object like { maxBytes: 65536 }');
    for (const key of Object.keys(options)) {
      if (!OPTIONS.has(key)) throw new TypeError(`ETagFeature: unknown option ${key}; the only option is maxBytes`);
    }
    const { maxBytes = DEFAULT_MAX_BYTES } = options;
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
      throw new TypeError(`ETagFeature: option maxBytes must be a non-negative integer of bytes, got ${String(maxBytes)}`);
    }
    this.interceptor = new ETagWriterInterceptor(maxBytes);
  }

  setup(context: FeatureContext): void {
    context.register(this.interceptor);
  }
}

/** The writer interceptor behind {@link ETagFeature} (registered by it, not exported). */
@Priority(ETAG_PRIORITY)
class ETagWriterInterceptor implements WriterInterceptor {
  constructor(private readonly maxBytes: number) {}

  async aroundWriteTo(ctx: WriterInterceptorContext): Promise<void> {
    if (!eligible(ctx)) return ctx.proceed();
    await ctx.proceed();
    // The writer or an inner interceptor may have set a tag or changed the status.
    if (!eligible(ctx)) return;
    let body = ctx.body;
    if (body === undefined) return;
    if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
      const declared = declaredLength(ctx.headers);
      if (declared === undefined || declared > this.maxBytes) return;
      body = await readExactly(body, declared);
      ctx.body = body;
    }
    const size = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    if (size > this.maxBytes) return;
    const tag = new EntityTag(createHash('sha256').update(body).digest('base64url').slice(0, 27));
    ctx.headers.etag = tag.toString();
    if (noneMatch(ctx.request.getHeader('if-none-match'), tag)) {
      // The body stays on the context so that outer interceptors (gzip) see which variant the 304
      // stands for; the pipeline never sends a 304's body or its Content-Type/Length.
      ctx.response.status = 304;
    }
  }
}

/** GET or HEAD, status 200, no `ETag` yet. */
function eligible(ctx: WriterInterceptorContext): boolean {
  const method = ctx.request.method;
  return (method === 'GET' || method === 'HEAD') && ctx.response.status === 200 && ctx.headers.etag === undefined;
}

/** Does `If-None-Match` match `tag` (weak comparison, `*` matches a current representation; RFC 9110 §13.1.2)? */
function noneMatch(header: string | undefined, tag: EntityTag): boolean {
  if (header === undefined) return false;
  const list = EntityTag.parseList(header);
  return list === '*' || list.some((t) => t.weakEquals(tag));
}

/** The response's declared `Content-Length`, when it is a valid one. */
function declaredLength(headers: OutgoingHeaders): number | undefined {
  const v = headers['content-length'];
  if (v === undefined || Array.isArray(v)) return undefined;
  const n = typeof v === 'number' ? v : /^[0-9]+$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * Reads a stream body whose declared length is `length` (at most `maxBytes`) into one Buffer.
 * More or fewer bytes than declared is an error (the response could not have been sent either).
 */
async function readExactly(stream: Readable, length: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string | Uint8Array);
    total += b.byteLength;
    // Leaving the loop destroys the stream: a producer that lies about its length stops here.
    if (total > length) break;
    chunks.push(b);
  }
  if (total !== length) {
    throw new Error(`ETagFeature: the stream body has ${total > length ? 'more' : 'fewer'} bytes than its Content-Length ${length}`);
  }
  return Buffer.concat(chunks, total);
}
