import { OutboundSseEvent } from './event.js';
import type { SseEventSink } from './sink.js';

/**
 * Options of an {@link EventLog}.
 * @example new EventLog({ capacity: 500, resyncEventName: 'reload' })
 */
export interface EventLogOptions {
  /** How many recent events it keeps (a ring buffer). Default 1000. */
  capacity?: number;
  /** The name of the event sent to a client whose `Last-Event-ID` is too old or unknown. Default `'resync'`. */
  resyncEventName?: string;
}

/**
 * The recent events of a stream, by id, so a reconnecting client (its `Last-Event-ID`) gets what
 * it missed (WHATWG HTML §9.2.4): a bounded ring buffer. When the id is no longer (or never was)
 * in the log, the client is told to resynchronise instead: an event named `resync` (its data
 * empty, its id the newest id of the log, so the next reconnect resumes from there), after which
 * it should reload the state it shows.
 *
 * Replay and registration must happen in one synchronous block (no `await` between them), so no
 * event appended in between is missed or sent twice.
 * @example
 * const log = new EventLog({ capacity: 500 });
 * function publish(data: unknown) { hub.broadcast(log.append(sse.newEvent(data))); }
 * \@GET() \@Produces('text/event-stream') subscribe(\@Context() sink: SseEventSink) {
 *   log.replay(sink);        // from sink.lastEventId
 *   hub.register(sink);
 * }
 */
export class EventLog {
  private readonly ring: (OutboundSseEvent | undefined)[];
  private readonly capacity: number;
  private readonly resyncName: string;
  /** Sequence number of every event still in the ring, by id. */
  private readonly seqById = new Map<string, number>();
  /** Sequence number of the oldest event kept, and of the next one. */
  private first = 0;
  private next = 0;

  constructor(options: EventLogOptions = {}) {
    const { capacity = 1000, resyncEventName = 'resync' } = options;
    if (!Number.isSafeInteger(capacity) || capacity < 1)
      throw new TypeError(`EventLog: capacity must be a positive integer, got ${String(capacity)}`);
    this.capacity = capacity;
    this.resyncName = OutboundSseEvent.builder().name(resyncEventName).data('').build().name!;
    this.ring = new Array<OutboundSseEvent | undefined>(capacity);
  }

  /** The id of the newest event, if any. */
  get lastId(): string | undefined {
    return this.next === this.first ? undefined : this.ring[(this.next - 1) % this.capacity]!.id;
  }

  /**
   * Keeps `event` (dropping the oldest when full) and returns it; an event without an id gets the
   * next number (`'1'`, `'2'`, ...). Ids should be unique: a repeated id resumes after its latest use.
   */
  append(event: OutboundSseEvent): OutboundSseEvent {
    const seq = this.next++;
    const kept = event.id === undefined ? event.withId(String(seq + 1)) : event;
    if (seq - this.first === this.capacity) {
      const oldest = this.ring[this.first % this.capacity]!;
      if (this.seqById.get(oldest.id!) === this.first) this.seqById.delete(oldest.id!);
      this.first++;
    }
    this.ring[seq % this.capacity] = kept;
    this.seqById.set(kept.id!, seq);
    return kept;
  }

  /** The events it holds, oldest first. */
  recent(): OutboundSseEvent[] {
    const out: OutboundSseEvent[] = [];
    for (let s = this.first; s < this.next; s++) out.push(this.ring[s % this.capacity]!);
    return out;
  }

  /**
   * The events after `lastEventId`, oldest first: none for a client without one (a first
   * connection), undefined when the id is not in the log (too old, or unknown).
   */
  since(lastEventId: string | undefined): OutboundSseEvent[] | undefined {
    if (lastEventId === undefined) return [];
    const seq = this.seqById.get(lastEventId);
    if (seq === undefined) return undefined;
    return this.recent().slice(seq + 1 - this.first);
  }

  /**
   * Sends `sink` what it missed since `lastEventId` (default: the client's `Last-Event-ID`), or
   * the resync event when the log cannot tell; returns false in that case.
   */
  replay(sink: SseEventSink, lastEventId: string | undefined = sink.lastEventId): boolean {
    const missed = this.since(lastEventId);
    if (missed === undefined) {
      const resync = OutboundSseEvent.builder().name(this.resyncName).data('');
      const last = this.lastId;
      void sink.send((last === undefined ? resync : resync.id(last)).build());
      return false;
    }
    for (const event of missed) void sink.send(event);
    return true;
  }
}
