/**
 * Where a request goes once it is written: a {@link Transport} sends one request and resolves with
 * the response head and a body stream. The default is undici (a pooled `Agent` per client, or the
 * `dispatcher` given, e.g. a `MockAgent`); `inProcess(app)` runs an application without a socket.
 * Timeouts, retries and the size cap are the client's, around any transport.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { Body } from '../core/context/contracts.js';
import { isStreamEntity } from '../providers/type-tokens.js';
import type { ClientHeaders } from './request-context.js';

/**
 * The abort signal of one attempt, in the shape undici accepts for `signal` (an EventTarget with
 * `aborted` and `reason`). Not an `AbortSignal`: the client makes one per attempt, and a listener
 * on an `AbortSignal` costs several microseconds on Node 20 (more than the rest of a call's own work).
 * @example
 * signal.addEventListener('abort', () => socket.destroy(signal.reason as Error));
 */
export class AttemptSignal {
  /** Whether the attempt must stop. */
  aborted: boolean;
  /** Why: the caller's abort reason, or the client's `ClientTimeoutError`. */
  reason: unknown;
  private listeners: Array<() => void> | undefined;

  constructor() {
    this.aborted = false;
    this.reason = undefined;
    this.listeners = undefined;
  }

  /** Calls `listener` once when the attempt is aborted (`type` must be `'abort'`). */
  addEventListener(type: 'abort', listener: () => void): void {
    if (type === 'abort' && !this.aborted) (this.listeners ??= []).push(listener);
  }

  removeEventListener(type: 'abort', listener: () => void): void {
    const list = this.listeners;
    if (type !== 'abort' || list === undefined) return;
    const i = list.indexOf(listener);
    if (i >= 0) list.splice(i, 1);
  }

  /** Throws {@link reason} once aborted. */
  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  /** Aborts the attempt with `reason` (once; later calls are ignored). @internal */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const list = this.listeners;
    this.listeners = undefined;
    if (list !== undefined) for (const l of list) l();
  }
}

/** One request, ready to send. */
export interface TransportRequest {
  readonly method: string;
  /** Absolute `http:` or `https:` URI. */
  readonly uri: string;
  readonly headers: ClientHeaders;
  readonly body: Body | AsyncIterable<Uint8Array | string> | undefined;
  /** Fires when the attempt must stop (caller's signal, deadline, headers timeout); reject with its reason. */
  readonly signal: AttemptSignal;
}

/** The response head and its body (which the client reads, or drops). */
export interface TransportResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Readable | undefined;
}

/**
 * Sends requests: `dispatch` resolves when the response headers arrived, or rejects (with the
 * signal's reason once it fired). `close` releases what the transport owns.
 * @example
 * const echo: Transport = {
 *   async dispatch(r) { return { status: 200, headers: { 'content-type': 'text/plain' }, body: Readable.from([r.uri]) }; },
 *   async close() {},
 * };
 * new Client({ transport: echo });
 */
export interface Transport {
  dispatch(request: TransportRequest): Promise<TransportResponse>;
  close(): Promise<void>;
}

/**
 * An absolute URI's origin and path (with query, without fragment), as undici's dispatchers take
 * them. Only `http:` and `https:` URIs are sent.
 */
export function splitUri(uri: string): { origin: string; path: string } {
  const scheme = uri.startsWith('http://') ? 7 : uri.startsWith('https://') ? 8 : -1;
  if (scheme < 0) throw new TypeError(`The request URI must be an absolute http: or https: URI, got ${JSON.stringify(uri.slice(0, 100))}`);
  let end = uri.length;
  const hash = uri.indexOf('#', scheme);
  if (hash >= 0) end = hash;
  let slash = scheme;
  while (slash < end && uri.charCodeAt(slash) !== 47 /* / */ && uri.charCodeAt(slash) !== 63 /* ? */) slash++;
  const origin = uri.slice(0, slash);
  const rest = uri.slice(slash, end);
  return { origin, path: rest === '' ? '/' : rest.startsWith('?') ? `/${rest}` : rest };
}

/** A body undici takes: bytes, text, or a Readable (async iterables are wrapped). */
export function streamableBody(body: TransportRequest['body']): string | Uint8Array | Readable | undefined {
  if (body === undefined || typeof body === 'string' || body instanceof Uint8Array || body instanceof Readable) return body;
  if (isStreamEntity(body)) return Readable.from(body, { objectMode: false });
  throw new TypeError(`A request body must be a string, bytes, a Readable or an async iterable, got ${typeof body}`);
}

/** Sends requests through an undici dispatcher (an `Agent`, `Pool`, `MockAgent`...). */
export class UndiciTransport implements Transport {
  /**
   * @param dispatcher where requests go.
   * @param owned close the dispatcher with the client (an `Agent` the client made), or leave it to its owner.
   * @param timeouts undici's own header and body timeouts per request: a backstop behind the
   *   client's timers (undici checks them on a coarse, about half-second clock).
   */
  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly owned: boolean,
    private readonly timeouts: { readonly headersTimeout: number; readonly bodyTimeout: number },
  ) {}

  async dispatch(r: TransportRequest): Promise<TransportResponse> {
    const { origin, path } = splitUri(r.uri);
    const res = await this.dispatcher.request({
      origin,
      path,
      method: r.method as Dispatcher.HttpMethod,
      headers: r.headers,
      body: streamableBody(r.body),
      // undici takes an EventTarget with `aborted` and `reason` (its `signal` option's documented shape).
      signal: r.signal as unknown as AbortSignal,
      headersTimeout: this.timeouts.headersTimeout,
      bodyTimeout: this.timeouts.bodyTimeout,
    });
    return { status: res.statusCode, headers: res.headers, body: res.body };
  }

  close(): Promise<void> {
    return this.owned ? this.dispatcher.close() : Promise.resolve();
  }
}
