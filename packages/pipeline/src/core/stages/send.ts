/**
 * The last step of every response: headers and body on the wire, then the request's
 * exactly-once accounting (`rt.finish`).
 */
// An imported binding, not the global: in optimized code a global `Buffer` was an IC call per response.
import { Buffer } from 'node:buffer';
import { pipeline, Readable } from 'node:stream';
import type { Exchange } from '../internal/exchange.js';
import { lingerOnClose } from './linger.js';
import { sendRangeable } from './send-ranges.js';
import { RangeableBody } from '../ranges/rangeable-body.js';
import { dropConnectionHeaders, endHttp2RequestAfterResponse, http2Date, isHttp2 } from '../context/http-version.js';
import type { Body } from '../context/contracts.js';
import type { Response } from '../http/response.js';
import type { Step } from '../util/thenable.js';

/** Statuses that never carry a body (RFC 9110 §6.4.1); Node's ServerResponse drops one written anyway. */
export function noBodyStatus(status: number): boolean {
  return status === 204 || status === 304 || (status >= 100 && status < 200);
}

/** Puts the response on the wire: one writeHead + one end for bytes, a pipe with backpressure for streams. */
export function send(ex: Exchange, response: Response, body: Body | undefined): Step {
  const headers = response.headers;
  if (isHttp2(ex.raw)) {
    // Connection management is HTTP/1.1's (RFC 9113 §8.2.2): on HTTP/2 an unread body ends only
    // its stream, and close() says GOAWAY on the session instead of `Connection: close`.
    dropConnectionHeaders(headers);
    if (headers.date === undefined) headers.date = http2Date();
    if (unreadBody(ex)) endHttp2RequestAfterResponse(ex.raw, ex.rawResponse);
  } else if (unreadBody(ex)) {
    headers.connection = 'close';
    lingerOnClose(ex.raw);
  } else if (ex.rt.state.closing) headers.connection = 'close';
  if (ex.trace !== undefined) headers['x-pipeline-trace'] = ex.trace.join(', ');
  return sendBody(ex, response, body);
}

/** The body part of {@link send}, past the `connection` and trace headers (also the continuation of send-ranges.ts). */
function sendBody(ex: Exchange, response: Response, body: Body | undefined): Step {
  const res = ex.rawResponse;
  const headers = response.headers;
  const status = response.status;
  const noBody = noBodyStatus(status);
  if (body === undefined || noBody) {
    if (body instanceof Readable) body.destroy();
    if (status === 304) dropBodyHeaders(headers);
    else if (!noBody && headers['content-length'] === undefined) headers['content-length'] = 0;
    res.writeHead(status, headers);
    res.end();
    ex.bytesOut = 0;
    ex.rt.finish(ex, status);
    return;
  }
  if (typeof body === 'string' || body instanceof Uint8Array) {
    const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    headers['content-length'] = length;
    res.writeHead(status, headers);
    if (ex.isHead) res.end();
    else res.end(body);
    ex.bytesOut = ex.isHead ? 0 : length;
    ex.rt.finish(ex, status);
    return;
  }
  // Only a stream body can be a rangeable entity's: the byte and string paths above pay nothing for ranges.
  if (body instanceof RangeableBody) return sendRangeable(ex, response, body, sendBody);
  return sendStream(ex, response, body);
}

/**
 * A 304 stands for a representation it does not carry (RFC 9110 §15.4.5): the headers that describe
 * the body bytes go; Cache-Control, Content-Location, Date, ETag, Expires, Vary and Last-Modified stay.
 */
function dropBodyHeaders(headers: Response['headers']): void {
  delete headers['content-length'];
  delete headers['content-type'];
  delete headers['content-encoding'];
}

/**
 * A request body left unread (an early 413/415, an abort, a method that ignored it): close the
 * connection after this response instead of letting Node read and discard the rest (RFC 9112 §9.6).
 */
function unreadBody(ex: Exchange): boolean {
  return ex.raw.complete === false && ex.hasEntity();
}

/** The rest of {@link send} for a stream body (`connection` and trace headers already set). */
function sendStream(ex: Exchange, response: Response, body: Readable): Step {
  const res = ex.rawResponse;
  if (res.destroyed) {
    // The client went away before the first byte (Node 24 refuses to pipe into a destroyed stream).
    body.destroy();
    ex.rt.finish(ex, response.status);
    return;
  }
  res.writeHead(response.status, response.headers);
  if (ex.isHead) {
    body.destroy();
    res.end();
    ex.bytesOut = 0;
    ex.rt.finish(ex, response.status);
    return;
  }
  if (ex.ends !== undefined) countBytesOut(ex, body);
  return new Promise<void>((resolve) => {
    // pipeline() destroys the source when the client goes away, so producers stop (backpressure too).
    pipeline(body, res, (err) => {
      if (err !== undefined && err !== null) {
        if (!res.destroyed) res.destroy(err);
        // The client went away: not a failure of the application (Node 24 reports a pipe into an
        // already destroyed response as ERR_STREAM_UNABLE_TO_PIPE, earlier versions as a premature close).
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ERR_STREAM_PREMATURE_CLOSE' && code !== 'ERR_STREAM_UNABLE_TO_PIPE') ex.rt.logError(err, ex);
      }
      ex.rt.finish(ex, response.status);
      resolve();
    });
  });
}

/** Counts a streamed body's bytes for the request listeners (only when there are some). */
function countBytesOut(ex: Exchange, body: Readable): void {
  ex.bytesOut = 0;
  body.on('data', (chunk: unknown) => {
    if (typeof chunk === 'string') ex.bytesOut += Buffer.byteLength(chunk);
    else if (chunk instanceof Uint8Array) ex.bytesOut += chunk.byteLength;
  });
}
