/**
 * Outbound server-sent events (Jakarta REST 2.1 `OutboundSseEvent` and its builder) and their wire
 * format, `text/event-stream` (WHATWG HTML, "Server-sent events", §9.2.5-§9.2.6).
 */
import { parseMediaType, type MediaType } from '../../core/http/media-type.js';
import { EVENT_STREAM_LINE_BREAK, eventStreamData } from '../../providers/event-stream.js';

/** The fields of an event; see {@link OutboundSseEvent}. */
interface EventFields {
  id?: string | undefined;
  name?: string | undefined;
  data?: unknown;
  mediaType?: MediaType | undefined;
  comment?: string | undefined;
  reconnectDelay?: number | undefined;
}

/**
 * One event to send to an `SseEventSink` or an `SseBroadcaster` (Jakarta REST 2.1
 * `OutboundSseEvent`). Immutable; build it with {@link OutboundSseEvent.builder} (or
 * `sse.newEventBuilder()` / `sse.newEvent(data)` on an injected `Sse`). The data is written with
 * the application's `MessageBodyWriter`s for its media type when it is sent: text for a string,
 * JSON for anything else, unless `data(value, mediaType)` says otherwise.
 * @example
 * const event = OutboundSseEvent.builder().id('7').name('progress').data({ done: 3, total: 10 }).build();
 * await sink.send(event);   // id: 7 / event: progress / data: {"done":3,"total":10}
 */
export class OutboundSseEvent {
  /** `id:` field: the client sends it back as `Last-Event-ID` when it reconnects. */
  readonly id: string | undefined;
  /** `event:` field, the event's type (`message` when absent). */
  readonly name: string | undefined;
  /** The data; `undefined` for an event without data (a comment, a `retry:`). */
  readonly data: unknown;
  /** Media type the data is written as; undefined: `text/plain` for a string, else `application/json`. */
  readonly mediaType: MediaType | undefined;
  /** A comment (`: ...` lines), ignored by clients; keeps idle connections open. */
  readonly comment: string | undefined;
  /** `retry:` field: the client's reconnection delay in milliseconds. */
  readonly reconnectDelay: number | undefined;

  private constructor(fields: EventFields) {
    this.id = fields.id;
    this.name = fields.name;
    this.data = fields.data;
    this.mediaType = fields.mediaType;
    this.comment = fields.comment;
    this.reconnectDelay = fields.reconnectDelay;
  }

  /**
   * A new builder.
   * @example OutboundSseEvent.builder().name('tick').data('12:00').build()
   */
  static builder(): OutboundSseEventBuilder {
    return new OutboundSseEventBuilder((fields) => new OutboundSseEvent(fields));
  }

  /**
   * Same event with another id (an event log numbers the events it keeps).
   * @example const numbered = event.withId(String(++seq));
   */
  withId(id: string): OutboundSseEvent {
    const { name, data, mediaType, comment, reconnectDelay } = this;
    return new OutboundSseEvent({ id: checkField('id', id), name, data, mediaType, comment, reconnectDelay });
  }
}

/**
 * Builds an {@link OutboundSseEvent} (Jakarta REST 2.1 `OutboundSseEvent.Builder`). Field values
 * are checked by the setters and by `build()`: a CR or LF (or NUL) in an id or name, a negative
 * or fractional reconnect delay, an unparsable media type or an event with nothing to send throw
 * a `TypeError` naming the field.
 * @example
 * sse.newEventBuilder().id(String(seq)).name('price').data({ symbol: 'ACME', price: 12.5 }).build();
 */
export class OutboundSseEventBuilder {
  private readonly fields: EventFields = {};

  /** @internal Use {@link OutboundSseEvent.builder} or `sse.newEventBuilder()`. */
  constructor(private readonly make: (fields: EventFields) => OutboundSseEvent) {}

  /** The event id (`id:`), sent back by a reconnecting client as `Last-Event-ID`. */
  id(id: string): this {
    this.fields.id = checkField('id', id);
    return this;
  }

  /** The event type (`event:`); clients listen for it with `addEventListener(name, ...)`. */
  name(name: string): this {
    this.fields.name = checkField('name', name);
    return this;
  }

  /**
   * The data and, optionally, the media type it is written as (default `text/plain` for a string,
   * `application/json` for anything else). Multi-line text becomes several `data:` lines.
   */
  data(value: unknown, mediaType?: string): this {
    if (value === undefined)
      throw new TypeError('OutboundSseEventBuilder.data(): the value is undefined; leave data() out for an event without data');
    this.fields.data = value;
    if (mediaType !== undefined) {
      const mt = parseMediaType(mediaType);
      if (mt === undefined || mt.type === '*' || mt.subtype === '*') {
        throw new TypeError(`OutboundSseEventBuilder.data(): '${mediaType}' is not a concrete media type (e.g. 'application/json')`);
      }
      this.fields.mediaType = mt;
    }
    return this;
  }

  /** A comment (`: ...` lines, one per line of `text`); clients ignore it. */
  comment(text: string): this {
    this.fields.comment = String(text);
    return this;
  }

  /** The client's reconnection delay (`retry:`), a non-negative integer of milliseconds. */
  reconnectDelay(ms: number): this {
    if (!Number.isSafeInteger(ms) || ms < 0) {
      throw new TypeError(`OutboundSseEventBuilder.reconnectDelay(): expected a non-negative integer of milliseconds, got ${ms}`);
    }
    this.fields.reconnectDelay = ms;
    return this;
  }

  /** The event; throws when it has nothing to send, or a name without data (clients would drop it). */
  build(): OutboundSseEvent {
    const f = this.fields;
    if (f.name !== undefined && f.data === undefined) {
      throw new TypeError(
        `OutboundSseEventBuilder.build(): event '${f.name}' has a name but no data; clients dispatch no event without data (WHATWG HTML §9.2.6): add data()`,
      );
    }
    if (f.data === undefined && f.comment === undefined && f.reconnectDelay === undefined && f.id === undefined) {
      throw new TypeError(
        'OutboundSseEventBuilder.build(): the event is empty: give it data(), a comment(), an id() or a reconnectDelay()',
      );
    }
    return this.make({ ...f });
  }
}

/** An id or name goes on one line: CR, LF (and, for ids, NUL, which clients ignore) are refused. */
function checkField(field: 'id' | 'name', value: string): string {
  const v = String(value);
  if (/[\r\n\0]/.test(v)) {
    throw new TypeError(
      `OutboundSseEventBuilder.${field}(): ${JSON.stringify(v)} contains a CR, LF or NUL, which cannot be sent in an event ${field}`,
    );
  }
  return v;
}

/**
 * The event's bytes on the wire: comment lines, `event:`, `id:`, `retry:`, one `data:` line per
 * line of `data`, and the blank line that dispatches it (WHATWG HTML §9.2.6). `data` is the event's
 * data already written as text (undefined: none).
 * @example frameOf(event, '{"a":1}') // 'event: tick\nid: 1\ndata: {"a":1}\n\n'
 */
export function frameOf(event: OutboundSseEvent, data: string | undefined): string {
  let out = '';
  if (event.comment !== undefined)
    for (const line of event.comment.split(EVENT_STREAM_LINE_BREAK)) out += line === '' ? ':\n' : `: ${line}\n`;
  if (event.name !== undefined) out += `event: ${event.name}\n`;
  if (event.id !== undefined) out += `id: ${event.id}\n`;
  if (event.reconnectDelay !== undefined) out += `retry: ${event.reconnectDelay}\n`;
  if (data !== undefined) out += eventStreamData(data);
  return `${out}\n`;
}
