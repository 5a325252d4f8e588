/**
 * Baseline: bare `node:http`, the route parsed by hand, one writeHead + one end.
 * Every other server is measured as a ratio of this one.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce, exitOnSignal, parseId, portFromEnv, userOf } from './common.js';

const NOT_FOUND = '{"error":"Not Found"}';

/** Sends `body` as JSON with Content-Length, headers and body in one write. */
function sendJson(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

function handler(req: IncomingMessage, res: ServerResponse): void {
  const id = req.method === 'GET' ? parseId(req.url) : undefined;
  if (id === undefined) {
    sendJson(res, 404, NOT_FOUND);
    return;
  }
  sendJson(res, 200, JSON.stringify(userOf(id)));
}

const server = createServer(handler);
server.listen(portFromEnv(), '127.0.0.1', () => announce((server.address() as AddressInfo).port));
exitOnSignal(() => server.close());
