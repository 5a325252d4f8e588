import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createApp, stats } from '../src/20-deadlines/app.js';
import { listen, send, type Running } from './helpers/http.js';

describe('20 deadlines: the request signal and @Deadline, over a real socket', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp());
  });
  afterAll(() => server.close());

  it('in time: 200', async () => {
    expect((await send(server.url, '/reports/quick')).text).toBe('report after 10 ms');
  });

  it('past @Deadline: 503 with Retry-After, and the work was cancelled through the signal', async () => {
    const before = stats.cancelled;
    const r = await send(server.url, '/reports/slow?ms=60000');
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('1');
    expect(stats.cancelled).toBe(before + 1);
  });

  it('onTimeout answers instead', async () => {
    const r = await send(server.url, '/reports/queued?ms=60000');
    expect(r.status).toBe(202);
    expect(r.json()).toEqual({ queued: true });
  });

  it('a client that goes away cancels the work at once', async () => {
    const before = stats.cancelled;
    const started = stats.started;
    const controller = new AbortController();
    const pending = request(`${server.url}/reports/slow?ms=400`, { signal: controller.signal }).catch(() => undefined);
    await expect.poll(() => stats.started, { timeout: 5_000 }).toBe(started + 1); // the work is under way
    controller.abort();
    await pending;
    await expect.poll(() => stats.cancelled, { timeout: 5_000 }).toBe(before + 1);
  });
});
