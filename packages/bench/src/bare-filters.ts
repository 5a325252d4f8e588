/**
 * Bare `node:http` plus, written inline, the work of one request filter (refuse a request
 * carrying a header, remember the start time) and one response filter (add `x-response-time`).
 * This is the floor for what the pipeline with two filters can cost.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce, elapsed, exitOnSignal, parseId, portFromEnv, REJECT_HEADER, TIME_HEADER, userOf } from './common.js';

const NOT_FOUND = '{"error":"Not Found"}';
const FORBIDDEN = '{"error":"Forbidden"}';

function send(res: ServerResponse, status: number, body: string, start: number): void {
  // The "response filter": one more header, computed just before the single writeHead.
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    [TIME_HEADER]: elapsed(start),
  });
  res.end(body);
}

function handler(req: IncomingMessage, res: ServerResponse): void {
  // The "request filter".
  const start = performance.now();
  if (req.headers[REJECT_HEADER] !== undefined) {
    send(res, 403, FORBIDDEN, start);
    return;
  }
  const id = req.method === 'GET' ? parseId(req.url) : undefined;
  if (id === undefined) {
    send(res, 404, NOT_FOUND, start);
    return;
  }
  send(res, 200, JSON.stringify(userOf(id)), start);
}

const server = createServer(handler);
server.listen(portFromEnv(), '127.0.0.1', () => announce((server.address() as AddressInfo).port));
exitOnSignal(() => server.close());
