/**
 * The reader side of the entity providers: which MessageBodyReader reads a type as a media type
 * (cached per runtime, Jakarta REST 3.1 §4.2.1) and the reader interceptor chain around it
 * (§6.3), shared by the request-time read (read-entity.ts), the start-up checks and the testing entry.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { NotSupportedError } from '../http/errors.js';
import type { Exchange } from './exchange.js';
import type { MediaType } from '../http/media-type.js';
import type { BodyProviders } from './model.js';
import type { MessageBodyReader, ReadContext, ReaderInterceptor, ReaderInterceptorContext, TypeToken } from '../context/contracts.js';
import { isThenable } from '../util/thenable.js';
import { mediaTypeKey } from './provider-cache.js';
import { chooseProvider } from './provider-choice.js';
import { nameOf } from '../util/type-name.js';

/**
 * Picks the first reader able to read `type` as `mediaType` (readers are pre-sorted). The choice
 * is cached per reader list (one per runtime, built once, never changed) and (type, full media
 * type with its parameters: a reader may decide on the charset), bounded by
 * {@link ProviderCache} because the media type is the client's `Content-Type`. A miss is not
 * cached: it is the 415 error path, a scan costs no more than before, and junk media types do not
 * take the slots real ones need.
 */
export function selectReader(body: BodyProviders, type: TypeToken, mediaType: MediaType | undefined): MessageBodyReader {
  const cache = body.readerChoices;
  const key = mediaTypeKey(mediaType);
  const hit = cache.get(type, key);
  if (hit !== undefined) return hit;
  const chosen = readerFor(body, type, mediaType);
  if (chosen !== undefined) {
    cache.set(type, key, chosen);
    return chosen;
  }
  throw new NotSupportedError(`No reader for ${mediaType?.essence ?? 'a body without Content-Type'}`, { code: 'PIPE_NO_READER' });
}

/**
 * The reader of `body` that would read `type` as `mediaType` (Jakarta REST 3.1 §4.2.1), or
 * undefined; not cached. The request path's lookup, also asked by `build()` for declared types.
 */
export function readerFor(body: BodyProviders, type: TypeToken, mediaType: MediaType | undefined): MessageBodyReader | undefined {
  return chooseProvider(
    body.readers,
    (r) => r.isReadable(type, mediaType),
    (r) => r.consumes,
    mediaType,
    body.builtin,
  );
}

/**
 * The `Content-Length` that describes `ctx.input`: the header's value while the input is still
 * the raw request, `undefined` once an interceptor replaced the stream (a decoded stream has
 * another length, whether or not the interceptor dropped the header). Not validated
 * (`Number('x')` is NaN): the consumer decides what an invalid value means, as for raw bodies.
 * Readers get it as `ReadContext.contentLength`; decoding interceptors (gzip) use it to refuse an
 * oversized encoded body before reading it.
 */
export function declaredLength(ctx: ReaderInterceptorContext): number | undefined {
  if (ctx.input !== ctx.request.raw) return undefined;
  const cl = ctx.headers['content-length'];
  return cl === undefined ? undefined : contentLengthValue(cl);
}

/**
 * `Number(value)` of a `Content-Length` value, reading the usual one (1 to 15 decimal digits, all
 * that Node's parser lets through) digit by digit: V8's string-to-number conversion of a fresh
 * string first hashes it to test for an array index, about 300 instructions per request (issue
 * 27's profile). Anything else goes through `Number`, so the result is the same for every string.
 */
export function contentLengthValue(value: string): number {
  const n = value.length;
  if (n === 0 || n > 15) return Number(value);
  let v = 0;
  for (let i = 0; i < n; i++) {
    const d = value.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number(value);
    v = v * 10 + d;
  }
  return v;
}

/** A route's last reader decision (the `writePlan` of the reading side): the same type and parsed media type give the same reader. */
export interface ReadPlan {
  readonly type: TypeToken;
  /** The parsed `Content-Type` (parseMediaType answers the same frozen object for the same value). */
  readonly mediaType: MediaType | undefined;
  readonly reader: MessageBodyReader;
}

/**
 * `readFrom`'s callback form, kept on the `readFrom` function of a built-in reader under
 * {@link READ_INTO} (so a subclass that overrides `readFrom`, or a reader delegating to a bound
 * copy, is called as written): the same outcome, answered to `onValue` or `onError`, never both.
 */
export type ReadInto = (
  reader: MessageBodyReader,
  type: TypeToken,
  mediaType: MediaType | undefined,
  input: Readable,
  ctx: ReadContext,
  onValue: (value: unknown) => void,
  onError: (reason: unknown) => void,
) => void;

/** The key of a `readFrom` function's {@link ReadInto} twin (a symbol: not part of the public surface). */
export const READ_INTO: unique symbol = Symbol('readInto');

/** Gives a reader's `readFrom` its callback twin (the JSON reader's: the usual request body). */
export function readsInto(readFrom: MessageBodyReader['readFrom'], into: ReadInto): void {
  Object.defineProperty(readFrom, READ_INTO, { value: into });
}

/**
 * The reader for `type` as `mediaType` reading the raw request, what {@link ReadCtx.proceed}
 * does at the end of an empty interceptor chain, answered to `onValue` or `onError` (exactly one,
 * once), without the context object. A reader with a {@link ReadInto} twin answers from the
 * body's `end` event, with no promise between the body and the resource method; any other
 * reader's promise is chained once, and a plain value is passed on at once.
 */
export function readDirectInto(
  ex: Exchange,
  type: TypeToken,
  mediaType: MediaType | undefined,
  onValue: (value: unknown) => void,
  onError: (reason: unknown) => void,
): void {
  let reader: MessageBodyReader;
  let ctx: ReadContext;
  try {
    reader = routeReader(ex, type, mediaType);
    if (ex.trace !== undefined) ex.trace.push(`reader:${nameOf(reader)}`);
    const cl = ex.headers['content-length'];
    ctx = {
      request: ex,
      headers: ex.headers,
      limit: ex.rt.limits.bodyLimit,
      contentLength: cl === undefined ? undefined : contentLengthValue(cl),
    };
  } catch (e) {
    onError(e);
    return;
  }
  const into = (reader.readFrom as { [READ_INTO]?: ReadInto })[READ_INTO];
  if (into !== undefined) {
    into(reader, type, mediaType, ex.raw, ctx, onValue, onError);
    return;
  }
  let r: unknown;
  try {
    r = reader.readFrom(type, mediaType, ex.raw, ctx);
  } catch (e) {
    onError(e);
    return;
  }
  if (isThenable(r)) Promise.resolve(r).then(onValue, onError);
  else onValue(r);
}

/**
 * {@link selectReader} remembered per route for the last (type, parsed media type): the usual
 * request skips the cache's three hash lookups. The choice is a function of the two (readers are
 * fixed at build), so the remembered one is the one the cache would give.
 */
function routeReader(ex: Exchange, type: TypeToken, mediaType: MediaType | undefined): MessageBodyReader {
  const route = ex.route;
  if (route === undefined) return selectReader(ex.rt.body, type, mediaType);
  const plan = route.readPlan;
  if (plan !== undefined && plan.type === type && plan.mediaType === mediaType) return plan.reader;
  const reader = selectReader(ex.rt.body, type, mediaType);
  route.readPlan = { type, mediaType, reader };
  return reader;
}

export class ReadCtx implements ReaderInterceptorContext {
  readonly request: Exchange;
  type: TypeToken;
  mediaType: MediaType | undefined;
  readonly headers: IncomingHttpHeaders;
  input: Readable;
  limit: number;
  private i = 0;

  constructor(
    ex: Exchange,
    type: TypeToken,
    mediaType: MediaType | undefined,
    private readonly chain: readonly ReaderInterceptor[],
  ) {
    this.request = ex;
    this.type = type;
    this.mediaType = mediaType;
    // Interceptors may drop Content-Encoding/Content-Length after decoding: they get a copy.
    this.headers = chain.length === 0 ? ex.headers : { ...ex.headers };
    this.input = ex.raw;
    this.limit = ex.rt.limits.bodyLimit;
  }

  /**
   * The next interceptor, or the reader, as a promise. Not `async`: the usual reader already
   * answers a native promise, which goes back as it is (an `async` wrapper would add a promise and
   * two microtask turns per request); a throw still becomes a rejection.
   */
  proceed(): Promise<unknown> {
    try {
      const r = this.next();
      return r instanceof Promise ? r : Promise.resolve(r);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  private next(): unknown {
    const interceptor = this.chain[this.i++];
    if (interceptor !== undefined) {
      if (this.request.trace !== undefined) this.request.trace.push(`reader-interceptor:${nameOf(interceptor)}`);
      return interceptor.aroundReadFrom(this);
    }
    const reader = selectReader(this.request.rt.body, this.type, this.mediaType);
    if (this.request.trace !== undefined) this.request.trace.push(`reader:${nameOf(reader)}`);
    return reader.readFrom(this.type, this.mediaType, this.input, {
      request: this.request,
      headers: this.headers,
      limit: this.limit,
      contentLength: declaredLength(this),
    });
  }

  getProperty(name: string): unknown {
    return this.request.getProperty(name);
  }
  setProperty(name: string, value: unknown): void {
    this.request.setProperty(name, value);
  }
}
