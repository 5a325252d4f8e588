/**
 * In-process cost of the pipeline's own code per request (`pnpm --filter @jaxrs-node/bench run micro`):
 * `app.handler` and an equivalent bare handler are called on fake request/response objects (no
 * socket, no HTTP parser, `writeHead`/`end` do nothing), so only the JavaScript of the handler is
 * timed. Steadier than the socket benchmark on a shared machine (it needs one core for a few
 * seconds, not two quiet cores), so use it to compare pipeline changes at the 10 ns level; the
 * socket benchmark remains the judge (in it, the overhead shows up 2-3x larger: caches, kernel).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Application } from '@jaxrs-node/pipeline';
import { FILTER_HEADER, filterHeaderValue, refused, sendsFilterHeader, stamp, userOf } from './common.js';
import { RejectFilter, TimingFilter } from './filters.js';
import { UserResource } from './resource.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Records what the handler sent, nothing else. */
class FakeResponse {
  headersSent = false;
  destroyed = false;
  statusCode = 200;
  headers: unknown = undefined;
  body: unknown = undefined;
  writeHead(status: number, headers: unknown): this {
    this.statusCode = status;
    this.headers = headers;
    this.headersSent = true;
    return this;
  }
  end(body?: unknown): void {
    this.body = body;
  }
}

/** What `bare.ts` does, on the same fakes. */
const bare: Handler = (req, res) => {
  const body = JSON.stringify(userOf(Number(req.url!.slice(11))));
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

/** What `bare-filters.ts` does: the filters' work inline. */
const bareFilters: Handler = (req, res) => {
  const value = stamp();
  if (refused(req.url!, (name) => req.headers[name])) throw new Error('not sent by this measurement');
  const body = JSON.stringify(userOf(Number(req.url!.slice(11))));
  if (sendsFilterHeader(200))
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      [FILTER_HEADER]: filterHeaderValue(value),
    });
  else res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

function request(i: number, accept: string | undefined): IncomingMessage {
  const headers: Record<string, string> = { host: 'localhost:3000' };
  if (accept !== undefined) headers.accept = accept;
  return { url: `/api/users/${i & 1023}`, method: 'GET', headers, socket: {} } as unknown as IncomingMessage;
}

let sink = 0;

/** Nanoseconds per request over `n` requests. */
function time(handler: Handler, n: number, accept: string | undefined): number {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const res = new FakeResponse();
    handler(request(i, accept), res as unknown as ServerResponse);
    sink += (res.body as string).length;
  }
  return Number(process.hrtime.bigint() - t0) / n;
}

function scenario(filters: boolean, accept: string | undefined, n: number, runs: number): string {
  const app = new Application({ resources: [UserResource], providers: filters ? [RejectFilter, TimingFilter] : [] });
  const handler = app.handler;
  const probe = new FakeResponse();
  handler(request(7, accept), probe as unknown as ServerResponse);
  if (probe.statusCode !== 200 || !String(probe.body).includes('"id":7'))
    throw new Error(`pipeline answered ${probe.statusCode} ${String(probe.body)}`);
  const baseline = filters ? bareFilters : bare;
  time(baseline, n, accept);
  time(handler, n, accept);
  // Minimum of alternating runs: another program taking the core only ever adds time.
  let b = Infinity;
  let p = Infinity;
  for (let r = 0; r < runs; r++) {
    b = Math.min(b, time(baseline, n, accept));
    p = Math.min(p, time(handler, n, accept));
  }
  const name = `${filters ? 'two filters (vs bare-filters)' : 'no filters (vs bare)'}, ${accept === undefined ? 'no Accept' : `Accept: ${accept}`}`;
  return `| ${name} | ${b.toFixed(0)} | ${p.toFixed(0)} | ${(p - b).toFixed(0)} |`;
}

const n = Number(process.env.MICRO_N ?? 300_000);
const runs = Number(process.env.MICRO_RUNS ?? 7);
if (!Number.isInteger(n) || n < 1000 || n > 10_000_000 || !Number.isInteger(runs) || runs < 1 || runs > 50) {
  throw new Error('MICRO_N must be in [1000, 1e7] and MICRO_RUNS in [1, 50]');
}
const rows = [
  scenario(false, undefined, n, runs),
  scenario(true, undefined, n, runs),
  scenario(true, 'application/json, text/plain, */*', n, runs),
];
process.stdout.write(`| case | bare ns/req | pipeline ns/req | pipeline's own cost, ns/req |\n|---|---:|---:|---:|\n${rows.join('\n')}\n`);
process.stdout.write(`(node ${process.version}, ${runs} x ${n} requests each, minimum; checksum ${sink % 7})\n`);
