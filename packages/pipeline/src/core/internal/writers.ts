/**
 * The writer side of the entity providers: the entity's type, the media type to write it as
 * (Accept, `@Produces`, the writers' types), which MessageBodyWriter writes it (cached per runtime,
 * Jakarta REST 3.1 §4.2.2) and the writer interceptor chain around it (§6.3); shared by the
 * request-time write (write-entity.ts), the start-up checks, multipart and the testing entry.
 */
import { InternalServerError, NotAcceptableError } from '../http/errors.js';
import type { Exchange } from './exchange.js';
import { APPLICATION_OCTET_STREAM, mediaTypeString, parseMediaType, type MediaType } from '../http/media-type.js';
import { negotiate } from '../http/negotiation.js';
import type { Body, MessageBodyWriter, TypeToken, WriterInterceptor, WriterInterceptorContext } from '../context/contracts.js';
import type { BodyProviders } from './model.js';
import type { Response } from '../http/response.js';
import { MAX_CACHED_TYPES, mediaTypeKey } from './provider-cache.js';
import { chooseProvider } from './provider-choice.js';
import { nameOf, typeName } from '../util/type-name.js';
import { appendVary } from '../http/vary.js';

/** A writer decision: which writer, which media type, which Content-Type string. */
export interface WritePlan {
  readonly type: TypeToken;
  /** The request's raw Accept header the decision was made for (compared only when it matters, see `planFor` in core/stages/write-entity.ts). */
  readonly accept: string | undefined;
  /** The route's negotiated `@Produces` type it was made with. */
  readonly produced: MediaType | undefined;
  readonly mediaType: MediaType;
  readonly writer: MessageBodyWriter;
  readonly contentType: string;
  /** Accept chose among the writers' types ({@link MediaTypeChoice}): each use adds `Vary: Accept`. */
  readonly variesByAccept: boolean;
}

/**
 * Is the route's negotiated type concrete (no `*`)? Then {@link responseMediaType} answers with it
 * before looking at Accept (for a non-error response without an explicit Content-Type, the only
 * ones `planFor` in write-entity.ts caches), so Accept cannot change the decision. Without `@Produces`, or with
 * a wildcard a filter set, the writers' types are negotiated against Accept.
 */
export function isConcrete(produced: MediaType | undefined): boolean {
  return produced !== undefined && produced.type !== '*' && produced.subtype !== '*';
}

/** %AsyncIteratorPrototype% and %GeneratorPrototype%: the types of iterators made without a class (see {@link typeOf}). */
const ASYNC_ITERATOR_TYPE = Object.getPrototypeOf(Object.getPrototypeOf(async function* () {}.prototype)) as TypeToken;
const ITERATOR_TYPE = Object.getPrototypeOf(function* () {}.prototype) as TypeToken;

/**
 * The declared entity type, else the class of the entity: its prototype's constructor, never an
 * own `constructor` property (a client's JSON `{"constructor": {}}` echoed back must not become
 * a new "type" in the writer caches on every request).
 */
export function typeOf(response: Response): TypeToken {
  if (response.entityType !== undefined && response.entityType !== null) return response.entityType as TypeToken;
  const e = response.entity;
  if (e === null || e === undefined) return Object;
  // The usual entity, a plain object, answered without `Object.getPrototypeOf` (a runtime call
  // on a value of unknown shape, ~120 instructions): a `constructor` that is the `Object`
  // function. Parsed data (JSON, forms) cannot hold a function, so a client's own `constructor`
  // key never takes this path; only code could set one, and then the object says it is an Object.
  // An iterator made without a class inherits `Object` as its constructor too: an object literal
  // with `[Symbol.asyncIterator]`, Node 26's Readable iterator (`Object.create(%AsyncIteratorPrototype%)`;
  // Node 20's is an async generator), Node 20's array iterators. They are typed as the standard
  // iterator prototypes, which the writer of streamed items takes (isStreamType): two property
  // loads more on a plain object.
  if ((e as { constructor?: unknown }).constructor === Object) {
    const it = e as { [Symbol.asyncIterator]?: unknown; [Symbol.iterator]?: unknown; next?: unknown };
    if (it[Symbol.asyncIterator] !== undefined) return ASYNC_ITERATOR_TYPE;
    return it[Symbol.iterator] !== undefined && typeof it.next === 'function' ? ITERATOR_TYPE : Object;
  }
  // Looked up from the prototype: inherited, so it comes from code. Not always a function: for
  // a generator object it is `%GeneratorFunction.prototype%` (see isStreamType).
  const proto = Object.getPrototypeOf(e) as { constructor?: unknown } | null;
  const c = proto === null ? undefined : proto.constructor;
  return c === undefined || c === null ? Object : (c as TypeToken);
}

/** First writer able to write `type` as `mediaType`, or undefined (not cached). */
function findWriter(ex: Exchange, type: TypeToken, mediaType: MediaType): MessageBodyWriter | undefined {
  return writerFor(ex.rt.body, type, mediaType);
}

/**
 * The writer of `body` that would write `type` as `mediaType` (Jakarta REST 3.1 §4.2.2), or
 * undefined; not cached. The request path's lookup, also asked by `build()` for declared types.
 */
export function writerFor(body: BodyProviders, type: TypeToken, mediaType: MediaType): MessageBodyWriter | undefined {
  return chooseProvider(
    body.writers,
    (w) => w.isWriteable(type, mediaType),
    (w) => w.produces,
    mediaType,
    body.builtin,
  );
}

/**
 * First writer able to write `type` as `mediaType`; cached (`BodyProviders.writerChoices`) by (type, full media
 * type: writers decide on parameters too, e.g. a charset), per writer list. The cache is bounded
 * ({@link ProviderCache}): through a wildcard `@Produces` the media type is the client's Accept
 * range, parameters included. None → 500 (not cached: an error path).
 */
export function selectWriter(ex: Exchange, type: TypeToken, mediaType: MediaType): MessageBodyWriter {
  const cache = ex.rt.body.writerChoices;
  const key = mediaTypeKey(mediaType);
  let writer = cache.get(type, key);
  if (writer === undefined) {
    writer = findWriter(ex, type, mediaType);
    if (writer === undefined) {
      throw new InternalServerError(`No MessageBodyWriter for ${typeName(type)} as ${mediaType.essence}`, { code: 'PIPE_NO_WRITER' });
    }
    cache.set(type, key, writer);
  }
  if (ex.trace !== undefined) ex.trace.push(`writer:${nameOf(writer)}`);
  return writer;
}

/**
 * The media type to write, and whether Accept picked it among several writer types (a string:
 * `text/plain` or JSON), so the response varies on Accept (docs/decisions.md 14).
 */
export interface MediaTypeChoice {
  readonly mediaType: MediaType;
  readonly variesByAccept: boolean;
}

/** An explicit Content-Type, the route's negotiated type, or the writers' (406 if none fits). */
export function chooseMediaType(ex: Exchange, response: Response, type: TypeToken): MediaTypeChoice {
  const explicit = response.headers['content-type'];
  if (explicit !== undefined) {
    const parsed = parseMediaType(String(explicit));
    if (parsed !== undefined) return { mediaType: parsed, variesByAccept: false };
  }
  const failing = response.status >= 400 || ex.mapped;
  const routeType = ex.responseMediaType;
  if (routeType !== undefined && isConcrete(routeType)) {
    // An error entity (e.g. the error body on a text/csv route) may have no writer for the
    // route's type: then it falls back to what the writers offer for it, instead of a 500.
    if (!failing || findWriter(ex, type, routeType) !== undefined) return { mediaType: routeType, variesByAccept: false };
  }
  const candidates = writerMediaTypes(ex, type);
  const variesByAccept = candidates.length > 1;
  const chosen = negotiate(ex.acceptableMediaTypes, candidates);
  if (chosen !== undefined && chosen.type !== '*' && chosen.subtype !== '*') return { mediaType: chosen, variesByAccept };
  // An error response must still go out even when Accept excludes every type (RFC 9110 §15.5.7 allows it).
  if (chosen === undefined && !failing) throw notAcceptable();
  return { mediaType: candidates[0] ?? APPLICATION_OCTET_STREAM, variesByAccept };
}

/**
 * {@link chooseMediaType} for the paths without a write plan (writer interceptors, the testing
 * helpers): the type, with `Vary: Accept` added when Accept picked it.
 */
export function responseMediaType(ex: Exchange, response: Response, type: TypeToken): MediaType {
  const choice = chooseMediaType(ex, response, type);
  if (choice.variesByAccept) appendVary(response.headers, 'Accept');
  return choice.mediaType;
}

/** Media types the registered writers declare for `type`, in writer order (cached). */
function writerMediaTypes(ex: Exchange, type: TypeToken): MediaType[] {
  const byRt = ex.rt.body.writerTypes;
  let list = byRt.get(type);
  if (list === undefined) {
    list = [];
    for (const w of ex.rt.body.writers) {
      const produces = w.produces ?? [APPLICATION_OCTET_STREAM.essence];
      for (const p of produces) {
        const mt = parseMediaType(p);
        if (mt !== undefined && w.isWriteable(type, mt) && !list.some((m) => m.essence === mt.essence)) list.push(mt);
      }
    }
    // Bounded like the other caches: types come from code, but a bug elsewhere must not grow it.
    if (byRt.size < MAX_CACHED_TYPES) byRt.set(type, list);
  }
  return list;
}

const contentTypeStrings = new Map<MediaType, string>();

/** `Content-Type` value; text types get `charset=utf-8` (our writers emit UTF-8). */
export function contentTypeOf(mt: MediaType): string {
  let s = contentTypeStrings.get(mt);
  if (s === undefined) {
    s = mt.type === 'text' && mt.params.charset === undefined ? `${mediaTypeString(mt)}; charset=utf-8` : mediaTypeString(mt);
    if (contentTypeStrings.size < 256) contentTypeStrings.set(mt, s);
  }
  return s;
}

export class WriteCtx implements WriterInterceptorContext {
  readonly request: Exchange;
  readonly response: Response;
  entity: unknown;
  type: TypeToken;
  mediaType: MediaType;
  body: Body | undefined;
  private i = 0;

  constructor(
    ex: Exchange,
    response: Response,
    type: TypeToken,
    mediaType: MediaType,
    private readonly chain: readonly WriterInterceptor[],
  ) {
    this.request = ex;
    this.response = response;
    this.entity = response.entity;
    this.type = type;
    this.mediaType = mediaType;
    this.body = undefined;
  }

  get headers(): Response['headers'] {
    return this.response.headers;
  }

  async proceed(): Promise<void> {
    const interceptor = this.chain[this.i++];
    if (interceptor !== undefined) {
      if (this.request.trace !== undefined) this.request.trace.push(`writer-interceptor:${nameOf(interceptor)}`);
      await interceptor.aroundWriteTo(this);
      return;
    }
    const writer = selectWriter(this.request, this.type, this.mediaType);
    this.response.headers['content-type'] = contentTypeOf(this.mediaType);
    this.body = await writer.writeTo(this.entity, this.type, this.mediaType, { request: this.request, response: this.response });
  }

  getProperty(name: string): unknown {
    return this.request.getProperty(name);
  }
  setProperty(name: string, value: unknown): void {
    this.request.setProperty(name, value);
  }
}

/** 406: nothing the server can produce is acceptable (matching, and writers for an entity without `@Produces`). */
export function notAcceptable(): NotAcceptableError {
  return new NotAcceptableError('None of the acceptable media types can be produced', { code: 'PIPE_NOT_ACCEPTABLE' });
}
