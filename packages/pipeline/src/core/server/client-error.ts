/**
 * Requests that Node's HTTP parser (llhttp) rejects before the application sees them: a malformed
 * request line or header, a request-smuggling shape (RFC 9112 §6.3: Content-Length with
 * Transfer-Encoding, two Content-Lengths), a bad chunk, headers over `maxHeaderSize`, or the
 * `headersTimeout` / `requestTimeout` expiring. Node answers those with a bodiless 400, 431, 413 or
 * 408; this answers them, like Fastify's `clientError` handler, with the application's error body
 * (`ApplicationOptions.errorBody`) as JSON, keeping Node's statuses (the same in Node 20 to 26),
 * then closes the connection (RFC 9112 §9.6: nothing after a request that could not be framed can
 * be trusted).
 *
 * Off the hot path by nature: Node calls it only for such failures.
 */
import type { EventEmitter } from 'node:events';
import { IncomingMessage, ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ContainerRequestContext } from '../context/request-context.js';
import { WebApplicationError } from '../http/errors.js';
import type { Runtime } from '../internal/runtime.js';
import { errorEntity } from '../internal/error-format.js';
import { closeLingering, LINGER_BYTES } from '../stages/linger.js';

/** What Node hands a `clientError` listener: llhttp's `HPE_*` codes carry the bytes being parsed. */
interface ClientError extends Error {
  code?: string;
  rawPacket?: Buffer;
}

/** Node's own fields of a server socket: the response being written on it, if any. */
interface HttpSocket extends Socket {
  _httpMessage?: ServerResponse | null;
}

/** One kind of rejection: its status and stable code. */
interface Kind {
  readonly status: number;
  readonly code: string;
  /** Whether the parser failed (it then ignores everything after) or a timer fired (it parses on). */
  readonly parserFailed: boolean;
}

const HEADERS_TOO_LARGE: Kind = { status: 431, code: 'PIPE_HEADERS_TOO_LARGE', parserFailed: true };
const CHUNK_EXTENSIONS_TOO_LARGE: Kind = { status: 413, code: 'PIPE_CHUNK_EXTENSIONS_TOO_LARGE', parserFailed: true };
const REQUEST_TIMEOUT: Kind = { status: 408, code: 'PIPE_REQUEST_TIMEOUT', parserFailed: false };
const BAD_SYNTAX: Kind = { status: 400, code: 'PIPE_BAD_REQUEST_SYNTAX', parserFailed: true };

/**
 * The status Node itself gives each code (lib/_http_server.js `socketOnError`, unchanged from
 * Node 20 to 26): 431 for `HPE_HEADER_OVERFLOW`, 413 for `HPE_CHUNK_EXTENSIONS_OVERFLOW`, 408 for
 * `ERR_HTTP_REQUEST_TIMEOUT` (both timeouts), 400 for every other parser code.
 */
function kindOf(code: string | undefined): Kind {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return HEADERS_TOO_LARGE;
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return CHUNK_EXTENSIONS_TOO_LARGE;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return REQUEST_TIMEOUT;
    default:
      return BAD_SYNTAX;
  }
}

function messageOf(kind: Kind, err: ClientError, rt: Runtime): string {
  switch (kind) {
    case HEADERS_TOO_LARGE:
      return `Request headers are larger than ${rt.limits.maxHeaderSize} bytes`;
    case CHUNK_EXTENSIONS_TOO_LARGE:
      return 'Chunk extensions are too large';
    case REQUEST_TIMEOUT:
      return 'The request was not received in time';
    default:
      return typeof err.code === 'string' && err.code.startsWith('HPE_')
        ? `Malformed HTTP request (${err.code})`
        : 'Malformed HTTP request';
  }
}

/** Sockets already answered (Node calls again for every later chunk and for the client's FIN), with the bytes discarded since. */
const answered = new WeakMap<Socket, { discarded: number }>();

/**
 * Registers the `clientError` listener on `server` (the server {@link Application.listen} starts).
 * Node then writes nothing itself: this listener answers and closes every such connection.
 */
export function answerClientErrors(server: EventEmitter, rt: Runtime): void {
  server.on('clientError', (err: ClientError, socket: Socket) => onClientError(rt, err, socket as HttpSocket));
}

function onClientError(rt: Runtime, err: ClientError, socket: HttpSocket): void {
  const seen = answered.get(socket);
  if (seen !== undefined) {
    // Bytes the failed parser keeps receiving while the answer lingers: bounded like linger.ts.
    seen.discarded += err.rawPacket?.length ?? 0;
    if (err.code === 'ECONNRESET' || seen.discarded > LINGER_BYTES) socket.destroy();
    return;
  }
  // A connection being closed the lingering way (linger.ts) reads and drops what still arrives.
  if (err.code !== 'ECONNRESET' && socket.writableEnded && !socket.destroyed) return;
  // The client is gone or the socket cannot take an answer: nothing to say, only to release.
  if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  answered.set(socket, { discarded: 0 });
  const inFlight = socket._httpMessage ?? null;
  // A response already on its way (or one owed to an earlier pipelined request, whose request is
  // complete) owns the connection: an error written now would be read as that request's answer.
  // Let the responses in flight finish, then close (the failed request gets no answer; the client
  // sees the close and knows it was not processed, RFC 9112 §9.3.2).
  const kind = kindOf(err.code);
  if (inFlight !== null && (inFlight.headersSent || inFlight.req.complete)) {
    closeAfterResponses(socket, kind.parserFailed);
    return;
  }
  const error = new WebApplicationError(kind.status, messageOf(kind, err, rt), { code: kind.code, cause: err });
  // The request this is about, if Node got as far as dispatching it (a timeout or a bad chunk while
  // its body was arriving); otherwise none: the context has an empty method and path.
  const req = inFlight?.req ?? new IncomingMessage(socket);
  const ctx = contextFor(req, inFlight ?? new ServerResponse(req));
  const { json, contentType } = errorJson(rt, error, ctx);
  socket.write(wire(kind.status, json, contentType, req.method === 'HEAD'), 'latin1');
  // A failed parser ignores everything that follows: read and discard it while the answer goes
  // out, so that closing does not make the kernel reset the connection and drop the answer
  // (RFC 9112 §9.6). After a timeout the parser still works, and a slow client deserves no wait.
  if (kind.parserFailed) closeLingering(socket);
  else destroyWhenFlushed(socket);
}

/** A context for the error body: the dispatched request's method and path, or `''` for both. */
function contextFor(req: IncomingMessage, res: ServerResponse): ContainerRequestContext {
  const url = req.url ?? '';
  const q = url.indexOf('?');
  return new ContainerRequestContext(req, res, req.method ?? '', q < 0 ? url : url.slice(0, q), q < 0 ? '' : url.slice(q + 1), false);
}

/**
 * The application's error body as JSON, in its `errorFormat` (problem details under `'problem'`,
 * and under `'negotiate'` when the dispatched request's Accept prefers them; a request rejected
 * before its headers were parsed has no Accept, so it gets the `errorBody`); the default shape if
 * the factory throws or returns nothing serialisable.
 */
function errorJson(rt: Runtime, error: WebApplicationError, ctx: ContainerRequestContext): { json: string; contentType: string } {
  try {
    const entity = errorEntity(rt, error, ctx);
    const json = JSON.stringify(entity.body);
    if (typeof json === 'string') return { json, contentType: entity.contentType ?? 'application/json' };
  } catch (factoryError) {
    rt.logError(factoryError, ctx);
  }
  return {
    json: JSON.stringify({ status: error.status, error: error.reason, code: error.code, message: error.message }),
    contentType: 'application/json',
  };
}

function wire(status: number, json: string, contentType: string, head: boolean): string {
  const body = Buffer.from(json, 'utf8');
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
    `Date: ${new Date().toUTCString()}\r\n` +
    `Content-Type: ${contentType}\r\n` +
    // No response filter runs here (there is no request): the one header every error body wants.
    'X-Content-Type-Options: nosniff\r\n' +
    `Content-Length: ${body.length}\r\n` +
    'Connection: close\r\n\r\n' +
    (head ? '' : body.toString('latin1'))
  );
}

/** Closes the connection once the responses Node has queued on it are written (lingering after a parser failure). */
function closeAfterResponses(socket: HttpSocket, linger: boolean): void {
  const res = socket._httpMessage ?? null;
  if (res === null) {
    if (linger) closeLingering(socket);
    else destroyWhenFlushed(socket);
    return;
  }
  // Node's own 'finish' listener, registered first, has moved the next queued response in by then.
  res.once('finish', () => closeAfterResponses(socket, linger));
}

/** Ends the connection and destroys it once what was written has reached the kernel. */
function destroyWhenFlushed(socket: Socket): void {
  socket.end();
  if (socket.writableFinished) socket.destroy();
  else socket.once('finish', () => socket.destroy());
}
