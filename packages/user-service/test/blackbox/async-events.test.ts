/**
 * Black-box tests of a job's progress as server-sent events, `GET /api/async/users/{jobId}/events`
 * (WHATWG HTML §9.2), over a real socket: the events up to the end of the job, resuming with
 * `Last-Event-ID`, 204 once a client has seen the end (an EventSource stops reconnecting), 404 and
 * 406.
 */
import { request } from 'undici';
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

/** Opens `path` as an event stream (undici undoes the chunked framing; the events are parsed here). */
async function openStream(server: RunningServer, path: string, headers: Record<string, string> = {}): Promise<Stream> {
  const controller = new AbortController();
  const res = await request(`${server.url}${path}`, {
    headers: { accept: 'text/event-stream', ...headers },
    dispatcher: agent,
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

describe('job progress as server-sent events (black box)', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    expect(await server.stop('SIGTERM')).toBe(0);
    removeDir(server.dataDir);
  });

  it('streams the job from its current state to COMPLETED, with growing ids, then ends the stream', async () => {
    const id = await submit(server, users('stream', 3));
    const stream = await openStream(server, `/api/async/users/${id}/events`);
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

  it('resumes after Last-Event-ID: a client that missed the end gets it, one that saw it gets 204', async () => {
    const id = await submit(server, users('resume', 2));
    const first = await allEvents(await openStream(server, `/api/async/users/${id}/events`));
    const end = first.at(-1)!;
    expect(end.data.status).toBe('COMPLETED');

    const missed = await allEvents(await openStream(server, `/api/async/users/${id}/events`, { 'last-event-id': '1' }));
    expect(missed).toEqual([end]);

    const done = await http(server.url, 'GET', `/api/async/users/${id}/events`, {
      headers: { accept: 'text/event-stream', 'last-event-id': end.id },
    });
    expect(done.status).toBe(204);
  });

  it('a client that reconnects while the job runs resumes after the last progress it saw', async () => {
    const id = await submit(server, users('live', 1000));
    const stream = await openStream(server, `/api/async/users/${id}/events`);
    let last: SseEvent | undefined;
    for await (const e of stream.events) {
      last = e;
      if (e.data.status === 'RUNNING' || e.data.status === 'COMPLETED') break;
    }
    stream.close();
    expect(last).toBeDefined();
    const rest = await allEvents(await openStream(server, `/api/async/users/${id}/events`, { 'last-event-id': last!.id }));
    expect(rest.length).toBeGreaterThan(0);
    for (const e of rest) expect(Number(e.id)).toBeGreaterThan(Number(last!.id));
    expect(rest.at(-1)).toMatchObject({ id: '1002', data: { status: 'COMPLETED', processed: 1000, created: 1000 } });
  });

  it('answers 404 for an unknown job and 406 to a client that does not take event streams', async () => {
    const unknown = await http(server.url, 'GET', '/api/async/users/999999/events', { headers: { accept: 'text/event-stream' } });
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toMatchObject({ status: 404, message: 'Job not found' });
    const id = await submit(server, []);
    const json = await http(server.url, 'GET', `/api/async/users/${id}/events`, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(406);
  });
});
