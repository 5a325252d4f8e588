import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type Message } from '../src/25-server-sent-events/app.js';
import { listen, send, type Running } from './helpers/http.js';

interface Event {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
}

/** A listener over a real socket: its events as they arrive (undici undoes the chunked framing). */
async function listener(base: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const res = await request(`${base}/chat`, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const events: Event[] = [];
  let text = '';
  let wake: () => void = () => undefined;
  const ended = (async () => {
    try {
      for await (const chunk of res.body) {
        text += (chunk as Buffer).toString('utf8');
        for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
          const e: Record<string, string> = {};
          for (const line of text.slice(0, end).split('\n')) {
            const colon = line.indexOf(':');
            if (colon > 0) e[line.slice(0, colon)] = line.slice(colon + 2);
          }
          text = text.slice(end + 2);
          if (Object.keys(e).length > 0) events.push(e);
          wake();
        }
      }
    } catch {
      // aborted by close()
    }
    wake();
  })();
  return {
    status: res.statusCode,
    headers: res.headers,
    events,
    ended,
    /** Resolves once `count` events have arrived (bounded by the test's timeout). */
    async received(count: number): Promise<Event[]> {
      while (events.length < count) {
        const more = new Promise<void>((resolve) => (wake = resolve));
        if (events.length >= count) break;
        await Promise.race([more, ended.then(() => Promise.reject(new Error(`stream ended after ${events.length} events`)))]);
      }
      return events.slice(0, count);
    },
    close: () => controller.abort(),
  };
}

const say = (server: Running, text: string, from = 'ada') =>
  send(server.url, `/chat?from=${from}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: text });

describe('25 server-sent events, over a real socket', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp());
  });
  afterAll(() => server.close());

  it('every listener gets each message as an event, with the id of the room’s log', async () => {
    const a = await listener(server.url);
    const b = await listener(server.url);
    expect(a.status).toBe(200);
    expect(a.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const posted = await say(server, 'hello');
    expect(posted.status).toBe(202);
    expect(posted.json()).toEqual({ id: '1', listeners: 2 });
    for (const l of [a, b]) {
      const [e] = await l.received(1);
      expect(e).toMatchObject({ id: '1', event: 'message' });
      expect(JSON.parse(e!.data!)).toMatchObject({ from: 'ada', text: 'hello' } satisfies Partial<Message>);
    }
    a.close();
    b.close();
  });

  it('a client that reconnects with Last-Event-ID gets what it missed first, then live messages', async () => {
    await say(server, 'two');
    await say(server, 'three');
    const back = await listener(server.url, { 'last-event-id': '1' });
    expect((await back.received(2)).map((e) => e.id)).toEqual(['2', '3']);
    await say(server, 'four');
    expect((await back.received(3))[2]).toMatchObject({ id: '4' });
    back.close();
  });

  it('an id older than the log is told to resync; the messages are also readable as JSON', async () => {
    const stale = await listener(server.url, { 'last-event-id': 'not-an-id' });
    expect((await stale.received(1))[0]).toMatchObject({ event: 'resync', id: '4' });
    stale.close();
    const all = await send(server.url, '/chat/messages');
    expect(all.json<{ id: string; message: Message }[]>().map((m) => m.message.text)).toEqual(['hello', 'two', 'three', 'four']);
  });

  it('refuses an empty message', async () => {
    expect((await say(server, '  ')).status).toBe(400);
  });

  it('on shutdown every listener gets the goodbye event and its stream ends, so close() does not wait', async () => {
    const app = createApp();
    const own = await listen(app);
    const l = await listener(own.url);
    await say(own, 'bye soon');
    await l.received(1);
    const closing = app.close(5000);
    expect((await l.received(2))[1]).toEqual({ event: 'shutdown', retry: '5000', data: 'the server is restarting' });
    await l.ended;
    expect(await closing).toEqual({ drained: true, cutConnections: 0 });
  });
});
