import { OutboundSseEvent } from './event.js';
import { offerEvent, type SseEventSink } from './sink.js';

/**
 * Sends each event to every registered stream (Jakarta REST 3.1 §9.4, `SseBroadcaster`), without
 * ever waiting for the slowest: each sink queues the event, a sink whose client does not keep up
 * is closed once its queue would pass its bound (the client reconnects with `Last-Event-ID`), and
 * the others are not delayed. Streams leave by themselves when they end (the client went away, the
 * sink was closed), and `onClose` hears of it.
 * @example
 * const prices = sse.newBroadcaster();
 * \@GET() \@Produces('text/event-stream') subscribe(\@Context() sink: SseEventSink) { prices.register(sink); }
 * setInterval(() => prices.broadcast(sse.newEvent({ price: quote() })), 1000);
 */
export class SseBroadcaster {
  /** Each registered sink with the function that stops listening to its end. */
  private readonly sinks = new Map<SseEventSink, () => void>();
  private readonly closeListeners: ((sink: SseEventSink) => void)[] = [];
  private readonly errorListeners: ((sink: SseEventSink, error: unknown) => void)[] = [];
  private closed = false;
  private readonly failed = (sink: SseEventSink, error: unknown): void => this.notifyError(sink, error);

  /** How many streams are registered. */
  get size(): number {
    return this.sinks.size;
  }

  /**
   * Adds `sink` (a second registration of the same sink does nothing). A sink that has already
   * ended is not added; `onClose` hears of it at once. Throws after {@link close}.
   */
  register(sink: SseEventSink): void {
    if (this.closed) throw new Error('SseBroadcaster.register(): the broadcaster is closed; make a new one');
    if (this.sinks.has(sink)) return;
    if (sink.isClosed) {
      this.notifyClose(sink);
      return;
    }
    const signal = sink.signal;
    const onEnd = (): void => this.drop(sink);
    signal.addEventListener('abort', onEnd, { once: true });
    this.sinks.set(sink, () => signal.removeEventListener('abort', onEnd));
  }

  /**
   * Queues `event` on every registered stream and returns how many that was; it does not wait for
   * any of them. A failure other than a stream's end (e.g. no writer for the data) goes to `onError`.
   */
  broadcast(event: OutboundSseEvent): number {
    if (!(event instanceof OutboundSseEvent)) throw new TypeError('SseBroadcaster.broadcast() takes an OutboundSseEvent');
    for (const sink of this.sinks.keys()) offerEvent(sink, event, this.failed);
    return this.sinks.size;
  }

  /** Calls `listener` with each stream that leaves (it ended, or was already closed when registered). */
  onClose(listener: (sink: SseEventSink) => void): this {
    this.closeListeners.push(listener);
    return this;
  }

  /** Calls `listener` when sending to a stream fails for another reason than its end. */
  onError(listener: (sink: SseEventSink, error: unknown) => void): this {
    this.errorListeners.push(listener);
    return this;
  }

  /** Closes every registered stream (once their queued events have gone out) and takes no more. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const sink of [...this.sinks.keys()]) sink.close();
  }

  private drop(sink: SseEventSink): void {
    const stop = this.sinks.get(sink);
    if (stop === undefined) return;
    this.sinks.delete(sink);
    stop();
    this.notifyClose(sink);
  }

  private notifyClose(sink: SseEventSink): void {
    for (const l of this.closeListeners) l(sink);
  }

  private notifyError(sink: SseEventSink, error: unknown): void {
    for (const l of this.errorListeners) l(sink, error);
  }
}
