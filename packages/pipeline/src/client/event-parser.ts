/**
 * The `text/event-stream` interpretation of WHATWG HTML §9.2.6: UTF-8 decoded (a leading BOM
 * dropped, invalid bytes replaced), lines ended by CRLF, LF or CR (also across chunks), comments,
 * `event`, `data` (one line each, joined with LF), `id` (without NUL; kept for the next events
 * too) and `retry` (digits only) fields, an empty line dispatching the event (none when it has no
 * data). The bytes of the event being built are bounded.
 */
import { ClientErrorCode, ClientProcessingError } from './errors.js';

/** One event as the parser dispatches it. */
export interface ParsedEvent {
  /** The last event ID when the event was dispatched (`''` when none was ever set). */
  readonly id: string;
  /** The event type; `message` when the event named none. */
  readonly event: string;
  readonly data: string;
  /** The reconnection time a `retry` field of this event set, in ms. */
  readonly retry: number | undefined;
}

/** Parses one connection's bytes; make a new one per connection (the BOM is dropped at its start). */
export class EventStreamParser {
  /** The last event ID string (the `Last-Event-ID` of a reconnection). */
  lastEventId: string;
  /** The reconnection time the stream asked for with `retry`, if it did. */
  retry: number | undefined;
  /**
   * Set when an event grew past the size limit: the events completed before it were returned,
   * nothing after it is parsed.
   */
  failure: ClientProcessingError | undefined;

  private readonly decoder = new TextDecoder('utf-8');
  private readonly limit: number;
  private line = '';
  /** The last chunk ended with CR: an LF at the start of the next one belongs to it. */
  private afterCR = false;
  private data = '';
  private hasData = false;
  private type = '';
  private idBuffer: string;
  private eventRetry: number | undefined;
  /** Bytes of the fields the event being built keeps (`data`, `event`). */
  private held = 0;
  /** Bytes of the unfinished line received so far. */
  private lineBytes = 0;

  constructor(lastEventId: string, maxEventBytes: number) {
    this.lastEventId = lastEventId;
    this.idBuffer = lastEventId;
    this.retry = undefined;
    this.eventRetry = undefined;
    this.limit = maxEventBytes;
    this.failure = undefined;
  }

  /** The events completed by `chunk`, in order, up to a {@link failure}. */
  push(chunk: Uint8Array): ParsedEvent[] {
    const out: ParsedEvent[] = [];
    if (this.failure !== undefined) return out;
    try {
      this.parse(this.decoder.decode(chunk, { stream: true }), out);
    } catch (e) {
      if (!(e instanceof ClientProcessingError)) throw e;
      this.failure = e;
    }
    return out;
  }

  private parse(text: string, out: ParsedEvent[]): void {
    let start = 0;
    if (this.afterCR && text.charCodeAt(0) === 10) start = 1;
    this.afterCR = false;
    for (let i = start; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.line += text.slice(start, i);
      this.lineEnded(out);
      if (c === 13) {
        if (i + 1 === text.length) this.afterCR = true;
        else if (text.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    if (start < text.length) {
      const rest = text.slice(start);
      this.line += rest;
      this.lineBytes += Buffer.byteLength(rest);
      this.check(this.lineBytes);
    }
  }

  private lineEnded(out: ParsedEvent[]): void {
    const line = this.line;
    this.line = '';
    this.lineBytes = 0;
    if (line === '') {
      this.dispatch(out);
      return;
    }
    this.check(Buffer.byteLength(line));
    if (line.charCodeAt(0) === 58 /* : a comment */) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    switch (field) {
      case 'event':
        this.held += Buffer.byteLength(value) - Buffer.byteLength(this.type);
        this.type = value;
        break;
      case 'data':
        this.data = this.hasData ? `${this.data}\n${value}` : value;
        this.hasData = true;
        this.held += Buffer.byteLength(value) + 1;
        break;
      case 'id':
        if (!value.includes('\u0000')) this.idBuffer = value;
        break;
      case 'retry':
        if (/^[0-9]+$/.test(value)) {
          this.retry = Number(value);
          this.eventRetry = this.retry;
        }
        break;
      default:
    }
  }

  private dispatch(out: ParsedEvent[]): void {
    this.lastEventId = this.idBuffer;
    if (this.hasData)
      out.push({ id: this.lastEventId, event: this.type === '' ? 'message' : this.type, data: this.data, retry: this.eventRetry });
    this.data = '';
    this.hasData = false;
    this.type = '';
    this.eventRetry = undefined;
    this.held = 0;
  }

  /** Fails when the event's fields and a line of `lineBytes` would exceed the limit. */
  private check(lineBytes: number): void {
    if (this.held + lineBytes > this.limit) {
      throw new ClientProcessingError(
        ClientErrorCode.ResponseTooLarge,
        `An event of the stream exceeds maxEventBytes (${this.limit}): raise the option, or send smaller events`,
      );
    }
  }
}
