/**
 * A job's event stream resumed with `Last-Event-ID` (WHATWG HTML §9.2.4) replays every event the
 * client missed from the job's log, in order and once each. The client is the `eventsource`
 * package (a WHATWG EventSource) over a real socket, through a TCP relay the test cuts mid-job; the
 * service runs in this process on a store that holds each item's commit until the test lets it
 * through, so the job's progress is driven step by step (no timing assumptions). Also: an id the
 * log does not have gets `resync` then the current state, and both paths answer the same stream.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/domain/config/app-config.js';
import { JOB_DONE_COLLECTION } from '../../src/domain/jobs/service.js';
import { JOB_EVENT_LOGS } from '../../src/http/job-events.js';
import { createService, type Service } from '../../src/server.js';
import { MemoryRecordStore, type RecordStore } from '../../src/storage/index.js';
import { until } from '../helpers/poll.js';

/** Lets through one item's commit per permit; the job waits at its next item until then. */
class ItemGate {
  private permits = 0;
  private readonly waiting: Array<() => void> = [];

  allow(n: number): void {
    this.permits += n;
    while (this.permits > 0 && this.waiting.length > 0) {
      this.permits--;
      this.waiting.shift()!();
    }
  }

  pass(): Promise<void> {
    if (this.permits > 0) {
      this.permits--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}

/** A memory store whose commits of a job item (they carry the item's done-record) wait for `gate`. */
function gatedStore(gate: ItemGate): RecordStore {
  const store = new MemoryRecordStore();
  return new Proxy(store, {
    get(target, key) {
      if (key === 'commit') {
        return async (...args: Parameters<RecordStore['commit']>) => {
          if (args[0].some((m) => m.op === 'put' && m.collection === JOB_DONE_COLLECTION)) await gate.pass();
          return target.commit(...args);
        };
      }
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** A TCP relay to `port` whose open connections the test can cut (a network drop). */
async function relay(port: number): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    cut: () => {
      for (const s of open) s.destroy();
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface Received {
  type: string;
  id: string;
  data: { status?: string; processed?: number };
}

/** The first `n` events of a stream (as `event`/`id` pairs), then the connection is closed. */
async function firstEvents(url: string, headers: Record<string, string>, n: number): Promise<Array<{ event: string; id: string }>> {
  const controller = new AbortController();
  const r = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  expect(r.status).toBe(200);
  const reader = r.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  const blocks = () => text.split('\n\n').slice(0, -1);
  while (blocks().length < n) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  controller.abort();
  return blocks()
    .slice(0, n)
    .map((block) => {
      const field = (name: string) => /^(\w+): ?(.*)$/m.exec(block.split('\n').find((l) => l.startsWith(`${name}:`)) ?? '')?.[2] ?? '';
      return { event: field('event'), id: field('id') };
    });
}

const users = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ email: `${tag}-${i}@replay.example`, firstName: 'Re', lastName: 'Play' }));

describe('job events: Last-Event-ID replays what the client missed', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'user-service-job-events-'));
  const gate = new ItemGate();
  let service: Service;
  let base: string;

  beforeAll(async () => {
    const config = await loadConfig({
      DATA_DIR: dataDir,
      SEED: 'none',
      STORAGE: 'memory',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_REQUESTS: 'false',
    });
    service = await createService(config, { store: gatedStore(gate), log: null });
    const address = await service.listen();
    base = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    gate.allow(10_000);
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function submit(n: number, tag: string): Promise<number> {
    const r = await fetch(`${base}/api/async/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(users(tag, n)),
    });
    expect(r.status).toBe(202);
    return ((await r.json()) as { id: number }).id;
  }

  it('an EventSource cut off mid-job reconnects with Last-Event-ID and gets every missed event, in order, once', async () => {
    const id = await submit(30, 'cut');
    const net = await relay(Number(new URL(base).port));
    const sentLastEventIds: Array<string | null> = [];
    const received: Received[] = [];
    const es = new EventSource(`${net.url}/api/async/users/jobs/${id}/events`, {
      fetch: (input, init) => {
        sentLastEventIds.push(new Headers(init.headers).get('last-event-id'));
        return fetch(input, init);
      },
    });
    for (const type of ['progress', 'resync']) {
      es.addEventListener(type, (e) =>
        received.push({ type, id: e.lastEventId, data: e.data === '' ? {} : (JSON.parse(e.data) as Received['data']) }),
      );
    }
    try {
      const ids = () => received.map((e) => Number(e.id));
      // The job waits at its first item: the stream starts at PENDING (0) or RUNNING with 0 done (1).
      await until(() => ids().includes(1), 'RUNNING with no item done');
      gate.allow(10);
      await until(() => ids().includes(11), 'ten items done');
      net.cut(); // the network drops: the client reconnects by itself, after its reconnection delay
      gate.allow(10); // meanwhile ten more items are done: events 12..21, which the client misses
      await until(() => service.jobs.get(id).processed === 20, 'twenty items done', 10_000);
      await until(() => ids().includes(21), 'the missed events, replayed', 15_000);
      gate.allow(10);
      await until(() => received.at(-1)?.data.status === 'COMPLETED', 'the end of the job', 10_000);

      expect(sentLastEventIds).toEqual([null, '11']);
      expect(received.filter((e) => e.type !== 'progress')).toEqual([]);
      const first = ids()[0]!;
      expect(first).toBeLessThanOrEqual(1);
      // Every state from the first one seen to COMPLETED (30 items: id 32), each once, in order.
      expect(ids()).toEqual(Array.from({ length: 33 - first }, (_, i) => first + i));
      expect(received.at(-1)!.data).toMatchObject({ status: 'COMPLETED', processed: 30 });
      expect(received.find((e) => e.id === '15')!.data).toMatchObject({ status: 'RUNNING', processed: 14 });
    } finally {
      es.close();
      net.cut();
      await net.close();
    }
  });

  it('an id the log does not have gets resync, then the current state; the old path answers the same stream', async () => {
    const id = await submit(2, 'resync');
    gate.allow(2);
    await until(() => service.jobs.get(id).status === 'COMPLETED', 'the job to complete');
    for (const path of [`/api/async/users/jobs/${id}/events`, `/api/async/users/${id}/events`]) {
      const r = await fetch(`${base}${path}`, { headers: { accept: 'text/event-stream', 'last-event-id': 'from-another-instance' } });
      expect(r.status).toBe(200);
      const text = await r.text(); // the stream ends with the job
      const end = JSON.stringify({ id, status: 'COMPLETED', total: 2, processed: 2, created: 2, failed: 0 });
      expect(text).toBe(`event: resync\nid: 4\ndata: \n\nevent: progress\nid: 4\ndata: ${end}\n\n`);
      const seen = await fetch(`${base}${path}`, { headers: { accept: 'text/event-stream', 'last-event-id': '4' } });
      expect(seen.status).toBe(204);
      // The same answers in-process.
      const injected = await service.app.inject({ url: path, headers: { accept: 'text/event-stream', 'last-event-id': 'x' } });
      expect(injected.status).toBe(200);
      expect(injected.text()).toBe(text);
      expect((await service.app.inject({ url: path, headers: { accept: 'text/event-stream', 'last-event-id': '4' } })).status).toBe(204);
    }
  });

  it('a job whose log was dropped (eight other jobs streamed since) answers an old id with resync, then the current state', async () => {
    const running = await submit(3, 'dropped');
    await until(() => service.jobs.get(running).status === 'RUNNING', 'the job to start');
    const url = (id: number) => `${base}/api/async/users/jobs/${id}/events`;
    expect(await firstEvents(url(running), {}, 1)).toEqual([{ event: 'progress', id: '1' }]);
    // Still in its log: replayed from there (nothing newer yet, so the stream just stays open).
    gate.allow(1);
    await until(() => service.jobs.get(running).processed === 1, 'one item done');
    expect(await firstEvents(url(running), { 'last-event-id': '1' }, 1)).toEqual([{ event: 'progress', id: '2' }]);
    // As many jobs queued behind it (PENDING) as the service keeps logs are streamed: the oldest log goes.
    for (let i = 0; i < JOB_EVENT_LOGS; i++) {
      const queued = await submit(0, `queued-${i}`);
      expect(await firstEvents(url(queued), {}, 1)).toEqual([{ event: 'progress', id: '0' }]);
    }
    expect(await firstEvents(url(running), { 'last-event-id': '1' }, 2)).toEqual([
      { event: 'resync', id: '2' },
      { event: 'progress', id: '2' },
    ]);
    gate.allow(2);
    await until(() => service.jobs.get(running).status === 'COMPLETED', 'the job to complete');
  });
});
