/**
 * What differs for a request that came over HTTP/2. Node hands the pipeline its compatibility
 * objects there (`Http2ServerRequest` / `Http2ServerResponse`, "a similar developer experience of
 * using HTTP/1 when using HTTP/2", Node's http2 documentation), which the pipeline uses as it uses
 * `IncomingMessage` / `ServerResponse`; only framing and connection management differ (RFC 9113
 * §8.1, §8.2.2), and these helpers tell the few places that care.
 */
import type { IncomingMessage } from 'node:http';

/** The part of Node's `Http2ServerRequest` the pipeline reads beyond `IncomingMessage`. */
interface Http2RequestLike {
  readonly stream: {
    readonly endAfterHeaders: boolean;
    readonly rstCode?: number;
    close(code?: number): void;
    readonly destroyed: boolean;
  };
}

/** Whether `req` came over HTTP/2 (Node's compatibility request reports version 2.0). */
export function isHttp2(req: IncomingMessage): boolean {
  return req.httpVersionMajor === 2;
}

/**
 * Whether an HTTP/2 request has a body: the HEADERS frame without END_STREAM announces DATA
 * frames (RFC 9113 §8.1), with or without `Content-Length`.
 */
export function http2HasBody(req: IncomingMessage): boolean {
  return !(req as unknown as Http2RequestLike).stream.endAfterHeaders;
}

/**
 * Ends the request half of an HTTP/2 stream whose response is complete while its body is still
 * arriving: RST_STREAM with NO_ERROR (RFC 9113 §8.1: "a server MAY request that the client abort
 * transmission of a request without error by sending a RST_STREAM with an error code of
 * NO_ERROR after sending a complete response"). Only this stream ends; the connection and its
 * other streams go on (on HTTP/1.1 the connection would have to close instead).
 */
export function endHttp2RequestAfterResponse(req: IncomingMessage, res: { once(event: 'finish', f: () => void): unknown }): void {
  const stream = (req as unknown as Http2RequestLike).stream;
  res.once('finish', () => {
    if (!req.complete && !stream.destroyed) stream.close(0 /* NO_ERROR, RFC 9113 §7 */);
  });
}

/**
 * Whether the response reached its end before the request's connection or stream closed (read in
 * a `close` listener of the response): on HTTP/1.1 Node has flushed it (`writableFinished`); on
 * HTTP/2 Node reports a reset stream as finished too, so it is the end written and no RST_STREAM
 * with an error code (RFC 9113 §8.1: a client that resets its stream has gone away).
 */
export function responseCompleted(
  req: IncomingMessage,
  res: { readonly writableFinished: boolean; readonly writableEnded: boolean },
): boolean {
  if (!isHttp2(req)) return res.writableFinished;
  const code = (req as unknown as Http2RequestLike).stream.rstCode;
  return res.writableEnded && (code === undefined || code === 0);
}

/**
 * Header fields that are connection-specific (RFC 9113 §8.2.2: an endpoint MUST NOT generate them
 * on HTTP/2; Node throws `ERR_HTTP2_INVALID_CONNECTION_HEADERS` or drops them with a warning).
 */
export const CONNECTION_HEADERS: readonly string[] = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade'];

/**
 * Removes the connection-specific fields ({@link CONNECTION_HEADERS}) from a response's headers
 * (HTTP/2 answers only). One named read per field rather than a loop over the names: a single
 * keyed read seeing five names is megamorphic, a stub-cache probe per name on every HTTP/2
 * answer (735 instructions per request under callgrind, docs/benchmarks.md#http2).
 */
export function dropConnectionHeaders(headers: Record<string, unknown>): void {
  if (headers.connection !== undefined) delete headers.connection;
  if (headers['keep-alive'] !== undefined) delete headers['keep-alive'];
  if (headers['proxy-connection'] !== undefined) delete headers['proxy-connection'];
  if (headers['transfer-encoding'] !== undefined) delete headers['transfer-encoding'];
  if (headers.upgrade !== undefined) delete headers.upgrade;
}

let dateText = '';
let dateExpires = 0;

/**
 * The `Date` of an HTTP/2 answer (RFC 9110 §6.6.1, an IMF-fixdate), made once a second. Node's
 * HTTP/2 `respond()` adds one itself when the headers lack it, by a keyed store into the header
 * object it has just made, and V8 (`--log-ic`) records that store as an inline-cache miss on every
 * response, a runtime call of several thousand instructions (docs/benchmarks.md#http2). With the
 * header given, Node skips the store; what goes on the wire is the same.
 */
export function http2Date(): string {
  const now = Date.now();
  if (now >= dateExpires) {
    dateText = new Date(now).toUTCString();
    dateExpires = now - (now % 1000) + 1000;
  }
  return dateText;
}
