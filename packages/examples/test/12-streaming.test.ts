import { Client, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, ExportMonitor, type ExportStats } from '../src/12-streaming/app.js';
import { listen, type Running } from './helpers/http.js';

/** Polls `read` every 20 ms until it returns the same value 5 times in a row (at most 10 s). */
async function settled<T>(read: () => T): Promise<T> {
  let last = read();
  let same = 0;
  for (let i = 0; i < 500 && same < 5; i++) {
    await new Promise((r) => setTimeout(r, 20));
    const now = read();
    same = now === last ? same + 1 : 0;
    last = now;
  }
  return last;
}

/** Polls until `ok()` (at most 10 s). */
async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 20));
  expect(ok()).toBe(true);
}

// ~45 bytes a row: 800k rows is ~36 MB, several times what loopback socket buffers hold (~10 MB at most).
const ROWS = 800_000;

describe('12 streaming: incremental production with backpressure', () => {
  let server: Running;
  const monitor = new ExportMonitor();
  const last = (): ExportStats => monitor.exports.at(-1)!;
  beforeAll(async () => {
    server = await listen(createApp(monitor));
  });
  afterAll(() => server.close());

  it('production is lazy: it stalls while the client does not read, and resumes when it does', async () => {
    const res = await request(`${server.url}/api/export?rows=${ROWS}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson');
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['transfer-encoding']).toBe('chunked');

    // Not reading: the producer runs until the socket buffers are full, then waits.
    const stalledAt = await settled(() => last().produced);
    expect(stalledAt).toBeGreaterThan(0);
    expect(stalledAt).toBeLessThan(ROWS / 2);
    expect(last().completed).toBe(false);

    // Reading everything lets it finish.
    let lines = 0;
    let tail = '';
    for await (const chunk of res.body) {
      const text = tail + (chunk as Buffer).toString('utf8');
      const parts = text.split('\n');
      tail = parts.pop()!;
      lines += parts.length;
    }
    expect(tail).toBe('');
    expect(lines).toBe(ROWS);
    expect(last()).toMatchObject({ produced: ROWS, completed: true, cancelled: false });
  });

  it('a client that goes away ends the generator: its finally runs, production stops', async () => {
    // Its own client, closed at the end: after an aborted body undici opens a spare connection,
    // which would otherwise hold the server's graceful close open until the client drops it.
    const client = new Client(server.url);
    try {
      const res = await client.request({ method: 'GET', path: `/api/export?rows=${ROWS}` });
      const first = await res.body[Symbol.asyncIterator]().next();
      expect(JSON.parse(String(first.value).split('\n')[0]!)).toEqual({ id: 1, sku: 'SKU-00000001', quantity: 0 });
      res.body.destroy();
      await until(() => last().cancelled);
      expect(last().completed).toBe(false);
      expect(last().produced).toBeLessThan(ROWS);
    } finally {
      await client.destroy();
    }
  });

  it('in-process: a small export as NDJSON', async () => {
    const r = await createApp().inject('/api/export?rows=3');
    expect(
      r
        .text()
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual([1, 2, 3]);
  });

  it('in-process: the same rows as one JSON array, or as one server-sent event each, by Accept', async () => {
    const app = createApp();
    const array = await app.inject({ url: '/api/export?rows=3', headers: { accept: 'application/json' } });
    expect(array.headers['content-type']).toBe('application/json');
    expect(array.json<{ id: number }[]>().map((r) => r.id)).toEqual([1, 2, 3]);
    const events = await app.inject({ url: '/api/export?rows=2', headers: { accept: 'text/event-stream' } });
    expect(events.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(events.text()).toBe('data: {"id":1,"sku":"SKU-00000001","quantity":0}\n\ndata: {"id":2,"sku":"SKU-00000002","quantity":1}\n\n');
  });

  it('an empty export is an empty body (NDJSON) or [] (JSON)', async () => {
    const app = createApp();
    expect((await app.inject('/api/export?rows=0')).text()).toBe('');
    expect((await app.inject({ url: '/api/export?rows=0', headers: { accept: 'application/json' } })).json()).toEqual([]);
  });

  it('a bad row count is a 400 before anything streams', async () => {
    expect((await createApp().inject('/api/export?rows=-1')).status).toBe(400);
  });
});
