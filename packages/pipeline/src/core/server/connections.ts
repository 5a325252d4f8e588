/**
 * The connections of an application's own server, for a graceful close that never loses a
 * response already written.
 *
 * Why not just `server.closeIdleConnections()`: Node counts a connection as idle once its last
 * response has been handed to the socket (`res.end()`), even when most of it still waits in the
 * socket's buffer because the client has not read it yet. When that client has also pipelined a
 * request, Node has paused reading, so those bytes sit unread in the kernel; destroying the socket
 * then makes the kernel answer with a reset and drop the unsent tail of a 200 (RFC 9112 §9.6
 * warns about exactly this: close the sending side first). So a socket that is still flushing is
 * left alone until it has flushed; its pipelined request, if any, is then answered with the
 * closing 503 and `Connection: close`. Only the shutdown deadline cuts it. And a connection whose
 * response is wholly in the kernel's buffer (Node sees nothing left to write) is not destroyed but
 * half-closed (RFC 9112 §9.6): the client reads the whole response, then the FIN; what it still
 * sends is read and dropped until it closes, or for at most `LINGER_MS`.
 */
import type { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import type { Server as NetServer } from 'node:net';
import type { Socket } from 'node:net';
import { closeLingering } from '../stages/linger.js';

/** Below this many tracked connections, {@link Connections} does not look for closed ones as new ones arrive. */
const PRUNE_MIN = 64;

/**
 * The open connections of a server, for its graceful close and the `sendTimeout` sweep.
 *
 * Kept without a listener of its own: the server's one listener for new connections (Node's) is
 * wrapped rather than joined by a second, and a closed socket is dropped the next time the set is
 * read, or when it has doubled in size since the last look, instead of from a `close` listener on
 * every socket. Two listeners on one event make `EventEmitter.prototype.emit` take its array branch,
 * and V8 optimises `emit` for the whole process at once: once that branch has run, the `emit` inlined
 * into Node's HTTP code (`request`, `data`, `end`, `finish`, `close`, on every request) calls
 * listeners through the generic `Reflect.apply` path. Issue 27's profile measured about 860
 * instructions per request for a connection listener and a socket `close` listener added to the
 * hand-written server.
 */
export class Connections {
  private readonly sockets = new Set<Socket>();
  private pruneAt = PRUNE_MIN;

  /** Tracks the connections `server` announces on `event` from now on. */
  track(server: EventEmitter, event: 'connection' | 'secureConnection'): this {
    const add = (socket: Socket): void => this.add(socket);
    const raw = server.rawListeners(event);
    const only = raw.length === 1 ? (raw[0] as (this: unknown, socket: Socket) => void) : undefined;
    // A `once` listener shows up wrapped in rawListeners() and unwrapped in listeners(): not ours to replace.
    if (only === undefined || server.listeners(event)[0] !== only) {
      server.on(event, add);
      return this;
    }
    server.removeListener(event, only);
    server.on(event, function connectionThenTrack(this: unknown, socket: Socket): void {
      only.call(this, socket);
      add(socket);
    });
    return this;
  }

  /** The connections still open (a socket is open until it is destroyed); the closed ones are dropped on the way. */
  open(): Set<Socket> {
    this.prune();
    return this.sockets;
  }

  /** Sockets held, closed ones not yet dropped included: at most twice the open ones after a look, or 64. */
  get held(): number {
    return this.sockets.size;
  }

  private add(socket: Socket): void {
    if (this.sockets.size >= this.pruneAt) this.prune();
    this.sockets.add(socket);
  }

  private prune(): void {
    for (const s of this.sockets) if (s.destroyed) this.sockets.delete(s);
    this.pruneAt = Math.max(PRUNE_MIN, 2 * this.sockets.size);
  }
}

/**
 * `limits.sendTimeout` on an HTTP/1.1 server (plain or TLS) without a timer per request: a
 * connection with a request in flight on which no byte moved, in either direction, for `timeoutMs`
 * gets the socket's `timeout` event, which Node's HTTP server answers as it answers its own
 * inactivity timer (`server.timeout`): `timeout` on the request, the response and the server, and
 * the socket destroyed when nobody listens. Node's timer is re-armed on every read and write and
 * re-set at every request of a kept-alive connection, a timer object and several list operations
 * per request (issue 27's profile: about 800 instructions per request); this sweep looks at each
 * connection every `timeoutMs / 4` (at most once a second), so a stalled connection is cut between
 * `timeoutMs` and `timeoutMs` plus one interval after its last byte. In flight: Node has given the
 * socket a response (`_httpMessage`, set from the request's headers until the response finished).
 * Progress: `bytesRead + bytesWritten` (bytes the application handed to the socket count, so a
 * producer that keeps writing keeps the connection; backpressure stops one whose client does not
 * read). The server's `close` stops the sweep.
 */
export function watchSendTimeout(server: NetServer, connections: Connections, timeoutMs: number): void {
  if (timeoutMs === 0) return;
  const seen = new Map<Socket, { bytes: number; since: number }>();
  const sweep = (): void => {
    const now = performance.now();
    const sockets = connections.open();
    for (const s of sockets) {
      if (s.destroyed || (s as Socket & { _httpMessage?: unknown })._httpMessage == null) {
        seen.delete(s);
        continue;
      }
      const bytes = s.bytesRead + s.bytesWritten;
      const last = seen.get(s);
      if (last === undefined || last.bytes !== bytes) seen.set(s, { bytes, since: now });
      else if (now - last.since >= timeoutMs) {
        last.since = now;
        s.emit('timeout');
      }
    }
    for (const s of seen.keys()) if (!sockets.has(s)) seen.delete(s);
  };
  const timer = setInterval(sweep, Math.max(10, Math.min(1_000, Math.floor(timeoutMs / 4))));
  timer.unref();
  server.once('close', () => {
    clearInterval(timer);
    seen.clear();
  });
}

/** Sockets with response bytes still in their own buffer (the client is not reading). */
function flushing(sockets: Set<Socket>): Socket[] {
  const out: Socket[] = [];
  for (const s of sockets) if (s.writableLength > 0 && !s.destroyed) out.push(s);
  return out;
}

/**
 * Runs `fn` (which may reap idle connections: `server.close()`, `closeIdleConnections()`) with the
 * flushing sockets shielded from being destroyed, then reaps each of those again once it has
 * drained, so that it does not stay open after the close. The sockets `fn` reaps are closed the
 * lingering way instead of destroyed (see {@link closeLingering}): an idle connection may still
 * have its last response in the kernel's send buffer, unread by a client that has pipelined
 * another request; destroying it would make the kernel answer that request with a reset and drop
 * the unsent tail of the response.
 */
export function sparingFlushing(server: Server, connections: Connections, fn: () => void): void {
  const sockets = connections.open();
  const spared = flushing(sockets);
  const noop = function (this: Socket): Socket {
    return this;
  };
  const linger = function (this: Socket): Socket {
    closeLingering(this);
    return this;
  };
  const shielded = [...sockets];
  for (const s of shielded) s.destroy = linger;
  for (const s of spared) s.destroy = noop;
  try {
    fn();
  } finally {
    for (const s of shielded) delete (s as { destroy?: unknown }).destroy; // back to the prototype's
  }
  for (const s of spared) {
    s.once('drain', () => setImmediate(() => sparingFlushing(server, connections, () => server.closeIdleConnections())));
  }
}

/**
 * Closes the connections that have nothing left in their own buffer (idle or never used), the
 * lingering way (their last response may still be in the kernel's); spares the rest.
 */
export function cutQuiet(connections: Connections): void {
  for (const s of connections.open()) if (s.writableLength === 0) closeLingering(s);
}

/**
 * While the application closes, a request that arrives on a connection already half-closed by
 * {@link closeLingering} is dropped unanswered: the client has the FIN after its last response
 * and retries the request elsewhere (RFC 9112 §9.3.2); an answer could not be written anyway.
 */
export function halfClosed(socket: Socket | null): boolean {
  return socket !== null && socket.writableEnded;
}
