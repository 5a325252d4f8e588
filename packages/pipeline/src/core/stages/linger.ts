/**
 * Lingering close (RFC 9112 §9.6; nginx and Apache `lingering_close`): after an early answer to a
 * request whose body is still arriving (a 413 on the declared length, a 415, a filter's abort),
 * the connection is closed, but not at once. Closing a socket whose kernel buffer still holds
 * unread bytes makes the kernel send a reset: the client, still writing its body, gets EPIPE or
 * ECONNRESET, and may lose the answer already on its way. So the rest of the body is read and
 * discarded while the answer goes out, and the socket is destroyed once the body has ended,
 * `LINGER_BYTES` more arrived, or `LINGER_MS` passed after the answer.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** Longest wait for the client to finish sending, after the answer. */
export const LINGER_MS = 2_000;
/** Most bytes read and discarded after the answer. */
export const LINGER_BYTES = 16 * 1024 * 1024;

const lingering = new WeakSet<Socket>();

/**
 * Discards the rest of `request`'s body from now on, and makes the close Node's HTTP server
 * performs after the `Connection: close` response (`socket.destroySoon()`) wait for it, bounded.
 * Called only for responses that leave the request's body unread.
 */
export function lingerOnClose(request: IncomingMessage): void {
  const socket = request.socket as Socket | null | undefined;
  if (socket === null || socket === undefined || lingering.has(socket) || typeof socket.destroySoon !== 'function') return;
  lingering.add(socket);
  // Resumed while the request is still the socket's current one, so its parser reads on; a
  // body reader that gave up had paused it. No 'data' listener: the bytes are dropped.
  request.resume();
  const close = socket.destroySoon.bind(socket);
  socket.destroySoon = function lingeringClose(this: Socket): void {
    if (this.destroyed) return;
    if (request.complete) return close();
    let discarded = 0;
    const done = (): void => {
      clearTimeout(timer);
      request.off('data', count);
      request.off('end', done);
      close(); // ends, then destroys once the answer is flushed
    };
    const count = (chunk: Buffer): void => {
      discarded += chunk.length;
      if (discarded > LINGER_BYTES) this.destroy();
    };
    const timer = setTimeout(done, LINGER_MS);
    timer.unref();
    request.on('data', count);
    request.once('end', done);
    this.once('close', () => clearTimeout(timer));
    this.end();
  };
}

/** Sockets {@link closeLingering} is closing. */
const closing = new WeakSet<Socket>();

/**
 * Closes a connection the lingering way (RFC 9112 §9.6) after what was written on it: half-closes
 * the sending side now (the client reads the whole answer, then the FIN), keeps reading what the
 * client still sends, and destroys the socket once the client has closed its side too, or
 * `LINGER_MS` after the answer reached the kernel. Bytes that arrive go where the socket's readers
 * put them (Node's parser, which drops them once it has failed or the server is closing).
 */
export function closeLingering(socket: Socket): void {
  if (socket.destroyed || closing.has(socket)) return;
  closing.add(socket);
  const destroyWhenFlushed = (): void => {
    if (socket.writableFinished) socket.destroy();
    else socket.once('finish', () => socket.destroy());
  };
  if (socket.readableEnded) {
    // The client has closed its side already: nothing more will arrive.
    socket.end();
    destroyWhenFlushed();
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  socket.once('end', destroyWhenFlushed);
  socket.once('finish', () => {
    timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
  });
  socket.once('close', () => clearTimeout(timer));
  socket.resume();
  socket.end();
}
