import diagnostics_channel from 'node:diagnostics_channel';

/**
 * Per-phase events on `node:diagnostics_channel` (Jersey's monitoring events, Processing rules §7).
 * Publishing is guarded by `hasSubscribers`, so an application nobody observes pays one property
 * read per phase. Messages carry the request context (`request`) plus phase data.
 *
 * | channel | message |
 * |---|---|
 * | `jaxrs-node:request:start` | `{ request }` |
 * | `jaxrs-node:request:matched` | `{ request, resourceInfo }` |
 * | `jaxrs-node:request:filtered` | `{ request }` (all request filters passed) |
 * | `jaxrs-node:method:start` / `jaxrs-node:method:end` | `{ request, resourceInfo }`; `method:end` after a throw or rejection also has `error` |
 * | `jaxrs-node:error` | `{ request, error }` |
 * | `jaxrs-node:error:mapped` | `{ request, error, status }` |
 * | `jaxrs-node:request:finish` | `{ request, status, durationMs, error, trace }` |
 *
 * `durationMs` is monotonic (`performance.now()`), from the moment the pipeline took the request
 * to the moment it finished with it; the clock is read only while the finish channel has a
 * subscriber, so it is `undefined` for a request that started before the first subscription.
 */
export const CHANNEL_NAMES = Object.freeze({
  start: 'jaxrs-node:request:start',
  matched: 'jaxrs-node:request:matched',
  filtered: 'jaxrs-node:request:filtered',
  methodStart: 'jaxrs-node:method:start',
  methodEnd: 'jaxrs-node:method:end',
  error: 'jaxrs-node:error',
  mapped: 'jaxrs-node:error:mapped',
  finish: 'jaxrs-node:request:finish',
});

export const channels = {
  start: diagnostics_channel.channel(CHANNEL_NAMES.start),
  matched: diagnostics_channel.channel(CHANNEL_NAMES.matched),
  filtered: diagnostics_channel.channel(CHANNEL_NAMES.filtered),
  methodStart: diagnostics_channel.channel(CHANNEL_NAMES.methodStart),
  methodEnd: diagnostics_channel.channel(CHANNEL_NAMES.methodEnd),
  error: diagnostics_channel.channel(CHANNEL_NAMES.error),
  mapped: diagnostics_channel.channel(CHANNEL_NAMES.mapped),
  finish: diagnostics_channel.channel(CHANNEL_NAMES.finish),
};
