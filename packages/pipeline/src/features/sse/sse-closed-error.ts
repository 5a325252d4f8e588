/**
 * Why an event stream ended (see {@link SseClosedError}).
 * @example if ((sink.signal.reason as SseClosedError).reason === 'overflow') metrics.slowClients++;
 */
export type SseCloseReason =
  /** The client went away (closed the connection, or it broke). */
  | 'disconnected'
  /** The server closed it: `sink.close()`, or a response other than the stream was sent. */
  | 'closed'
  /** The client did not read fast enough: its queue would have exceeded `queueLimit`. */
  | 'overflow'
  /** No event for `idleTimeout` milliseconds. */
  | 'idle'
  /** The application is closing (`app.close()`). */
  | 'shutdown';

/**
 * The rejection of `sink.send()` on a stream that has ended (Jakarta REST 2.1 throws
 * `IllegalStateException`), and the `reason` of its `signal`. `reason` says why it ended.
 * @example
 * sink.send(event).catch((e) => { if (e instanceof SseClosedError && e.reason === 'disconnected') forget(sink); });
 */
export class SseClosedError extends Error {
  override readonly name = 'SseClosedError';

  constructor(readonly reason: SseCloseReason) {
    super(MESSAGES[reason]);
  }
}

const MESSAGES: Record<SseCloseReason, string> = {
  disconnected: 'The event stream is closed: the client went away',
  closed: 'The event stream is closed',
  overflow: 'The event stream was closed: the client did not read its events fast enough (queueLimit)',
  idle: 'The event stream was closed after idleTimeout without events',
  shutdown: 'The event stream was closed: the application is shutting down',
};
