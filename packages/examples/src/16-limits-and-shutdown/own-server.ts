/**
 * The `(req, res)` form: `app.handler` mounted on a `node:http` server you create yourself (to
 * share a port with another handler, listen on a Unix socket, or wrap it in your own server).
 *
 *   const app = createApp();
 *   const server = createOwnServer(app).listen(3000, '127.0.0.1');
 *   process.once('SIGTERM', () => void shutdown(app, server).then(() => process.exit(0)));
 *
 * Two things `app.listen()` did for you become yours:
 * - the server-level limits (timeouts, `maxHeaderSize`, `maxRequestsPerSocket`): they are options
 *   of the server, not of the handler, so {@link createOwnServer} copies them from `app.limits`;
 *   `bodyLimit` is enforced by the pipeline itself and applies either way;
 * - the shutdown: `app.close()` knows no server here, so it only answers new requests with 503,
 *   adds `Connection: close` to in-flight responses, and resolves once nothing is in flight or at
 *   its deadline, whichever comes first (it cannot cut connections it does not own);
 *   {@link shutdown} stops the listener and cuts connections itself.
 */
import { createServer, type Server } from 'node:http';
import type { Application } from '@jaxrs-node/pipeline';

/** After the last in-flight response, how long its bytes may take to flush before sockets are cut. */
const LINGER_MS = 200;

/** A `node:http` server running `app.handler` with the same server limits `app.listen()` applies. */
export function createOwnServer(app: Application): Server {
  const l = app.limits;
  const server = createServer(
    {
      maxHeaderSize: l.maxHeaderSize,
      requestTimeout: l.requestTimeout,
      headersTimeout: l.headersTimeout,
      connectionsCheckingInterval: l.connectionsCheckingInterval,
    },
    app.handler,
  );
  // Properties, not constructor options, in Node 20.
  server.keepAliveTimeout = l.keepAliveTimeout;
  server.maxRequestsPerSocket = l.maxRequestsPerSocket === 0 ? null : l.maxRequestsPerSocket;
  server.timeout = l.sendTimeout;
  return server;
}

/**
 * Graceful close of `app` on its own `server`: stop accepting and close idle kept-alive sockets,
 * let in-flight requests finish (503 for any that still arrive), and cut every connection left at
 * the deadline. Resolves once the server has closed, at the latest about `deadlineMs` later.
 */
export async function shutdown(app: Application, server: Server, deadlineMs = app.limits.shutdownDeadline): Promise<void> {
  // server.close() stops accepting, closes idle kept-alive sockets (Node >= 19), and calls back
  // when the last connection is gone. Busy ones end by themselves: their response says close.
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const cut = setTimeout(() => server.closeAllConnections(), deadlineMs);
  let linger: NodeJS.Timeout | undefined;
  // Not awaited: the server closing is what we wait for. close() settles when nothing is in
  // flight or at the deadline; in the first case, a connection that never sent a request is not
  // "idle" to Node and would hold server.close() until the deadline: let the last responses
  // flush, then cut what is left (at the deadline, `cut` does the same).
  void app.close(deadlineMs).then(() => {
    linger = setTimeout(() => server.closeAllConnections(), Math.min(LINGER_MS, deadlineMs)).unref();
  });
  try {
    await closed;
  } finally {
    clearTimeout(cut);
    clearTimeout(linger);
  }
}
