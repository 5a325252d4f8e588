/**
 * Bare `node:http` plus, written inline, the work of one request filter (refuse a request
 * carrying a header, leave a value for the response filter) and one response filter (send that
 * value as a header); what the work is depends on `BENCH_FILTERS` (common.ts).
 * This is the floor for what the pipeline with two filters can cost.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  announce,
  exitOnSignal,
  FILTER_HEADER,
  filterHeaderValue,
  parseId,
  portFromEnv,
  refused,
  sendsFilterHeader,
  stamp,
  userOf,
} from './common.js';

const NOT_FOUND = '{"error":"Not Found"}';
const FORBIDDEN = '{"error":"Forbidden"}';

function send(res: ServerResponse, status: number, body: string, value: number | string): void {
  // The "response filter": one more header (per the workload), just before the single writeHead.
  if (sendsFilterHeader(status)) {
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      [FILTER_HEADER]: filterHeaderValue(value),
    });
  } else {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  }
  res.end(body);
}

function handler(req: IncomingMessage, res: ServerResponse): void {
  // The "request filter".
  const value = stamp();
  if (refused(req.url ?? '', (name) => req.headers[name])) {
    send(res, 403, FORBIDDEN, value);
    return;
  }
  const id = req.method === 'GET' ? parseId(req.url) : undefined;
  if (id === undefined) {
    send(res, 404, NOT_FOUND, value);
    return;
  }
  send(res, 200, JSON.stringify(userOf(id)), value);
}

const server = createServer(handler);
server.listen(portFromEnv(), '127.0.0.1', () => announce((server.address() as AddressInfo).port));
exitOnSignal(() => server.close());
