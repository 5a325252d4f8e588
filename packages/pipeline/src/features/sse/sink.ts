import { Buffer } from 'node:buffer';
import { Readable } from 'node:stream';
import { Response } from '../../core/http/response.js';
import { answerVoidWith, respondWith, whenClosing } from '../../core/internal/extensions.js';
import type { Exchange } from '../../core/internal/exchange.js';
import type { Step } from '../../core/util/thenable.js';
import { encodeEvent } from './encode.js';
import { OutboundSseEvent } from './event.js';
import { joinHeartbeat } from './heartbeat.js';
import type { ResolvedSseOptions } from './options.js';
import { SseClosedError, type SseCloseReason } from './sse-closed-error.js';
import { SERVER_ONLY, type ServerOnly } from '../../core/context/server-only.js';
import { responseCompleted } from '../../core/context/http-version.js';

/** The comment sent when a stream was quiet for a heartbeat interval (WHATWG HTML §9.2.7). */
const HEARTBEAT = Buffer.from(':\n\n');
/** What the stream itself buffers before the queue holds events back (pinned: Node 22 raised the default). */
const STREAM_HIGH_WATER_MARK = 16 * 1024;
const noop = (): void => {};

/** Called with a sink and why sending it an event failed (not its end: that is the signal's). */
export type OfferFailed = (sink: SseEventSink, error: unknown) => void;

/**
 * Queues `event` on `sink` without a promise (an `SseBroadcaster` sends to thousands of sinks at
 * once: one promise chain each would be most of its garbage). Set by the class below.
 */
export let offerEvent: (sink: SseEventSink, event: OutboundSseEvent, failed: OfferFailed) => void;

/** One queued frame; `bytes` is undefined while an asynchronous writer is still writing its data. */
interface Entry {
  bytes: Buffer | undefined;
  resolve: (() => void) | undefined;
  reject: ((error: unknown) => void) | undefined;
}

/** The response body: pulls frames from its sink only as fast as the connection takes them. */
class EventStream extends Readable {
  constructor(private readonly onRead: () => void) {
    super({ highWaterMark: STREAM_HIGH_WATER_MARK });
  }

  override _read(): void {
    this.onRead();
  }
}

/**
 * One client's event stream (Jakarta REST 2.1 `SseEventSink`), injected with
 * `@Context() sink: SseEventSink` into a method that `@Produces('text/event-stream')`.
 *
 * The response (200, `Content-Type: text/event-stream`, `Cache-Control: no-cache`,
 * `X-Accel-Buffering: no`, no `Content-Length`) goes through the route's response filters and
 * writer interceptors once, when the stream starts: at the first `send()` or `close()`, or when the
 * method returns nothing (`undefined`/`null`: never a 204 here). The method may return before any
 * event is sent and keep the sink (e.g. register it with an `SseBroadcaster`). To answer otherwise
 * (404 for an unknown job), throw or return a `Response` before sending anything; once the stream
 * has started, what the method returns is ignored.
 *
 * Events wait in a queue bounded in bytes (`SseFeature` `queueLimit`, default 1 MiB) until the
 * connection takes them: a client that stops reading gets its stream closed (`'overflow'`) rather
 * than holding the server's memory. Quiet streams get a heartbeat comment (`heartbeatInterval`).
 * @example
 * \@GET() \@Path('ticks') \@Produces('text/event-stream')
 * async ticks(\@Context() sink: SseEventSink, \@Context() sse: Sse) {
 *   for (let i = 0; i < 3 && !sink.isClosed; i++) await sink.send(sse.newEvent(String(i)));
 *   sink.close();
 * }
 */
export class SseEventSink implements ServerOnly {
  /** Injected by the server: a typed client leaves such a parameter out ({@link ServerOnly}). */
  declare readonly [SERVER_ONLY]: true;
  private state: 'open' | 'ending' | 'ended' = 'open';
  private reason: SseCloseReason | undefined;
  private queue: Entry[] = [];
  private queuedBytes = 0;
  private stream: EventStream | undefined;
  /** The stream asked for data and was not told to wait (`push()` answered true). */
  private wanting = false;
  /** Nothing was sent since the last heartbeat tick. */
  private quiet = true;
  private endPushed = false;
  private headSent = false;
  private readonly controller = new AbortController();
  private readonly response: Response;
  private stopHeartbeat: () => void = noop;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly stopClosingHook: () => void;

  static {
    offerEvent = (sink, event, failed) => sink.offer(event, failed);
  }

  /** @internal Made by the pipeline for `@Context() sink: SseEventSink`. */
  constructor(
    private readonly ex: Exchange,
    private readonly options: ResolvedSseOptions,
  ) {
    this.response = new Response(200, undefined, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    });
    const res = ex.rawResponse;
    res.once('close', () => this.finish(responseCompleted(ex.raw, res) ? 'closed' : 'disconnected'));
    answerVoidWith(ex, () => this.start());
    this.stopClosingHook = whenClosing(ex.rt, () => this.shutdown());
    if (ex.rt.state.closing) this.shutdown();
  }

  /** True once the stream no longer takes events (closed by either side). */
  get isClosed(): boolean {
    this.checkResponse();
    return this.state !== 'open';
  }

  /**
   * Fires when the stream ends, whoever ended it, with an {@link SseClosedError} whose `reason`
   * says why (`'disconnected'` when the client went away): hand it to the work that feeds the
   * stream so it stops.
   */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The `Last-Event-ID` request header of a reconnecting client (the last id it received), if any. */
  get lastEventId(): string | undefined {
    return this.ex.getHeader('last-event-id');
  }

  /**
   * Queues `event`; resolves once the connection has taken it (it waits while the client is slow),
   * rejects with an {@link SseClosedError} when the stream has ended or ends first (never hangs), and
   * with the writer's error when its data cannot be written. Events go out in the order of the
   * calls. A send that would take the queue past `queueLimit` closes the stream (`'overflow'`).
   * An unobserved rejection is not reported as unhandled: a fire-and-forget `send()` to a client
   * that left does not take the process down.
   */
  send(event: OutboundSseEvent): Promise<void> {
    if (!(event instanceof OutboundSseEvent)) {
      return Promise.reject(
        new TypeError('SseEventSink.send() takes an OutboundSseEvent: sse.newEvent(data) or OutboundSseEvent.builder()...build()'),
      );
    }
    this.checkResponse();
    if (this.state !== 'open') return handled(Promise.reject(new SseClosedError(this.reason ?? 'closed')));
    let frame: Buffer | Promise<Buffer>;
    try {
      frame = encodeEvent(this.ex, this.response, event);
    } catch (e) {
      return Promise.reject(e);
    }
    this.idleTimer?.refresh();
    return handled(new Promise<void>((resolve, reject) => this.enqueue(frame, resolve, reject)));
  }

  /** {@link send} for a broadcaster: failures other than the stream's end go to `failed`. */
  private offer(event: OutboundSseEvent, failed: OfferFailed): void {
    this.checkResponse();
    if (this.state !== 'open') return;
    let frame: Buffer | Promise<Buffer>;
    try {
      frame = encodeEvent(this.ex, this.response, event);
    } catch (e) {
      failed(this, e);
      return;
    }
    this.idleTimer?.refresh();
    // Only a frame still being written can fail later (an overflow is the stream's end).
    if (Buffer.isBuffer(frame)) this.enqueue(frame);
    else
      this.enqueue(frame, undefined, (e: unknown) => {
        if (!(e instanceof SseClosedError)) failed(this, e);
      });
  }

  /**
   * Ends the stream once the events already queued have gone out (Jakarta REST `close()`); later
   * `send()`s reject. Idempotent. Starts the (empty) stream if nothing was sent yet.
   */
  close(): void {
    this.end('closed');
  }

  /** Ends after the queue has gone out; `reason` is what later sends and the signal report. */
  private end(reason: SseCloseReason): void {
    this.checkResponse();
    if (this.state !== 'open') return;
    this.state = 'ending';
    this.reason = reason;
    this.stopTimers();
    this.startBySelf();
    this.pump();
  }

  /** The application is closing: the configured last event, then the end. */
  private shutdown(): void {
    if (this.state !== 'open') return;
    const last = this.options.closeEvent;
    if (last !== undefined) void this.send(last);
    this.end('shutdown');
  }

  /**
   * Another response (an error, a `Response` the method returned) is on its way: the stream will
   * never start, so the sink is closed now rather than when that response has gone out.
   */
  private checkResponse(): void {
    if (this.stream === undefined && this.state !== 'ended' && this.ex.response !== undefined) this.finish('closed');
  }

  private enqueue(frame: Buffer | Promise<Buffer>, resolve?: () => void, reject?: (error: unknown) => void): void {
    const entry: Entry = { bytes: undefined, resolve, reject };
    if (Buffer.isBuffer(frame)) {
      if (!this.admit(frame, entry)) return;
      this.queue.push(entry);
    } else {
      // Keeps its place in the queue while the writer works, so events stay in the order of the sends.
      this.queue.push(entry);
      frame.then(
        (bytes) => {
          if (this.queue.includes(entry) && this.admit(bytes, entry)) this.pump();
        },
        (error: unknown) => {
          const at = this.queue.indexOf(entry);
          if (at < 0) return;
          this.queue.splice(at, 1);
          reject?.(error);
          this.pump();
        },
      );
    }
    this.startBySelf();
    this.pump();
  }

  /** Counts `bytes` as the entry's, or closes the stream when they would take a non-empty queue past `queueLimit`. */
  private admit(bytes: Buffer, entry: Entry): boolean {
    if (this.queuedBytes > 0 && this.queuedBytes + bytes.length > this.options.queueLimit) {
      entry.reject?.(new SseClosedError('overflow'));
      this.overflow();
      return false;
    }
    entry.bytes = bytes;
    this.queuedBytes += bytes.length;
    return true;
  }

  /** The client is not reading: cut the connection (its unread bytes go with it); it reconnects with `Last-Event-ID`. */
  private overflow(): void {
    this.finish('overflow');
    this.startBySelf();
    this.ex.rawResponse.destroy();
  }

  /** Hands queued frames to the stream while it wants them; ends it once an ending sink's queue is empty. */
  private pump(): void {
    const stream = this.stream;
    if (stream === undefined) return;
    if (!this.headSent) this.sendHead();
    const queue = this.queue;
    while (this.wanting && queue.length > 0) {
      const entry = queue[0]!;
      const bytes = entry.bytes;
      if (bytes === undefined) return; // its data is still being written
      queue.shift();
      this.queuedBytes -= bytes.length;
      this.quiet = false;
      this.wanting = stream.push(bytes);
      entry.resolve?.();
    }
    if (queue.length === 0 && this.state === 'ending' && !this.endPushed) {
      this.endPushed = true;
      stream.push(null);
    }
  }

  /**
   * Node holds the head of a response back until the first body byte: a stream that has no
   * event yet must still reach the client (an `EventSource` is "open" once it has the head).
   */
  private sendHead(): void {
    const res = this.ex.rawResponse;
    if (!res.headersSent || res.writableEnded) return;
    this.headSent = true;
    // The in-process transport's response has no socket, and nothing to flush.
    if (typeof res.flushHeaders === 'function') res.flushHeaders();
  }

  /** A heartbeat tick: a comment when nothing went out since the last one and nothing waits. */
  private beat(): void {
    if (this.quiet && this.queue.length === 0 && this.state === 'open') this.enqueue(HEARTBEAT);
    this.quiet = true;
  }

  /** {@link start} from a send or close (not from the lifecycle): its completion is the sink's to watch. */
  private startBySelf(): void {
    const step = this.start();
    if (step !== undefined) step.then(undefined, (e: unknown) => this.ex.rt.logError(e, this.ex));
  }

  /**
   * Starts the response: the stream becomes the entity of the 200, which runs through the
   * response filters, writer interceptors and the writer once. Does nothing when it has started,
   * or when another response is under way.
   */
  private start(): Step {
    if (this.stream !== undefined || (this.ex.response !== undefined && this.ex.response !== this.response)) return;
    const stream = new EventStream(() => {
      this.wanting = true;
      this.pump();
    });
    this.stream = stream;
    this.response.setEntity(stream, undefined, Readable);
    if (this.state === 'ended') {
      this.endPushed = true;
      stream.push(null);
    } else if (this.state === 'open') this.startTimers();
    return respondWith(this.ex, this.response);
  }

  private startTimers(): void {
    const { heartbeatInterval, idleTimeout } = this.options;
    if (heartbeatInterval > 0) this.stopHeartbeat = joinHeartbeat(heartbeatInterval, { beat: () => this.beat() });
    if (idleTimeout > 0) {
      this.idleTimer = setTimeout(() => this.end('idle'), idleTimeout);
      this.idleTimer.unref();
    }
  }

  private stopTimers(): void {
    this.stopHeartbeat();
    this.stopHeartbeat = noop;
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /** The stream has ended (or will never start): pending sends reject, timers stop, the signal fires. */
  private finish(reason: SseCloseReason): void {
    if (this.state === 'ended') return;
    this.state = 'ended';
    this.reason ??= reason;
    this.stopTimers();
    this.stopClosingHook();
    const error = new SseClosedError(this.reason);
    const queue = this.queue;
    this.queue = [];
    this.queuedBytes = 0;
    for (const entry of queue) entry.reject?.(error);
    this.controller.abort(error);
  }
}

/** `promise`, with its rejection marked as handled (callers that await it still see it). */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(noop);
  return promise;
}
