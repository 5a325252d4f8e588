/**
 * Reading server-sent events (WHATWG HTML §9.2): an async iterable of events over the client's
 * calls (its filters, interceptors and mappers apply to each connection), reconnecting as
 * `EventSource` does (§9.2.3): after a dropped or ended connection it waits the reconnection time
 * (the stream's `retry`, else the option; doubled for each reconnection in a row that brought no
 * event, capped) and sends `Last-Event-ID`; a 204 ends the stream, any other status than 200 with
 * `text/event-stream` fails it without reconnecting.
 */
import { Readable } from 'node:stream';
import type { ContainerRequestContext } from '../core/context/request-context.js';
import type { ReadContext, TypeToken } from '../core/context/contracts.js';
import { parseMediaType } from '../core/http/media-type.js';
import { ClientErrorCode, ClientProcessingError } from './errors.js';
import { EventStreamParser, type ParsedEvent } from './event-parser.js';
import { readFailure, selectReader } from './read-entity.js';
import type { ClientProviders } from './registry.js';
import type { ClientResponse, EntityOf } from './response.js';
import { entityResult } from './result.js';
import type { ClientState } from './state.js';
import type { WebTarget } from './target.js';

/**
 * Options of `client.events(uri, options)`.
 * @example client.events('chat', { lastEventId: saved, reconnectDelay: 1_000, maxReconnects: 20, signal })
 */
export interface EventStreamOptions {
  /** Sent as `Last-Event-ID` on the first connection (to resume a stream read earlier). */
  lastEventId?: string;
  /** The reconnection time until the stream sends `retry`, in ms; default 3 000. */
  reconnectDelay?: number;
  /** The longest wait before a reconnection (caps `retry` and the doubling), in ms; default 30 000. */
  maxReconnectDelay?: number;
  /** Reconnections in a row without an event in between before giving up; default unlimited (as `EventSource`). */
  maxReconnects?: number;
  /** The largest event (its fields, or one line), in bytes; default 1 MiB. Past it the iteration throws. */
  maxEventBytes?: number;
  /** Stops the stream: the iteration throws the signal's reason. */
  signal?: AbortSignal;
  /** Extra request headers on every connection. */
  headers?: Readonly<Record<string, string>>;
}

/**
 * One server-sent event: `id` (the last event ID when it was dispatched, `''` when the stream set
 * none), `event` (`message` unless named), `data` (its lines joined with LF) and `retry` (when the
 * event set the reconnection time). `readAs(Type)` and `json()` read the data with the client's readers.
 * @example
 * for await (const e of client.events('prices')) if (e.event === 'tick') show(await e.json<Tick>());
 */
export class ServerSentEvent {
  readonly id: string;
  readonly event: string;
  readonly data: string;
  readonly retry: number | undefined;
  private readonly providers: ClientProviders;

  /** @internal Events are made by {@link EventStream}. */
  constructor(parsed: ParsedEvent, providers: ClientProviders) {
    this.id = parsed.id;
    this.event = parsed.event;
    this.data = parsed.data;
    this.retry = parsed.retry;
    this.providers = providers;
  }

  /**
   * The data read as `type` by the client's readers for `mediaType` (default `application/json`):
   * `readAs(Order)`, `readAs(String, 'text/plain')`.
   * @throws ClientProcessingError `CLIENT_RESPONSE_UNREADABLE` when no reader takes it or it does not parse.
   * @example const order = await event.readAs(Order);
   */
  async readAs<C extends TypeToken>(type: C, mediaType = 'application/json'): Promise<EntityOf<C>> {
    const mt = parseMediaType(mediaType);
    const bytes = Buffer.from(this.data, 'utf8');
    try {
      const reader = selectReader(this.providers, type, mt);
      const ctx = new EventReadContext(mediaType, bytes.length);
      return (await reader.readFrom(type, mt, Readable.from([bytes]), ctx)) as EntityOf<C>;
    } catch (e) {
      throw readFailure(e, type, bytes.length);
    }
  }

  /** The data parsed as JSON by the client's JSON reader (its options and safety checks). @example const { price } = await event.json<Tick>(); */
  json<T = unknown>(): Promise<T> {
    return this.readAs(Object) as Promise<T>;
  }
}

/** What a reader gets for an event's data: its media type and length, and no server request. */
class EventReadContext implements ReadContext {
  readonly headers: { 'content-type': string };
  readonly limit: number;
  readonly contentLength: number;

  constructor(mediaType: string, length: number) {
    this.headers = { 'content-type': mediaType };
    this.limit = length;
    this.contentLength = length;
  }

  get request(): ContainerRequestContext {
    throw new TypeError('ReadContext.request is the server request; a reader reading event data on a client has none');
  }
}

/** A non-negative integer option (or Infinity where allowed), or its default. */
function count(name: string, value: number | undefined, dflt: number, infinite: boolean): number {
  if (value === undefined) return dflt;
  if ((infinite && value === Infinity) || (Number.isSafeInteger(value) && value >= 0)) return value;
  throw new TypeError(`events(): ${name} must be a non-negative integer${infinite ? ' or Infinity' : ''}, got ${String(value)}`);
}

/**
 * A stream of server-sent events from one URI: iterate it once with `for await`; `break`,
 * {@link close} or the `signal` option end it and its connection. Reconnects after a dropped or
 * ended connection with `Last-Event-ID` (see the module notes); a 204 ends the iteration; another
 * status fails it with the error the client's mappers give (`ClientResponseError` by default); a
 * 200 that is not `text/event-stream`, or an event past `maxEventBytes`, fails it with a
 * `ClientProcessingError`.
 * @example
 * const events = client.events('orders/42/events', { maxReconnects: 10 });
 * for await (const e of events) {
 *   if (e.event === 'done') break;
 *   console.log(e.id, await e.json());
 * }
 */
export class EventStream implements AsyncIterable<ServerSentEvent> {
  /** The last event ID seen (sent as `Last-Event-ID` when reconnecting). */
  lastEventId: string;
  /** The current reconnection time in ms (the stream's last `retry`, capped). */
  reconnectDelay: number;
  private readonly maxDelay: number;
  private readonly maxReconnects: number;
  private readonly maxEventBytes: number;
  private readonly stop = new AbortController();
  private readonly signal: AbortSignal;
  private started = false;

  /** @internal Streams come from `client.events`. */
  constructor(
    private readonly state: ClientState,
    private readonly target: WebTarget,
    private readonly options: EventStreamOptions,
  ) {
    this.lastEventId = options.lastEventId ?? '';
    this.maxDelay = count('maxReconnectDelay', options.maxReconnectDelay, 30_000, false);
    this.reconnectDelay = Math.min(count('reconnectDelay', options.reconnectDelay, 3_000, false), this.maxDelay);
    this.maxReconnects = count('maxReconnects', options.maxReconnects, Infinity, true);
    this.maxEventBytes = count('maxEventBytes', options.maxEventBytes, 1024 * 1024, false);
    if (this.maxEventBytes === 0) throw new TypeError('events(): maxEventBytes must be positive');
    this.signal = options.signal === undefined ? this.stop.signal : AbortSignal.any([this.stop.signal, options.signal]);
  }

  /** Ends the stream: the iteration finishes (without error) and the connection is closed. Idempotent. @example process.once('SIGTERM', () => events.close()); */
  close(): void {
    this.stop.abort(new ClientProcessingError(ClientErrorCode.Closed, 'The event stream was closed'));
  }

  [Symbol.asyncIterator](): AsyncIterator<ServerSentEvent> {
    if (this.started) throw new TypeError('An EventStream is iterated once: call client.events() again for another iteration');
    this.started = true;
    return this.run();
  }

  private async *run(): AsyncGenerator<ServerSentEvent> {
    let quiet = 0; // reconnections in a row without an event
    try {
      for (;;) {
        let failure: unknown;
        try {
          const body = await this.connect();
          if (body === undefined) return;
          const parser = new EventStreamParser(this.lastEventId, this.maxEventBytes);
          try {
            for await (const chunk of body) {
              for (const parsed of parser.push(chunk as Buffer)) {
                quiet = 0;
                this.lastEventId = parser.lastEventId;
                yield new ServerSentEvent(parsed, this.state.providers);
              }
              if (parser.failure !== undefined) throw parser.failure;
              this.lastEventId = parser.lastEventId;
              if (parser.retry !== undefined) this.reconnectDelay = Math.min(parser.retry, this.maxDelay);
            }
          } finally {
            body.destroy();
          }
        } catch (e) {
          if (!reconnectable(e) || this.signal.aborted) throw e;
          failure = e;
        }
        if (quiet >= this.maxReconnects) {
          if (failure === undefined) return;
          throw failure;
        }
        await this.pause(Math.min(this.maxDelay, this.reconnectDelay * 2 ** Math.min(quiet, 30)));
        quiet++;
      }
    } catch (e) {
      const caller = this.options.signal;
      if (caller?.aborted === true) throw caller.reason;
      if (this.stop.signal.aborted) return;
      throw e;
    }
  }

  /** One connection: the body of a 200 `text/event-stream`, undefined for a 204; throws otherwise. */
  private async connect(): Promise<Readable | undefined> {
    const request = this.target.request('text/event-stream').signal(this.signal).maxResponseBytes(Number.MAX_SAFE_INTEGER);
    if (this.options.headers !== undefined) request.headers(this.options.headers);
    if (this.lastEventId !== '') request.header('last-event-id', this.lastEventId);
    const response = await request.get();
    if (response.status === 204) {
      response.close();
      return undefined;
    }
    if (response.status !== 200) {
      await entityResult(response, Object, this.state.providers.global);
      throw invalid(response, `answered ${response.status}`);
    }
    if (response.mediaType?.essence !== 'text/event-stream') {
      throw invalid(response, `answered ${response.getHeader('content-type') ?? 'no Content-Type'}`);
    }
    return response.readEntity(Readable);
  }

  /** Waits `ms` before reconnecting; a stop ends the wait with its reason. */
  private pause(ms: number): Promise<void> {
    const signal = this.signal;
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** A response that is no event stream (EventSource "fails the connection": no reconnection). */
function invalid(response: ClientResponse, what: string): ClientProcessingError {
  response.close();
  return new ClientProcessingError(
    ClientErrorCode.ResponseUnreadable,
    `The event stream ${what}: an event stream is a 200 response with Content-Type text/event-stream`,
  );
}

/** Connection failures and timeouts are worth a reconnection; status, content and size errors are not. */
function reconnectable(e: unknown): boolean {
  if (!(e instanceof ClientProcessingError)) return false;
  const code = e.code;
  return (
    code === ClientErrorCode.ConnectionFailed ||
    code === ClientErrorCode.Unreachable ||
    code === ClientErrorCode.ConnectTimeout ||
    code === ClientErrorCode.HeadersTimeout ||
    code === ClientErrorCode.BodyTimeout ||
    code === ClientErrorCode.RequestFailed
  );
}
