import './context.js';

export { SseBroadcaster } from './broadcaster.js';
export { OutboundSseEvent, OutboundSseEventBuilder } from './event.js';
export { EventLog } from './event-log.js';
export type { EventLogOptions } from './event-log.js';
export { DEFAULT_SSE_OPTIONS } from './options.js';
export type { ResolvedSseOptions, SseOptions } from './options.js';
export { SseClosedError } from './sse-closed-error.js';
export type { SseCloseReason } from './sse-closed-error.js';
export { SseEventSink } from './sink.js';
export { LastEventId, Sse } from './sse.js';
export { SseFeature } from './sse-feature.js';
