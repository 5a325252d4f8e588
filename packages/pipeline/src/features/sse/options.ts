import type { ResourceInfo } from '../../core/context/resource-info.js';
import { OutboundSseEvent } from './event.js';

/**
 * Options of server-sent event streams; given to `SseFeature`, checked when it is constructed.
 * @example new SseFeature({ queueLimit: 256 * 1024, heartbeatInterval: 10_000, idleTimeout: 600_000 })
 */
export interface SseOptions {
  /**
   * Bytes an event stream may hold for a client that does not read fast enough (events accepted
   * by `send()` but not yet taken by the socket). A `send()` that would exceed it closes the
   * stream instead (the client reconnects with `Last-Event-ID`). Default 1 MiB.
   */
  queueLimit?: number;
  /** A comment line is sent after this many milliseconds without an event (proxies keep the connection). 0: never. Default 15 000. */
  heartbeatInterval?: number;
  /** The stream is closed after this many milliseconds without an event (heartbeats do not count). 0: never (default). */
  idleTimeout?: number;
  /**
   * Sent to every open stream when the application closes (`app.close()`), before the stream ends,
   * e.g. an event that tells clients to reconnect elsewhere or later. Default: none.
   */
  closeEvent?: OutboundSseEvent;
}

/**
 * {@link SseOptions} with every default applied.
 * @example const { queueLimit } = DEFAULT_SSE_OPTIONS; // 1 MiB
 */
export interface ResolvedSseOptions {
  readonly queueLimit: number;
  readonly heartbeatInterval: number;
  readonly idleTimeout: number;
  readonly closeEvent: OutboundSseEvent | undefined;
}

/**
 * The defaults: 1 MiB queue, a heartbeat every 15 s, no idle close, no close event.
 * @example new SseFeature({ heartbeatInterval: DEFAULT_SSE_OPTIONS.heartbeatInterval / 3 })
 */
export const DEFAULT_SSE_OPTIONS: ResolvedSseOptions = Object.freeze({
  queueLimit: 1024 * 1024,
  heartbeatInterval: 15_000,
  idleTimeout: 0,
  closeEvent: undefined,
});

const KNOWN: readonly string[] = ['queueLimit', 'heartbeatInterval', 'idleTimeout', 'closeEvent'];
/** setTimeout's largest delay (a larger one fires at once). */
const MAX_DELAY = 2 ** 31 - 1;

/** Checks `options` (unknown keys included) and applies the defaults; throws a `TypeError` naming the option and the fix. */
export function resolveSseOptions(options: SseOptions): ResolvedSseOptions {
  for (const key of Object.keys(options)) {
    if (!KNOWN.includes(key)) throw new TypeError(`SseFeature: unknown option '${key}' (known: ${KNOWN.join(', ')})`);
  }
  const { queueLimit = DEFAULT_SSE_OPTIONS.queueLimit, heartbeatInterval = DEFAULT_SSE_OPTIONS.heartbeatInterval } = options;
  const { idleTimeout = 0, closeEvent } = options;
  if (!Number.isSafeInteger(queueLimit) || queueLimit < 1) {
    throw new TypeError(`SseFeature: queueLimit must be a positive integer of bytes, got ${String(queueLimit)}`);
  }
  for (const [name, value] of [
    ['heartbeatInterval', heartbeatInterval],
    ['idleTimeout', idleTimeout],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 0 || value > MAX_DELAY) {
      throw new TypeError(`SseFeature: ${name} must be an integer of milliseconds from 0 (off) to ${MAX_DELAY}, got ${String(value)}`);
    }
  }
  if (closeEvent !== undefined && !(closeEvent instanceof OutboundSseEvent)) {
    throw new TypeError('SseFeature: closeEvent must be an OutboundSseEvent (OutboundSseEvent.builder()...build())');
  }
  return Object.freeze({ queueLimit, heartbeatInterval, idleTimeout, closeEvent });
}

/** The options `SseFeature` gave each resource method (at start-up, before its parameters are compiled). */
const byMethod = new WeakMap<ResourceInfo, ResolvedSseOptions>();

/** Records the options of one resource method (`SseFeature` as a `DynamicFeature`). */
export function setSseOptions(info: ResourceInfo, options: ResolvedSseOptions): void {
  byMethod.set(info, options);
}

/** The options of a resource method's streams: the `SseFeature`'s, or the defaults without one. */
export function sseOptionsOf(info: ResourceInfo): ResolvedSseOptions {
  return byMethod.get(info) ?? DEFAULT_SSE_OPTIONS;
}
