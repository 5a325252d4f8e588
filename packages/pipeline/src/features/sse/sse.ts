import { HeaderParam, type ParamDecorator } from '../../decorators/params.js';
import { SseBroadcaster } from './broadcaster.js';
import { OutboundSseEvent, type OutboundSseEventBuilder } from './event.js';
import { SERVER_ONLY, type ServerOnly } from '../../core/context/server-only.js';

/**
 * The entry point for building events and broadcasters (Jakarta REST 2.1 `Sse`), injected with
 * `@Context() sse: Sse`; it holds no state, so `new Sse()` outside a request is the same.
 * @example
 * sink.send(sse.newEvent({ status: 'RUNNING' }));                 // data: {"status":"RUNNING"}
 * sink.send(sse.newEvent('progress', '3/10'));                    // event: progress / data: 3/10
 * sink.send(sse.newEventBuilder().id('3').data('x').reconnectDelay(5000).build());
 */
export class Sse implements ServerOnly {
  /** Injected by the server: a typed client leaves such a parameter out ({@link ServerOnly}). */
  declare readonly [SERVER_ONLY]: true;
  /** A builder for an event with more fields than data and name. */
  newEventBuilder(): OutboundSseEventBuilder {
    return OutboundSseEvent.builder();
  }

  /** An event carrying `data` (text for a string, JSON otherwise), or named `name` with `data`. */
  newEvent(data: unknown): OutboundSseEvent;
  newEvent(name: string, data: unknown): OutboundSseEvent;
  newEvent(...args: [unknown] | [string, unknown]): OutboundSseEvent {
    const b = OutboundSseEvent.builder();
    if (args.length === 2) b.name(args[0]);
    return b.data(args[args.length - 1]).build();
  }

  /** A new {@link SseBroadcaster}. */
  newBroadcaster(): SseBroadcaster {
    return new SseBroadcaster();
  }
}

/**
 * The `Last-Event-ID` header of a reconnecting event-stream client: the id of the last event it
 * received (WHATWG HTML §9.2.4); undefined on a first connection. Same as `@HeaderParam('Last-Event-ID')`.
 * @example
 * \@GET() \@Produces('text/event-stream') events(\@Context() sink: SseEventSink, \@LastEventId() last?: string) {}
 */
export const LastEventId = (): ParamDecorator => HeaderParam('Last-Event-ID');
