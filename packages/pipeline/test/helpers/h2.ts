/**
 * The transports `listen()` offers (HTTP/1.1, HTTP/1.1 over TLS, HTTP/2 over TLS, h2c), each with
 * a client over a real loopback socket, so that one set of tests runs on all of them: HTTP/1.1
 * through `node:http`/`node:https` (one kept-alive connection), HTTP/2 through `node:http2` (one
 * session, many streams).
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { Agent, request as http1Request, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders as H2Headers } from 'node:http2';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Application, ListenOptions } from '../../src/index.js';

const tlsDir = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/tls');
/** The test certificate (self-signed: it is its own CA) and key, see test/fixtures/tls/README.md. */
export const TEST_TLS = {
  cert: readFileSync(join(tlsDir, 'cert.pem')),
  key: readFileSync(join(tlsDir, 'key.pem')),
  otherKey: readFileSync(join(tlsDir, 'other-key.pem')),
  certFile: join(tlsDir, 'cert.pem'),
};

export const PROTOCOLS = ['http1', 'https', 'h2 TLS', 'h2c'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** The `listen()` options of each protocol. */
export function listenOptions(protocol: Protocol): ListenOptions {
  if (protocol === 'h2 TLS') return { tls: { key: TEST_TLS.key, cert: TEST_TLS.cert }, http2: true };
  if (protocol === 'h2c') return { http2: true };
  if (protocol === 'https') return { tls: { key: TEST_TLS.key, cert: TEST_TLS.cert } };
  return {};
}

export interface WireRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** Sent with Content-Length unless `chunked` (HTTP/1.1: Transfer-Encoding: chunked; HTTP/2: DATA frames without a length). */
  body?: string | Buffer;
  chunked?: boolean;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

/** A client of one connection (HTTP/1.1: one kept-alive socket; HTTP/2: one session). */
export interface WireClient {
  readonly protocol: Protocol;
  readonly origin: string;
  send(req: WireRequest): Promise<WireResponse>;
  /** HTTP/2 only: the session (for raw stream tests). */
  readonly session: ClientHttp2Session | undefined;
  close(): void;
}

/** Starts `app` for `protocol` and connects a client to it. */
export async function serve(app: Application, protocol: Protocol): Promise<WireClient> {
  const { port } = await app.listen(0, '127.0.0.1', listenOptions(protocol));
  return connectClient(protocol, port);
}

export async function connectClient(protocol: Protocol, port: number): Promise<WireClient> {
  if (protocol === 'http1' || protocol === 'https') {
    const secure = protocol === 'https';
    const agent = secure
      ? new HttpsAgent({ keepAlive: true, maxSockets: 1, ca: TEST_TLS.cert })
      : new Agent({ keepAlive: true, maxSockets: 1 });
    const origin = `${secure ? 'https' : 'http'}://127.0.0.1:${port}`;
    return {
      protocol,
      origin,
      session: undefined,
      send: (req) => sendHttp1(secure ? httpsRequest : http1Request, agent, port, req),
      close: () => agent.destroy(),
    };
  }
  const tls = protocol === 'h2 TLS';
  const origin = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const session = connect(origin, tls ? { ca: TEST_TLS.cert } : {});
  session.on('error', () => undefined);
  // Connected, and the server's SETTINGS applied (its limits hold from here on).
  await Promise.all([once(session, 'connect'), once(session, 'remoteSettings')]);
  return { protocol, origin, session, send: (req) => sendHttp2(session, req), close: () => session.destroy() };
}

function sendHttp1(request: typeof http1Request, agent: Agent, port: number, req: WireRequest): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined && req.chunked !== true) headers['content-length'] = String(Buffer.byteLength(req.body));
    const r = request({ host: '127.0.0.1', port, method: req.method ?? 'GET', path: req.path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(response(res.statusCode ?? 0, res.headers, Buffer.concat(chunks))));
      res.on('error', reject);
    });
    r.on('error', reject);
    if (req.body !== undefined) r.write(req.body);
    r.end();
  });
}

/** Opens a stream for `req` without reading it (raw tests); the body, if any, is written and ended. */
export function openStream(session: ClientHttp2Session, req: WireRequest): ClientHttp2Stream {
  const headers: Record<string, string> = { ':method': req.method ?? 'GET', ':path': req.path, ...req.headers };
  if (req.body !== undefined && req.chunked !== true) headers['content-length'] = String(Buffer.byteLength(req.body));
  const stream = session.request(headers, { endStream: req.body === undefined });
  if (req.body !== undefined) stream.end(req.body);
  return stream;
}

export function sendHttp2(session: ClientHttp2Session, req: WireRequest): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    const stream = openStream(session, req);
    let status = 0;
    let headers: H2Headers = {};
    const chunks: Buffer[] = [];
    stream.on('response', (h) => {
      headers = h;
      status = Number(h[':status']);
    });
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(response(status, headers, Buffer.concat(chunks))));
    stream.on('error', reject);
  });
}

function response(status: number, headers: IncomingHttpHeaders | H2Headers, body: Buffer): WireResponse {
  const out: Record<string, string | string[] | undefined> = {};
  for (const [k, v] of Object.entries(headers)) if (!k.startsWith(':')) out[k] = v as string | string[] | undefined;
  const text = body.toString('utf8');
  return { status, headers: out, body, text, json: <T>() => JSON.parse(text) as T };
}
