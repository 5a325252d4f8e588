import diagnostics_channel from 'node:diagnostics_channel';

/**
 * The client's `node:diagnostics_channel` events, named like the server's (`CHANNEL_NAMES`) and
 * published only while someone subscribes (one property read per call otherwise).
 *
 * | channel | message |
 * |---|---|
 * | `jaxrs-node:client:request:start` | `{ request }` (the `ClientRequestContext`, before the request filters) |
 * | `jaxrs-node:client:request:retry` | `{ request, attempt, delayMs, status, error }` (before waiting `delayMs` for attempt `attempt`) |
 * | `jaxrs-node:client:request:finish` | `{ request, status, durationMs, error, attempts }` (the call ended; `status` undefined when it failed without a response) |
 *
 * `durationMs` is monotonic and covers the whole call (its entity included when the call returns
 * one); measured only while the finish channel has a subscriber.
 * @example
 * diagnostics_channel.subscribe(CLIENT_CHANNEL_NAMES.finish, (m) => histogram.record((m as { durationMs: number }).durationMs));
 */
export const CLIENT_CHANNEL_NAMES = Object.freeze({
  start: 'jaxrs-node:client:request:start',
  retry: 'jaxrs-node:client:request:retry',
  finish: 'jaxrs-node:client:request:finish',
});

export const clientChannels = {
  start: diagnostics_channel.channel(CLIENT_CHANNEL_NAMES.start),
  retry: diagnostics_channel.channel(CLIENT_CHANNEL_NAMES.retry),
  finish: diagnostics_channel.channel(CLIENT_CHANNEL_NAMES.finish),
};
