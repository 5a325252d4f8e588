/**
 * Example 25, server-sent events (WHATWG HTML §9.2, Jakarta REST 3.1 §9): a chat room whose
 * messages are broadcast to every listener as `text/event-stream`, with replay for clients that
 * reconnect.
 *
 *   curl -N localhost:3000/chat                                        # listen: one `event: message` per message
 *   curl -X POST -H 'content-type: text/plain' -d 'hello' 'localhost:3000/chat?from=ada'   # 202, to every listener
 *   curl -N -H 'Last-Event-ID: 1' localhost:3000/chat                  # what came after message 1, then live
 *   curl localhost:3000/chat/messages                                  # the recent messages as JSON
 *
 * In a browser: `new EventSource('/chat').addEventListener('message', (e) => show(JSON.parse(e.data)))`;
 * the browser sends `Last-Event-ID` by itself when it reconnects.
 *
 * - `@Context() sink: SseEventSink` on a method that `@Produces('text/event-stream')` is one
 *   client's stream: the method registers it with the room's `SseBroadcaster` and returns; the
 *   stream stays open until the client leaves (the broadcaster then drops it by itself);
 * - the room's `EventLog` numbers the messages (the event ids) and replays what a reconnecting
 *   client missed, or sends it a `resync` event when its id is older than the log remembers;
 * - `SseFeature` sets the heartbeat (a comment on quiet streams, so proxies keep them open) and
 *   the event every listener gets when the server shuts down.
 */
import 'reflect-metadata';
import { container as rootContainer, injectable } from 'tsyringe';
import {
  Application,
  BadRequestError,
  Consumes,
  Context,
  DefaultValue,
  Entity,
  EventLog,
  GET,
  LastEventId,
  OutboundSseEvent,
  Path,
  POST,
  Produces,
  QueryParam,
  Response,
  SseBroadcaster,
  SseEventSink,
  SseFeature,
} from '@jaxrs-node/pipeline';

/** A chat message, as the event data carries it (JSON). */
export interface Message {
  from: string;
  text: string;
  at: string;
}

/** The room: its listeners and its recent messages. One per application (see {@link createApp}). */
@injectable()
export class ChatRoom {
  readonly listeners = new SseBroadcaster();
  readonly log = new EventLog({ capacity: 100 });

  /** Keeps the message (the log gives it the next id) and sends it to every listener. */
  post(from: string, text: string): OutboundSseEvent {
    const message: Message = { from, text, at: new Date().toISOString() };
    const event = this.log.append(OutboundSseEvent.builder().name('message').data(message).build());
    this.listeners.broadcast(event);
    return event;
  }
}

@injectable()
@Path('/chat')
export class Chat {
  constructor(private readonly room: ChatRoom) {}

  /** One listener: first what it missed (from its Last-Event-ID), then every new message. */
  @GET()
  @Produces('text/event-stream')
  listen(@Context() sink: SseEventSink, @LastEventId() lastEventId?: string): void {
    // Replay and register in one synchronous block: no message can fall in between.
    this.room.log.replay(sink, lastEventId);
    this.room.listeners.register(sink);
  }

  @POST()
  @Consumes('text/plain')
  say(@Entity() text: string, @QueryParam('from') @DefaultValue('anonymous') from: string): Response {
    if (text.trim() === '' || text.length > 500) throw new BadRequestError('A message has 1 to 500 characters');
    const event = this.room.post(from, text);
    return Response.accepted({ id: event.id, listeners: this.room.listeners.size }).build();
  }

  /** The messages the room remembers, for a page that loads before it listens. */
  @GET()
  @Path('messages')
  messages(): { id: string; message: Message }[] {
    return this.room.log.recent().map((e) => ({ id: e.id!, message: e.data as Message }));
  }
}

/** What every listener gets when the server shuts down: come back in 5 s. */
export const GOODBYE = OutboundSseEvent.builder().name('shutdown').data('the server is restarting').reconnectDelay(5000).build();

/** The application with its own room (two applications share nothing). */
export function createApp(options: { heartbeatInterval?: number } = {}): Application {
  const container = rootContainer.createChildContainer();
  container.registerSingleton(ChatRoom);
  return new Application({
    container,
    resources: [Chat],
    providers: [new SseFeature({ heartbeatInterval: options.heartbeatInterval ?? 15_000, closeEvent: GOODBYE })],
  });
}
