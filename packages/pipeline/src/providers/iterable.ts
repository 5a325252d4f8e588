/**
 * Streamed results: a resource method that returns an async iterable (an `async *` generator) or
 * an iterator (a generator object) of values gets them written one by one as they come, framed
 * for the response's media type: a JSON array, NDJSON lines, or server-sent events.
 */
import { Buffer } from 'node:buffer';
import { Readable } from 'node:stream';
import { ReadableStream } from 'node:stream/web';
import type { MediaType } from '../core/http/media-type.js';
import type { Body, MessageBodyWriter, TypeToken, WriteContext } from '../core/context/contracts.js';
import { isThenable } from '../core/util/thenable.js';
import { eventStreamData } from './event-stream.js';
import { replacerFor, type JsonOptions } from './json-options.js';
import { BODY_STAGE_HIGH_WATER_MARK } from './stream.js';
import { charsetOf, encodingOf, isStreamType, isSubtypeOf } from './type-tokens.js';

/** How items are framed: `[a,b]`, `a\nb\n`, or one `data:` event each. */
type Framing = 'array' | 'lines' | 'events';

/**
 * Serialised items are gathered into one chunk up to this many UTF-16 units before it is pushed:
 * a write per item costs a chunk header and a socket write each (800 000 rows of 45 bytes made
 * as many writes). Items that come in the same event-loop turn share a chunk; a slower producer's
 * item leaves at the end of its turn (`setImmediate`), so nothing waits for a batch to fill.
 */
const BATCH_UNITS = 16 * 1024;

/**
 * Writes the values of a streamed result (an async iterable or an iterator, but not a Node
 * `Readable` nor a web `ReadableStream`, which are byte streams for `StreamWriter`):
 *
 * - `application/json` (and `+json` types): one JSON array, `[`, the items separated by `,`, `]`,
 *   so the body is valid JSON for any client (an empty stream is `[]`);
 * - `application/x-ndjson` or `application/jsonl`: one compact JSON text per item, each ended by
 *   `\n` (NDJSON / JSON Lines; `JsonOptions.indent` is ignored, an item must stay on its line);
 * - `text/event-stream`: one `data:` event per item (WHATWG HTML §9.2.6), a string as its text,
 *   anything else as JSON, multi-line data split into `data:` lines; `Cache-Control: no-cache`
 *   unless the response set one.
 *
 * Items are serialised as the JSON writer does, with the {@link JsonOptions} the
 * `ContextResolver<JsonOptions>` gives for the item's class (dates, null omission, replacer). A
 * string item is a JSON string (text under `text/event-stream`); a `Buffer`/`Uint8Array` item is
 * taken as the item already serialised (UTF-8 JSON, or the event's text) and framed as it is.
 *
 * The first item is pulled in `writeTo`, before the status line is sent: if the iterator fails
 * there, or the item cannot be serialised (a BigInt, a cycle), the error takes the normal path
 * (exception mappers, the error body). Later items are pulled only as fast as the consumer reads
 * (`Readable` backpressure); a later failure destroys the stream, so the response is cut rather
 * than completed. Destroying the stream (the client went away, HEAD, a 204) calls the iterator's
 * `return()`, so a generator's `finally` blocks run.
 * @example
 * @GET() @Produces('application/x-ndjson')
 * async *rows(): AsyncGenerator<Row> { for await (const row of db.cursor()) yield row; }
 */
export class IterableWriter implements MessageBodyWriter<unknown> {
  readonly name = 'IterableWriter';
  /** JSON first: the array is what a client asking for anything can parse. */
  readonly produces: readonly string[] = ['application/json', 'application/x-ndjson', 'application/jsonl', 'text/event-stream'];
  private readonly resolve: ((type: TypeToken) => JsonOptions | undefined) | undefined;

  /** @param resolve the `ContextResolver<JsonOptions>` lookup, as for {@link JsonWriter}. */
  constructor(resolve?: (type: TypeToken) => JsonOptions | undefined) {
    this.resolve = resolve;
  }

  isWriteable(type: TypeToken, mediaType: MediaType): boolean {
    return framingOf(mediaType) !== undefined && isItemStreamType(type);
  }

  writeTo(entity: unknown, _type: TypeToken, mediaType: MediaType, ctx?: WriteContext): Body | Promise<Body> {
    const framing = framingOf(mediaType);
    if (framing === undefined) throw new TypeError(`IterableWriter cannot write ${mediaType.essence}`);
    const iterator = iteratorOf(entity);
    // As the SSE feature does: an intermediary must not cache or serve a stale copy of a live stream.
    if (framing === 'events' && ctx !== undefined && ctx.response.headers['cache-control'] === undefined) {
      ctx.response.headers['cache-control'] = 'no-cache';
    }
    const encoder = new ItemEncoder(framing, this.resolve);
    const first = iterator.next();
    if (isThenable(first)) return Promise.resolve(first).then((r) => begin(iterator, encoder, r));
    return begin(iterator, encoder, first);
  }
}

/** Types the writer takes: async iterables and iterators, not byte streams (Readable, ReadableStream). */
function isItemStreamType(type: TypeToken): boolean {
  return isStreamType(type) && !isSubtypeOf(type, Readable) && !isSubtypeOf(type, ReadableStream);
}

/** The framing for a media type, or undefined; only UTF-8 (RFC 8259 §8.1; SSE is always UTF-8). */
function framingOf(mt: MediaType): Framing | undefined {
  if (mt.type === 'application') {
    if (mt.subtype === 'x-ndjson' || mt.subtype === 'jsonl') return utf8(mt) ? 'lines' : undefined;
    if (mt.subtype === 'json' || mt.subtype.endsWith('+json')) return utf8(mt) ? 'array' : undefined;
    return undefined;
  }
  return mt.type === 'text' && mt.subtype === 'event-stream' && utf8(mt) ? 'events' : undefined;
}

function utf8(mt: MediaType): boolean {
  return encodingOf(charsetOf(mt)) === 'utf8';
}

type AnyIterator = Iterator<unknown> | AsyncIterator<unknown>;

function iteratorOf(entity: unknown): AnyIterator {
  if (typeof entity === 'object' && entity !== null) {
    const open = (entity as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator];
    if (typeof open === 'function') return open.call(entity) as AsyncIterator<unknown>;
    if (typeof (entity as { next?: unknown }).next === 'function') return entity as Iterator<unknown>;
  }
  throw new TypeError('IterableWriter needs an async iterable or an iterator (e.g. a generator object)');
}

/** The answer once the first item is known: the whole body when there is none, else the stream. */
function begin(iterator: AnyIterator, encoder: ItemEncoder, first: IteratorResult<unknown>): Body {
  if (first.done === true) return encoder.end();
  let text: string;
  try {
    text = encoder.item(first.value);
  } catch (err) {
    close(iterator); // the iterator did not fail: let its `finally` run
    throw err;
  }
  return new ItemStream(iterator, encoder, text);
}

/** Ends an iterator we stop consuming (`return()`), ignoring what its `finally` throws. */
function close(iterator: AnyIterator): void {
  try {
    const r = iterator.return?.();
    if (isThenable(r)) r.then(undefined, ignore);
  } catch {
    /* a finally that throws: the response is already decided */
  }
}

const ignore = (): void => {};

/** Serialises and frames items for one response. */
class ItemEncoder {
  private count = 0;
  private optionsType: unknown = undefined;
  private options: JsonOptions | undefined = undefined;

  constructor(
    private readonly framing: Framing,
    private readonly resolve: ((type: TypeToken) => JsonOptions | undefined) | undefined,
  ) {}

  /** One framed item; throws when it cannot be serialised (BigInt, a cycle). */
  item(value: unknown): string {
    const text = this.text(value);
    if (this.framing === 'lines') return `${text}\n`;
    if (this.framing === 'events') return `${eventStreamData(text)}\n`;
    return this.count++ === 0 ? `[${text}` : `,${text}`;
  }

  /** What closes the body. */
  end(): string {
    if (this.framing !== 'array') return '';
    return this.count === 0 ? '[]' : ']';
  }

  private text(value: unknown): string {
    if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8');
    if (typeof value === 'string' && this.framing === 'events') return value;
    const options = this.optionsFor(value);
    const json =
      options === undefined
        ? JSON.stringify(value)
        : JSON.stringify(value, replacerFor(options), this.framing === 'lines' ? undefined : options.indent);
    // `undefined`, a function or a symbol: `null`, as JSON.stringify writes them inside an array.
    return json === undefined ? 'null' : json;
  }

  /** The options for the item's class; a stream's items usually share one, so the last is kept. */
  private optionsFor(value: unknown): JsonOptions | undefined {
    if (this.resolve === undefined) return undefined;
    const type = typeOfValue(value);
    if (type !== this.optionsType) {
      this.optionsType = type;
      this.options = this.resolve(type);
    }
    return this.options;
  }
}

/** The class of an item, from its prototype (never an own `constructor` property). */
function typeOfValue(value: unknown): TypeToken {
  switch (typeof value) {
    case 'string':
      return String;
    case 'number':
      return Number;
    case 'boolean':
      return Boolean;
    case 'object': {
      if (value === null) return Object;
      const proto = Object.getPrototypeOf(value) as { constructor?: TypeToken } | null;
      return proto?.constructor ?? Object;
    }
    default:
      return Object;
  }
}

/**
 * The byte stream of the items after the first: pulls one item at a time while the consumer
 * wants more (`_read` until `push` refuses), so at most a batch beyond the highWaterMark is ever
 * held here.
 */
class ItemStream extends Readable {
  private pending: string;
  /** The consumer asked for data and `push` has not refused since. */
  private wanted = false;
  private pulling = false;
  /** The iterator is finished (done, threw, or closed by us): never call `return()` again. */
  private finished = false;
  private flushTimer: NodeJS.Immediate | undefined = undefined;

  constructor(
    private readonly source: AnyIterator,
    private readonly encoder: ItemEncoder,
    first: string,
  ) {
    super({ highWaterMark: BODY_STAGE_HIGH_WATER_MARK });
    this.pending = first;
  }

  override _read(): void {
    this.wanted = true;
    // What is already serialised (the first item, or a batch held back) leaves this turn, not
    // when the next item comes: a slow producer's first event must not wait for its second.
    if (this.pending !== '') this.flushTimer ??= setImmediate(this.flushLater);
    if (!this.pulling) void this.pump();
  }

  private async pump(): Promise<void> {
    this.pulling = true;
    try {
      while (this.wanted && !this.destroyed) {
        let result: IteratorResult<unknown>;
        try {
          const next = this.source.next();
          result = isThenable(next) ? await next : next;
        } catch (err) {
          this.finished = true; // an iterator that threw is done (ECMA-262 §27.6.3.7)
          if (!this.destroyed) this.fail(err); // else the response is gone already
          return;
        }
        if (this.destroyed) return; // destroyed while waiting: _destroy closed the iterator
        if (result.done === true) {
          this.finished = true;
          this.pending += this.encoder.end();
          this.flush();
          this.push(null);
          return;
        }
        try {
          this.pending += this.encoder.item(result.value);
        } catch (err) {
          this.fail(err);
          return;
        }
        if (this.pending.length >= BATCH_UNITS) this.flush();
        else this.flushTimer ??= setImmediate(this.flushLater);
      }
    } finally {
      this.pulling = false;
    }
  }

  private readonly flushLater = (): void => {
    this.flushTimer = undefined;
    if (!this.destroyed) this.flush();
  };

  private flush(): void {
    if (this.flushTimer !== undefined) {
      clearImmediate(this.flushTimer);
      this.flushTimer = undefined;
    }
    if (this.pending === '') return;
    const chunk = this.pending;
    this.pending = '';
    if (!this.push(chunk)) this.wanted = false;
  }

  /**
   * After the first byte nothing can be mapped (Processing rules §4): what was produced goes out,
   * then the stream fails, and the response pipe cuts the connection without completing the body.
   */
  private fail(err: unknown): void {
    this.flush();
    this.destroy(err instanceof Error ? err : new Error(String(err)));
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    if (this.flushTimer !== undefined) {
      clearImmediate(this.flushTimer);
      this.flushTimer = undefined;
    }
    this.pending = '';
    if (!this.finished) {
      this.finished = true;
      close(this.source);
    }
    callback(err);
  }
}
