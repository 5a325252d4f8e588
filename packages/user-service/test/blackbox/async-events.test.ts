/**
 * Black-box tests of a job's progress as server-sent events, `GET /api/async/users/jobs/{id}/events`
 * and its deprecated first path `GET /api/async/users/{jobId}/events` (the same stream), WHATWG
 * HTML §9.2, over a real socket: the events up to the end of the job, resuming with
 * `Last-Event-ID` (every missed event replayed), 204 once a client has seen the end (an
 * EventSource stops reconnecting), 404 and 406. The replay across a cut connection with an
 * EventSource client is in test/unit/job-events-replay.test.ts.
 */
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agent, http, removeDir, startServer, type RunningServer } from '../helpers/server.js';

interface Progress {
  id: number;
  status: 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED';
  total: number;
  processed: number;
  created: number;
  failed: number;
}

interface SseEvent {
  id: string;
  event: string;
  data: Progress;
}

/** An open event stream: its status, headers, and its events as they arrive. */
interface Stream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Every event, in order, until the server ends the stream (or `stopAfter` says stop). */
  events: AsyncGenerator<SseEvent>;
  close(): void;
}

/**
 * Streams get their own pool: a stream is legitimately silent while its job waits behind another
 * (on etcd a 300-item job takes seconds), and the shared agent's 10 s body timeout would cut it.
 */
const streams = new Agent({ keepAliveTimeout: 2000, headersTimeout: 10_000, bodyTimeout: 60_000 });

/** Opens `path` as an event stream (undici undoes the chunked framing; the events are parsed here). */
async function openStream(server: RunningServer, path: string, headers: Record<string, string> = {}): Promise<Stream> {
  const controller = new AbortController();
  const res = await request(`${server.url}${path}`, {
    headers: { accept: 'text/event-stream', ...headers },
    dispatcher: streams,
    signal: controller.signal,
  });
  async function* events(): AsyncGenerator<SseEvent> {
    let text = '';
    for await (const chunk of res.body) {
      text += (chunk as Buffer).toString('utf8');
      for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        const fields: Record<string, string> = {};
        for (const line of block.split('\n')) {
          const colon = line.indexOf(':');
          if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
        }
        if (fields.data !== undefined) yield { id: fields.id!, event: fields.event!, data: JSON.parse(fields.data) as Progress };
      }
    }
  }
  return {
    status: res.statusCode,
    headers: res.headers as Stream['headers'],
    events: events(),
    close: () => controller.abort(),
  };
}

/** Every event of a stream until the server ends it (bounded by the job's size). */
async function allEvents(stream: Stream, max = 2000): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const e of stream.events) {
    out.push(e);
    if (out.length > max) throw new Error('the stream did not end');
  }
  return out;
}

const users = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ email: `${tag}-${i}@events.example`, firstName: 'Eve', lastName: 'Ents' }));

async function submit(server: RunningServer, body: unknown[]): Promise<number> {
  const r = await http(server.url, 'POST', '/api/async/users', { body });
  expect(r.status).toBe(202);
  return r.json<{ id: number }>().id;
}

/**
 * Submits to the instance the streams read from (`server.url`): under BLACKBOX_STORE=etcd, where
 * {@link http} alternates between two instances, the job then runs where it is streamed from, one
 * event per item (another instance reports it at its progress commits only).
 */
async function submitHere(server: RunningServer, body: unknown[]): Promise<number> {
  const r = await request(`${server.url}/api/async/users`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    dispatcher: agent,
  });
  expect(r.statusCode).toBe(202);
  return ((await r.body.json()) as { id: number }).id;
}

describe('job progress as server-sent events (black box)', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    expect(await server.stop('SIGTERM')).toBe(0);
    removeDir(server.dataDir);
    await streams.close();
  });

  const eventsPath = (id: number) => `/api/async/users/jobs/${id}/events`;
  const legacyPath = (id: number) => `/api/async/users/${id}/events`;

  it.each([
    ['jobs/{id}/events', eventsPath],
    ['{jobId}/events (deprecated)', legacyPath],
  ])('%s streams the job from its current state to COMPLETED, with growing ids, then ends the stream', async (_, path) => {
    const id = await submit(server, users(`stream-${path === eventsPath ? 'new' : 'old'}`, 3));
    const stream = await openStream(server, path(id));
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers['cache-control']).toBe('no-cache');
    expect(stream.headers['content-length']).toBeUndefined();
    const events = await allEvents(stream);
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expect(e).toMatchObject({ event: 'progress', data: { id, total: 3 } });
    const ids = events.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(events.at(-1)).toMatchObject({ id: '5', data: { status: 'COMPLETED', processed: 3, created: 3, failed: 0 } });
  });

  it('resumes after Last-Event-ID: a client gets every event after the one it names, one that saw the end gets 204', async () => {
    // Queued behind a longer job, this one is still PENDING when the stream opens: it has events to
    // miss (300 items: long enough on the journal, seconds rather than tens of seconds on etcd).
    await submitHere(server, users('resume-before', 300));
    const id = await submitHere(server, users('resume', 2));
    const first = await allEvents(await openStream(server, eventsPath(id)));
    expect(first.length).toBeGreaterThan(1);
    const end = first.at(-1)!;
    expect(end.data.status).toBe('COMPLETED');

    for (const [k, seen] of first.slice(0, -1).entries()) {
      for (const path of [eventsPath(id), legacyPath(id)]) {
        const missed = await allEvents(await openStream(server, path, { 'last-event-id': seen.id }));
        expect(missed).toEqual(first.slice(k + 1));
      }
    }

    for (const path of [eventsPath(id), legacyPath(id)]) {
      const done = await http(server.url, 'GET', path, { headers: { accept: 'text/event-stream', 'last-event-id': end.id } });
      expect(done.status).toBe(204);
    }
  });

  it('a client that reconnects while the job runs gets every progress event after the last it saw', async () => {
    const id = await submitHere(server, users('live', 1000));
    const stream = await openStream(server, eventsPath(id));
    let last: SseEvent | undefined;
    for await (const e of stream.events) {
      last = e;
      if (e.data.status === 'RUNNING' || e.data.status === 'COMPLETED') break;
    }
    stream.close();
    expect(last).toBeDefined();
    const rest = await allEvents(await openStream(server, eventsPath(id), { 'last-event-id': last!.id }));
    expect(rest.length).toBeGreaterThan(0);
    // One event per item on the instance running the job, each kept by its log: none skipped, none twice.
    const from = Number(last!.id) + 1;
    expect(rest.map((e) => Number(e.id))).toEqual(Array.from({ length: 1003 - from }, (_, i) => from + i));
    expect(rest.at(-1)).toMatchObject({ id: '1002', data: { status: 'COMPLETED', processed: 1000, created: 1000 } });
  });

  it('answers 404 for an unknown job and 406 to a client that does not take event streams, on both paths', async () => {
    const id = await submit(server, []);
    for (const path of [eventsPath, legacyPath]) {
      const unknown = await http(server.url, 'GET', path(999999), { headers: { accept: 'text/event-stream' } });
      expect(unknown.status).toBe(404);
      expect(unknown.json()).toMatchObject({ status: 404, message: 'Job not found' });
      const json = await http(server.url, 'GET', path(id), { headers: { accept: 'application/json' } });
      expect(json.status).toBe(406);
    }
    // The literal `jobs` is not a job id on the deprecated path either.
    const literal = await http(server.url, 'GET', '/api/async/users/jobs/events', { headers: { accept: 'text/event-stream' } });
    expect(literal.status).toBe(404);
  });

  it('the OpenAPI document lists the stream at its path and marks the first path deprecated', async () => {
    const doc = (await http(server.url, 'GET', '/openapi.json')).json<{ paths: Record<string, { get: Record<string, unknown> }> }>();
    const current = doc.paths['/api/async/users/jobs/{id}/events']!.get;
    const legacy = doc.paths['/api/async/users/{jobId}/events']!.get;
    expect(current.deprecated).toBeUndefined();
    expect(legacy.deprecated).toBe(true);
    expect(Object.keys(legacy.responses as object)).toEqual(Object.keys(current.responses as object));
  });
});
