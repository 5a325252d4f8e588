import { STATUS_CODES, type IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { TypeToken } from '../core/context/contracts.js';
import { headerName } from '../core/http/header-name.js';
import { parseMediaType, type MediaType } from '../core/http/media-type.js';
import type { Response } from '../core/http/response.js';
import { parseContentRange, type ContentRange } from '../core/ranges/byte-ranges.js';
import { readBody } from '../providers/read-body.js';
import { isSubtypeOf } from '../providers/type-tokens.js';
import { ClientErrorCode, ClientProcessingError } from './errors.js';
import { ClientReadCtx } from './read-entity.js';
import type { ClientChains, ClientProviders } from './registry.js';
import type { ClientRequestContext } from './request-context.js';

/** What a response needs from the call that produced it, to read its entity. */
export interface ResponseRuntime {
  readonly providers: ClientProviders;
  readonly chains: ClientChains;
  /** `maxResponseBytes` of the call. */
  readonly limit: number;
  /** A failure while reading `type`, as the call reports failures (the caller's abort reason as is, then the failure mappers). */
  fail(error: unknown, type: TypeToken): Error;
}

/**
 * The value a `readEntity(Type)` gives: `String` → string, a class → its instances, nothing → unknown.
 * @example const text: EntityOf<StringConstructor> = await response.readEntity(String);
 */
export type EntityOf<T> = T extends StringConstructor
  ? string
  : T extends NumberConstructor
    ? number
    : T extends BooleanConstructor
      ? boolean
      : T extends ObjectConstructor
        ? unknown
        : T extends abstract new (...args: never[]) => infer I
          ? I
          : unknown;

/**
 * A response as the client received it (JAX-RS client `Response` and `ClientResponseContext`):
 * status and headers, and the entity, read once through the readers with {@link readEntity}.
 * Response filters may change the status and headers or replace {@link entityStream}.
 * `T` is the entity type a typed client knows for it (a contract method returning `Response<User>`
 * gives a `ClientResponse<User>` from `responseProxy`): what {@link readEntity} without a type
 * resolves with. It is not checked against the bytes: a JSON reader gives JSON values.
 * @example
 * const r = await client.target(base).path('users').request('application/json').post({ name: 'Ada' });
 * if (r.status === 201) console.log(r.getHeader('location'), await r.readEntity());
 */
export class ClientResponse<T = unknown> {
  status: number;
  /** Response headers, lower-case names (`set-cookie` is a list). */
  headers: IncomingHttpHeaders;
  /** The request that produced this response. */
  readonly request: ClientRequestContext;
  /** The entity's bytes, undefined when there is none (HEAD, 204, 304) or once read. */
  entityStream: Readable | undefined;
  private buffered: Buffer | undefined;
  /** The stream was handed to a reader: a second read needs {@link bufferEntity}. */
  private consumed: boolean;
  /** An entity given as a value (a request filter's `abortWith`): read as it is, no reader. */
  private readonly value: { readonly entity: unknown } | undefined;
  private readonly rt: ResponseRuntime;

  /** @internal Responses are made by the client. */
  constructor(
    rt: ResponseRuntime,
    request: ClientRequestContext,
    status: number,
    headers: IncomingHttpHeaders,
    stream: Readable | undefined,
    value?: { readonly entity: unknown },
  ) {
    this.rt = rt;
    this.request = request;
    this.status = status;
    this.headers = headers;
    this.entityStream = stream;
    this.buffered = undefined;
    this.consumed = false;
    this.value = value;
  }

  /**
   * The response a request filter gave to `abortWith`: its status, headers (as strings) and entity
   * as a value.
   * @internal
   */
  static fromAbort(rt: ResponseRuntime, request: ClientRequestContext, response: Response): ClientResponse {
    const headers: IncomingHttpHeaders = {};
    for (const [k, v] of Object.entries(response.headers)) headers[k] = Array.isArray(v) ? v.map(String) : String(v);
    return new ClientResponse(rt, request, response.status, headers, undefined, { entity: response.entity });
  }

  /** The reason phrase of the status (RFC 9110), e.g. `Created`. */
  get reason(): string {
    return STATUS_CODES[this.status] ?? '';
  }

  /** Is the status 2xx? */
  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  /** A header value; a list is joined with `, ` (RFC 9110 §5.3). */
  getHeader(name: string): string | undefined {
    const v = this.headers[headerName(name)];
    return Array.isArray(v) ? v.join(', ') : v;
  }

  /** The `Content-Type`, parsed; undefined when absent or unparsable. */
  get mediaType(): MediaType | undefined {
    const ct = this.headers['content-type'];
    return ct === undefined ? undefined : parseMediaType(ct);
  }

  /**
   * The `Content-Range` of a 206 (which bytes of how many) or of a 416 (only the length), parsed;
   * undefined without one or when it is not a valid byte range (RFC 9110 §14.4).
   * @example const { start, end, length } = (await files.download(7)).contentRange ?? {};
   */
  get contentRange(): ContentRange | undefined {
    const v = this.headers['content-range'];
    return typeof v === 'string' ? parseContentRange(v) : undefined;
  }

  /** Is there an entity to read (bytes not yet read, a buffered body, or a value)? */
  hasEntity(): boolean {
    if (this.value !== undefined) return this.value.entity !== undefined && this.value.entity !== null;
    if (this.buffered !== undefined) return this.buffered.length > 0;
    return this.entityStream !== undefined && this.headers['content-length'] !== '0';
  }

  /**
   * Reads the entity as `type` through the reader interceptors and the readers (default `Object`:
   * JSON as a value, `text/*` as a string, other bytes as a Buffer). `String`, `Buffer`,
   * `Readable` (streamed, still counted against `maxResponseBytes`), `URLSearchParams` and any type
   * a registered reader takes work too. Resolves `undefined` when there is no entity. The bytes can
   * be read once; call {@link bufferEntity} first to read them again.
   * @throws ClientProcessingError `CLIENT_RESPONSE_UNREADABLE` (no reader, bad bytes),
   *   `CLIENT_RESPONSE_TOO_LARGE`, `CLIENT_ENTITY_CONSUMED`, or a transport failure of the body.
   * Without `type`, it resolves as the response's entity type `T` (see the class), or as the type
   * argument given.
   * @example const users = await response.readEntity<User[]>();
   */
  readEntity<C extends TypeToken>(type: C): Promise<EntityOf<C>>;
  readEntity<E = T>(): Promise<E>;
  async readEntity(type: TypeToken = Object): Promise<unknown> {
    if (this.value !== undefined) return valueAs(this.value.entity, type);
    const input = this.take();
    if (input === undefined) return isSubtypeOf(type, Readable) ? Readable.from([]) : undefined;
    const declared = this.buffered === undefined ? this.headers['content-length'] : String(this.buffered.length);
    const length = declared === undefined ? undefined : Number(declared);
    const rt = this.rt;
    const ctx = new ClientReadCtx(
      this.request,
      this,
      type,
      this.mediaType,
      input,
      rt.limit,
      rt.chains.readerInterceptors,
      rt.providers,
      length,
    );
    try {
      return await ctx.proceed();
    } catch (e) {
      // A reader that gave up (too large, bad bytes) may leave bytes unread: drop the body, or
      // undici would keep the request (and its socket) open for it.
      if (!input.readableEnded) drop(input);
      throw rt.fail(e, type);
    }
  }

  /**
   * Reads the entity's bytes into memory (at most `maxResponseBytes`), so that {@link readEntity}
   * can be called more than once (JAX-RS `bufferEntity`).
   */
  async bufferEntity(): Promise<void> {
    if (this.buffered !== undefined || this.value !== undefined || this.entityStream === undefined) return;
    const input = this.take()!;
    const declared = this.headers['content-length'];
    try {
      this.buffered = await readBody(input, this.rt.limit, declared === undefined ? undefined : Number(declared));
    } catch (e) {
      if (!input.readableEnded) drop(input);
      throw this.rt.fail(e, Buffer);
    }
  }

  /** The entity's bytes as UTF-8 text, whatever the media type (`''` without entity). */
  async text(): Promise<string> {
    const v = await this.readEntity(Buffer);
    return v === undefined ? '' : Buffer.isBuffer(v) ? v.toString('utf8') : String(v as unknown);
  }

  /**
   * Releases an entity nobody will read, so the connection can serve the next request (undici
   * keeps it until the body is read or dropped; JAX-RS `Response.close`). Safe to call twice.
   */
  close(): void {
    const stream = this.entityStream;
    this.entityStream = undefined;
    if (stream !== undefined) discard(stream);
  }

  /** The bytes to read: the buffered copy (again and again), or the stream (once). */
  private take(): Readable | undefined {
    if (this.buffered !== undefined) return Readable.from(this.buffered.length === 0 ? [] : [this.buffered]);
    const stream = this.entityStream;
    if (stream === undefined) {
      if (this.consumed) {
        throw new ClientProcessingError(
          ClientErrorCode.EntityConsumed,
          'The response entity was already read: call bufferEntity() before the first readEntity() to read it more than once',
        );
      }
      return undefined;
    }
    this.entityStream = undefined;
    this.consumed = true;
    return stream;
  }
}

/** An entity given as a value, for a caller that asks for `type`. */
function valueAs(entity: unknown, type: TypeToken): unknown {
  if (!isSubtypeOf(type, Readable) || entity instanceof Readable || entity === undefined || entity === null) return entity;
  return Readable.from(typeof entity === 'string' || entity instanceof Uint8Array ? [entity] : [JSON.stringify(entity)]);
}

/** Destroys a body nobody reads any more (its late errors are ignored). */
function drop(stream: Readable): void {
  stream.on('error', () => undefined);
  stream.destroy();
}

/** Drops a body: undici's `dump()` reads a little so the socket can be reused, else it is destroyed. */
export function discard(stream: Readable): void {
  stream.on('error', () => undefined);
  const dump = (stream as { dump?: (o: { limit: number }) => Promise<void> }).dump;
  if (typeof dump === 'function') dump.call(stream, { limit: 16 * 1024 }).catch(() => undefined);
  else stream.destroy();
}
