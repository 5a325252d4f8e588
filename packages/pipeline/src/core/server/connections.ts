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
 * closing 503 and `Connection: close`. Only the shutdown deadline cuts it.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** Every open connection of `server` (a Set kept by its `connection` and `close` events). */
export function trackConnections(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return sockets;
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
 * drained, so that it does not stay open after the close.
 */
export function sparingFlushing(server: Server, sockets: Set<Socket>, fn: () => void): void {
  const spared = flushing(sockets);
  const noop = function (this: Socket): Socket {
    return this;
  };
  for (const s of spared) s.destroy = noop;
  try {
    fn();
  } finally {
    for (const s of spared) delete (s as { destroy?: unknown }).destroy; // back to the prototype's
  }
  for (const s of spared) {
    s.once('drain', () => setImmediate(() => sparingFlushing(server, sockets, () => server.closeIdleConnections())));
  }
}

/** Destroys the connections that have nothing left to send (idle or never used); spares the rest. */
export function cutQuiet(sockets: Set<Socket>): void {
  for (const s of sockets) if (s.writableLength === 0) s.destroy();
}
