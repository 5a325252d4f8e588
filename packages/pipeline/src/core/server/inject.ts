import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Readable, Writable } from 'node:stream';
import { noBodyStatus } from '../stages/send.js';

/** A request for {@link injectRequest}: no socket, the whole pipeline. */
export interface InjectRequest {
  method?: string;
  /** Origin-form target, e.g. `/api/users?page=0`. */
  url: string;
  headers?: Record<string, string | string[]>;
  /** A string or bytes are sent as is; any other value is sent as JSON (with its Content-Type). */
  body?: string | Uint8Array | Readable | object;
  remoteAddress?: string;
}

/** What came back. */
export interface InjectResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text(): string;
  json<T = unknown>(): T;
  /** The server aborted the connection (e.g. an error after the first byte). */
  aborted: boolean;
}

class FakeResponse extends Writable {
  statusCode = 200;
  headersSent = false;
  sentHeaders: Record<string, string | string[] | undefined> = {};
  readonly chunks: Buffer[] = [];
  aborted = false;
  shouldKeepAlive = true;
  /**
   * Like Node's `ServerResponse`, which never sends body bytes for HEAD or a 1xx/204/304 status
   * (whatever is written): a HEAD that fails before matching (a 404, a pre-matching abort) goes
   * through no code of the pipeline that knows it is a HEAD.
   */
  private hasBody: boolean;

  constructor(method: string) {
    super();
    this.hasBody = method !== 'HEAD';
  }

  writeHead(status: number, headers?: Record<string, string | number | string[]>): this {
    if (this.headersSent) throw new Error('ERR_HTTP_HEADERS_SENT');
    this.statusCode = status;
    if (noBodyStatus(status)) this.hasBody = false;
    for (const k in headers) {
      const v = headers[k]!;
      this.sentHeaders[k.toLowerCase()] = Array.isArray(v) ? v.map(String) : String(v);
    }
    this.headersSent = true;
    return this;
  }
  setHeader(name: string, value: string | number | string[]): this {
    this.sentHeaders[name.toLowerCase()] = Array.isArray(value) ? value : String(value);
    return this;
  }
  getHeader(name: string): string | string[] | undefined {
    return this.sentHeaders[name.toLowerCase()];
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    if (!this.headersSent) this.writeHead(this.statusCode);
    if (this.hasBody) this.chunks.push(Buffer.from(chunk));
    cb();
  }
  override _destroy(err: Error | null, cb: (e?: Error | null) => void): void {
    this.aborted = true;
    cb(err);
  }
}

/**
 * A Readable standing in for `IncomingMessage`, framed as a client would send `request`: header
 * names in lower case, bytes with a Content-Length (unless given), a stream without one chunked,
 * any other value as JSON. A stream body is wrapped and read on demand (its errors included), so
 * the caller's own stream never gets request fields written onto it.
 */
export function fakeRequest(request: Omit<InjectRequest, 'url'> & { url?: string }): IncomingMessage {
  const headers: IncomingHttpHeaders = {};
  for (const [k, v] of Object.entries(request.headers ?? {})) headers[k.toLowerCase()] = v;
  let payload: Readable;
  const b = request.body;
  if (b === undefined) payload = Readable.from([]);
  else if (b instanceof Readable) {
    // Read on demand (nothing is pulled before the pipeline reads), errors included.
    payload = Readable.from(b, { objectMode: false });
    if (headers['content-length'] === undefined) headers['transfer-encoding'] = 'chunked';
  } else {
    let bytes: Buffer;
    if (typeof b === 'string') bytes = Buffer.from(b);
    else if (b instanceof Uint8Array) bytes = Buffer.from(b);
    else {
      bytes = Buffer.from(JSON.stringify(b));
      headers['content-type'] ??= 'application/json';
    }
    if (headers['content-length'] === undefined) headers['content-length'] = String(bytes.byteLength);
    payload = Readable.from(bytes.byteLength === 0 ? [] : [bytes]);
  }
  return Object.assign(payload, {
    method: (request.method ?? 'GET').toUpperCase(),
    url: request.url ?? '/',
    headers,
    httpVersion: '1.1',
    socket: { remoteAddress: request.remoteAddress ?? '127.0.0.1', encrypted: false },
  }) as unknown as IncomingMessage;
}

/**
 * Runs one request through a `(req, res)` handler in-process: a Readable stands in for
 * `IncomingMessage` and a Writable for `ServerResponse`, so every stage, stream and interceptor
 * runs exactly as over a socket.
 */
export function injectRequest(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  request: InjectRequest,
): Promise<InjectResponse> {
  const req = fakeRequest(request);
  const res = new FakeResponse(req.method!);
  return new Promise<InjectResponse>((resolve) => {
    let settled = false;
    const done = (): void => {
      if (settled) return;
      settled = true;
      const body = Buffer.concat(res.chunks);
      resolve({
        status: res.statusCode,
        headers: res.sentHeaders,
        body,
        aborted: res.aborted,
        text: () => body.toString('utf8'),
        json: <T>() => JSON.parse(body.toString('utf8')) as T,
      });
    };
    res.on('finish', done);
    res.on('close', done);
    res.on('error', () => undefined);
    handler(req, res as unknown as ServerResponse);
  });
}
