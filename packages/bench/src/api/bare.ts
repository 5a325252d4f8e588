/**
 * The write-path workloads on bare `node:http` (see model.ts): routing, body reading with a size
 * limit, JSON parsing and the checks written by hand, one `writeHead` + one `end` per answer.
 * The baseline (`bare`) of `BENCH_WORKLOAD` runs.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce, exitOnSignal, portFromEnv } from '../common.js';
import {
  AGE,
  createUser,
  etagOf,
  FIRST_NAME,
  isEmail,
  LAST_NAME,
  listedUser,
  listUsers,
  locationOf,
  MESSAGES,
  violationBody,
  type UserInput,
  type Violation,
} from './model.js';

/** Largest accepted body, as the pipeline's default JSON limit. */
const MAX_BODY = 1024 * 1024;
const JSON_TYPE = 'application/json; charset=utf-8';

function send(res: ServerResponse, status: number, body: string, location?: string): void {
  const headers: Record<string, string | number> = { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body) };
  if (location !== undefined) headers.location = location;
  res.writeHead(status, headers);
  res.end(body);
}

function error(res: ServerResponse, status: number, reason: string): void {
  send(res, status, JSON.stringify({ status, error: reason }));
}

/** Collects the body up to {@link MAX_BODY} bytes, then calls `done` with it (or answers 413). */
function readBody(req: IncomingMessage, res: ServerResponse, done: (text: string) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (c: Buffer) => {
    size += c.length;
    if (size > MAX_BODY) {
      error(res, 413, 'Payload Too Large');
      req.destroy();
      return;
    }
    chunks.push(c);
  });
  req.on('end', () => {
    if (size <= MAX_BODY) done(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'));
  });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own property only: a `__proto__` or `toString` in the prototype never stands in for a field. */
function field(o: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

function checkName(out: Violation[], key: string, v: unknown, min: number, max: number, message: string, blank: boolean): void {
  if (v === undefined || v === null) out.push({ field: `body.${key}`, message: MESSAGES.required });
  else if (typeof v !== 'string') out.push({ field: `body.${key}`, message: MESSAGES.string });
  else {
    if (blank && v.trim() === '') out.push({ field: `body.${key}`, message: MESSAGES.blank });
    if (v.length < min || v.length > max) out.push({ field: `body.${key}`, message });
  }
}

/** Every violation of `body`, in declaration order (empty: valid). */
export function validate(body: unknown): Violation[] {
  const out: Violation[] = [];
  if (!isRecord(body)) return [{ field: 'body', message: 'must be an object' }];
  const email = field(body, 'email');
  if (email === undefined || email === null) out.push({ field: 'body.email', message: MESSAGES.required });
  else if (typeof email !== 'string') out.push({ field: 'body.email', message: MESSAGES.string });
  else if (!isEmail(email)) out.push({ field: 'body.email', message: MESSAGES.email });
  checkName(out, 'firstName', field(body, 'firstName'), FIRST_NAME.min, FIRST_NAME.max, MESSAGES.firstName, false);
  checkName(out, 'lastName', field(body, 'lastName'), LAST_NAME.min, LAST_NAME.max, MESSAGES.lastName, true);
  const age = field(body, 'age');
  if (age === undefined || age === null) out.push({ field: 'body.age', message: MESSAGES.required });
  else if (typeof age !== 'number' || !Number.isSafeInteger(age)) out.push({ field: 'body.age', message: MESSAGES.integer });
  else if (age < AGE.min || age > AGE.max) out.push({ field: 'body.age', message: MESSAGES.age });
  return out;
}

function parse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function create(req: IncomingMessage, res: ServerResponse, checked: boolean): void {
  if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
    error(res, 415, 'Unsupported Media Type');
    return;
  }
  readBody(req, res, (text) => {
    const parsed = parse(text);
    if (!parsed.ok) {
      error(res, 400, 'Bad Request');
      return;
    }
    if (checked) {
      const violations = validate(parsed.value);
      if (violations.length > 0) {
        send(res, 400, JSON.stringify(violationBody(violations)));
        return;
      }
    } else if (!isRecord(parsed.value)) {
      error(res, 400, 'Bad Request');
      return;
    }
    const user = createUser(parsed.value as UserInput);
    send(res, 201, JSON.stringify(user), locationOf(req.headers.host, user.id));
  });
}

const USER_PREFIX = '/api/users/';

function getUser(req: IncomingMessage, res: ServerResponse, raw: string): void {
  const id = Number(raw);
  if (raw === '' || !Number.isSafeInteger(id) || id < 1) {
    error(res, 404, 'Not Found');
    return;
  }
  const tag = etagOf(id);
  const inm = req.headers['if-none-match'];
  // If-None-Match compares weakly (RFC 9110 §13.1.2); the bench sends exactly the tag.
  if (inm !== undefined && (inm === tag || inm === `W/${tag}` || inm === '*')) {
    res.writeHead(304, { etag: tag });
    res.end();
    return;
  }
  const body = JSON.stringify(listedUser(id));
  res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body), etag: tag });
  res.end(body);
}

function handler(req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (req.method === 'POST' && path === '/api/users') create(req, res, true);
  else if (req.method === 'POST' && path === '/api/users/unchecked') create(req, res, false);
  else if (req.method === 'GET' && path === '/api/users') send(res, 200, JSON.stringify(listUsers()));
  else if (req.method === 'GET' && path.startsWith(USER_PREFIX) && !path.includes('/', USER_PREFIX.length))
    getUser(req, res, path.slice(USER_PREFIX.length));
  else error(res, 404, 'Not Found');
}

const server = createServer(handler);
server.listen(portFromEnv(), '127.0.0.1', () => announce((server.address() as AddressInfo).port));
exitOnSignal(() => server.close());
