/**
 * The servers `listen()` starts besides plain HTTP/1.1 (see docs/http2.md): HTTP/1.1 over TLS
 * (`https.createServer`), HTTP/2 over TLS with ALPN `h2` and `http/1.1` on the same port
 * (`http2.createSecureServer({ allowHTTP1: true })`, RFC 9113 §3.2, RFC 7301), and HTTP/2 in
 * clear text with prior knowledge (h2c, RFC 9113 §3.3: `http2.createServer()`, no HTTP/1.1 on that
 * port). The application's limits map to each server's own settings here, once, at start-up.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  Http2SecureServer,
  Http2Server,
  Http2ServerRequest,
  Http2ServerResponse,
  SecureServerOptions,
  ServerHttp2Session,
  ServerOptions as Http2ServerOptions,
} from 'node:http2';
import type { Server as HttpsServer } from 'node:https';
import type { TLSSocket, TlsOptions } from 'node:tls';
import { builtin } from '../util/builtin.js';
import { Connections, watchSendTimeout } from './connections.js';
import type { PipelineLimits } from '../internal/defaults.js';
import { closeLingering } from '../stages/linger.js';

/**
 * TLS for {@link Application.listen}: Node's `tls.createServer` options (`key` + `cert` in PEM, or
 * `pfx`; `ca`, `passphrase`, `minVersion`, `ciphers`, `requestCert`...). The ALPN protocols are
 * the pipeline's to choose (`h2` and `http/1.1` with `http2`, `http/1.1` without).
 * @example await app.listen(8443, '0.0.0.0', { tls: { key: readFileSync('key.pem'), cert: readFileSync('cert.pem') }, http2: true });
 */
export type TlsListenOptions = Omit<TlsOptions, 'ALPNProtocols' | 'ALPNCallback'>;

/**
 * HTTP/2 settings and abuse bounds of {@link Application.listen} (`http2: { ... }`); `http2: true`
 * takes every default. The header size and time limits come from `limits` (docs/http2.md).
 */
export interface Http2ListenOptions {
  /**
   * SETTINGS_MAX_CONCURRENT_STREAMS (RFC 9113 §6.5.2): streams a client may have open at once on
   * one connection; more are refused with RST_STREAM REFUSED_STREAM. Default 100 (Node's own
   * default is 2^32-1, i.e. unbounded).
   */
  maxConcurrentStreams?: number;
  /** Node's `maxSessionMemory`: megabytes of frames and header tables a session may hold before new streams are refused. Default 10. */
  maxSessionMemory?: number;
  /** Node's `maxSessionRejectedStreams`: refused streams a client may open before its session is closed (ENHANCE_YOUR_CALM). Default 100. */
  maxSessionRejectedStreams?: number;
  /** Node's `maxSessionInvalidFrames`: invalid frames tolerated before the session is closed. Default 1000. */
  maxSessionInvalidFrames?: number;
}

/** What {@link createTransport} made: the server and what `close()` needs to drain it. */
export interface Transport {
  readonly kind: 'https' | 'h2' | 'h2c';
  readonly server: HttpsServer | Http2SecureServer | Http2Server;
  /** Open HTTP/2 sessions (empty for `https`). */
  readonly sessions: Set<ServerHttp2Session>;
  /** Every open connection: TLS sockets (`https`, `h2`) or TCP sockets (`h2c`). */
  readonly connections: Connections;
}

/** The listeners a transport dispatches to: HTTP/1.1 requests, and HTTP/2 streams (compatibility API). */
export interface TransportHandlers {
  readonly http1: (req: IncomingMessage, res: ServerResponse) => void;
  readonly http2: (req: IncomingMessage, res: ServerResponse) => void;
}

const DEFAULT_MAX_CONCURRENT_STREAMS = 100;

/** Refuses what cannot work before a socket is bound: the message names the option and the fix. */
export function checkTransportOptions(tls: TlsListenOptions | undefined, http2: boolean | Http2ListenOptions | undefined): void {
  if (http2 !== undefined && typeof http2 !== 'boolean' && (typeof http2 !== 'object' || http2 === null)) {
    throw new TypeError(`listen(): http2 must be true, false or an Http2ListenOptions object, got ${String(http2)}`);
  }
  if (typeof http2 === 'object') {
    for (const [key, value] of Object.entries(http2)) {
      if (!['maxConcurrentStreams', 'maxSessionMemory', 'maxSessionRejectedStreams', 'maxSessionInvalidFrames'].includes(key)) {
        throw new TypeError(`listen(): http2.${key} is not an HTTP/2 option (docs/http2.md)`);
      }
      if (value !== undefined && !(Number.isInteger(value) && (value as number) > 0)) {
        throw new TypeError(`listen(): http2.${key} must be a positive integer, got ${String(value)}`);
      }
    }
  }
  if (tls === undefined) return;
  if (typeof tls !== 'object' || tls === null) throw new TypeError(`listen(): tls must be an object of TLS options, got ${String(tls)}`);
  const hasKey = tls.key !== undefined;
  const hasCert = tls.cert !== undefined;
  if (tls.pfx === undefined && (!hasKey || !hasCert)) {
    throw new TypeError(
      `listen(): tls needs a private key and its certificate (tls.key and tls.cert, PEM) or tls.pfx; ` +
        `got ${hasKey ? 'a key without a certificate' : hasCert ? 'a certificate without a key' : 'neither'}`,
    );
  }
  try {
    // Parses the key and certificate and checks that they belong together (OpenSSL refuses a
    // certificate whose public key is not the private key's), here rather than at the first handshake.
    builtin('node:tls').createSecureContext(tls);
  } catch (e) {
    throw new TypeError(`listen(): the TLS options are unusable: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * Starts the server for `tls` / `http2` with the application's limits mapped onto it:
 * - `maxHeaderSize` → SETTINGS_MAX_HEADER_LIST_SIZE on HTTP/2 (a larger header block resets the
 *   stream), `maxHeaderSize` of the HTTP/1.1 parser otherwise;
 * - `sendTimeout` → the session's inactivity timeout (no frame in either direction: the session
 *   is destroyed) on HTTP/2; on HTTP/1.1 the sweep of connections.ts `watchSendTimeout`;
 * - `headersTimeout`, `requestTimeout`, `keepAliveTimeout` → HTTP/1.1 connections only (HTTP/2
 *   has no per-request header phase in Node; an idle session ends at `sendTimeout`);
 * - `maxRequestsPerSocket` → on HTTP/2, GOAWAY once a session has opened that many streams (the
 *   client goes on on a new connection); on HTTP/1.1 Node's own `maxRequestsPerSocket`.
 */
export function createTransport(
  tls: TlsListenOptions | undefined,
  http2: boolean | Http2ListenOptions | undefined,
  limits: PipelineLimits,
  handlers: TransportHandlers,
): Transport {
  const sessions = new Set<ServerHttp2Session>();
  const connections = new Connections();
  if (http2 === undefined || http2 === false) {
    const server = builtin('node:https').createServer(
      {
        ...tls,
        ALPNProtocols: ['http/1.1'],
        maxHeaderSize: limits.maxHeaderSize,
        requestTimeout: limits.requestTimeout,
        headersTimeout: limits.headersTimeout,
        connectionsCheckingInterval: limits.connectionsCheckingInterval,
        requireHostHeader: false,
      },
      handlers.http1,
    );
    server.keepAliveTimeout = limits.keepAliveTimeout;
    // sendTimeout: the sweep of the plain HTTP/1.1 server (connections.ts), not a timer per socket.
    server.timeout = 0;
    server.maxRequestsPerSocket = limits.maxRequestsPerSocket === 0 ? null : limits.maxRequestsPerSocket;
    connections.track(server, 'secureConnection');
    watchSendTimeout(server, connections, limits.sendTimeout);
    return { kind: 'https', server, sessions, connections };
  }
  const h2 = http2 === true ? {} : http2;
  const options: Http2ServerOptions = {
    settings: {
      maxConcurrentStreams: h2.maxConcurrentStreams ?? DEFAULT_MAX_CONCURRENT_STREAMS,
      maxHeaderListSize: limits.maxHeaderSize,
    },
    ...(h2.maxSessionMemory === undefined ? {} : { maxSessionMemory: h2.maxSessionMemory }),
    ...(h2.maxSessionRejectedStreams === undefined ? {} : { maxSessionRejectedStreams: h2.maxSessionRejectedStreams }),
    ...(h2.maxSessionInvalidFrames === undefined ? {} : { maxSessionInvalidFrames: h2.maxSessionInvalidFrames }),
  };
  // The compatibility API's request and response stand in for IncomingMessage and ServerResponse
  // (Node's http2 documentation, "Compatibility API"); the pipeline reads the HTTP/2 differences
  // through core/context/http-version.ts. HTTP/1.1 requests (allowHTTP1) come to the same listener.
  const listener = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse): void => {
    if (req.httpVersionMajor === 2) {
      const h2req = req as Http2ServerRequest;
      // RFC 9113 §8.3.1: `:authority` replaces Host; the pipeline's base URI and Location read Host.
      const authority = h2req.headers[':authority'];
      if (typeof authority === 'string') h2req.headers.host = authority;
      handlers.http2(h2req as unknown as IncomingMessage, res as unknown as ServerResponse);
    } else handlers.http1(req as IncomingMessage, res as ServerResponse);
  };
  let server: Http2SecureServer | Http2Server;
  let kind: 'h2' | 'h2c';
  if (tls !== undefined) {
    const secure: SecureServerOptions = { ...tls, ...options, allowHTTP1: true, ALPNProtocols: ['h2', 'http/1.1'] };
    server = builtin('node:http2').createSecureServer(secure, listener);
    kind = 'h2';
    // The HTTP/1.1 fallback runs Node's HTTP/1.1 connection code, which reads these from the server.
    Object.assign(server, {
      maxHeaderSize: limits.maxHeaderSize,
      headersTimeout: limits.headersTimeout,
      requestTimeout: limits.requestTimeout,
      keepAliveTimeout: limits.keepAliveTimeout,
      maxRequestsPerSocket: limits.maxRequestsPerSocket === 0 ? null : limits.maxRequestsPerSocket,
    });
    connections.track(server, 'secureConnection');
  } else {
    server = builtin('node:http2').createServer(options, listener);
    kind = 'h2c';
    connections.track(server, 'connection');
  }
  server.setTimeout(limits.sendTimeout);
  const perSession = limits.maxRequestsPerSocket;
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    if (perSession > 0) goAwayAfter(session, perSession);
  });
  return { kind, server, sessions, connections };
}

/** After `max` streams, GOAWAY: the open ones finish, the client opens a new connection for more. */
function goAwayAfter(session: ServerHttp2Session, max: number): void {
  let streams = 0;
  session.on('stream', () => {
    if (++streams === max) session.close();
  });
}

/**
 * The HTTP/2 half of a graceful close: GOAWAY on every session (`session.close()`: the streams
 * already open finish, new ones are refused, RFC 9113 §6.8), and the HTTP/1.1 connections of the
 * same port closed the lingering way once nothing is in flight.
 */
export function goAwayAll(transport: Transport): void {
  for (const session of transport.sessions) if (!session.closed) session.close();
}

/** Closes the HTTP/1.1 fallback connections that have nothing left to write (no response under way). */
export function closeQuietHttp1(transport: Transport): void {
  for (const socket of transport.connections.open()) {
    if ((socket as TLSSocket).alpnProtocol === 'h2' || transport.kind === 'h2c') continue;
    if (socket.writableLength === 0) closeLingering(socket);
  }
}

/** At the close deadline: every connection is cut (streams still open are reset with it). */
export function cutAll(transport: Transport): number {
  const open = transport.connections.open();
  const cut = open.size;
  for (const session of transport.sessions) session.destroy();
  for (const socket of open) socket.destroy();
  return cut;
}
