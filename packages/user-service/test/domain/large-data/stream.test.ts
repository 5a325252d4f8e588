import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream';
import { text } from 'node:stream/consumers';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  largeDataItem,
  largeDataStream,
  MAX_LARGE_DATA_COUNT,
  parseLargeDataCount,
  type LargeDataStream,
} from '../../../src/domain/large-data/stream.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Lets the event loop run `n` times, so an unthrottled producer would run far ahead. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await turn();
}

describe('parseLargeDataCount', () => {
  it('defaults to 1000 and accepts 0 up to the cap', () => {
    expect(parseLargeDataCount()).toBe(1000);
    expect(parseLargeDataCount('')).toBe(1000);
    expect(parseLargeDataCount('0')).toBe(0);
    expect(parseLargeDataCount('25')).toBe(25);
    expect(parseLargeDataCount(String(MAX_LARGE_DATA_COUNT))).toBe(1_000_000);
  });

  it.each(['1000001', '99999999', '-1', '1e3', '1.5', 'abc', ' 5', '0x10', '+5'])('400 for %j', (raw) => {
    expect(() => parseLargeDataCount(raw)).toThrow(expect.objectContaining({ status: 400, code: 'LARGE_DATA_BAD_COUNT' }));
  });
});

describe('largeDataStream', () => {
  it.each([0, 1, 2, 63, 64, 65, 1000])('produces one valid JSON document for count %d', async (count) => {
    const doc = JSON.parse(await text(largeDataStream({ count }))) as { items: Array<Record<string, unknown>>; count: number };
    expect(doc.count).toBe(count);
    expect(doc.items).toHaveLength(count);
    doc.items.forEach((item, i) => {
      expect(item).toEqual(JSON.parse(largeDataItem(i + 1)));
      expect(item).toMatchObject({ id: i + 1, name: `Item ${i + 1}` });
    });
  });

  it('rejects a count outside 0..1_000_000', () => {
    expect(() => largeDataStream({ count: -1 })).toThrow(RangeError);
    expect(() => largeDataStream({ count: 1_000_001 })).toThrow(RangeError);
    expect(() => largeDataStream({ count: 1.5 })).toThrow(RangeError);
  });

  it('does not run ahead of a consumer that reads nothing', async () => {
    const stream = largeDataStream({ count: 1_000_000 });
    stream.on('readable', () => undefined); // attach, but never read
    await turns(50);
    expect(stream.produced).toBeGreaterThan(0);
    expect(stream.produced).toBeLessThan(1000); // ~16 KiB of items buffered, not a million
    stream.destroy();
  });

  it('stays within a bounded distance of a slow consumer reading 4 KiB at a time', async () => {
    const stream = largeDataStream({ count: 1_000_000 });
    let consumedItems = 0;
    let maxLead = 0;
    let carry = '';
    for (let reads = 0; reads < 300; reads++) {
      let chunk = stream.read(4096) as Buffer | null;
      for (let waits = 0; chunk === null && waits < 100; waits++) {
        await new Promise((resolve) => stream.once('readable', resolve));
        chunk = stream.read(4096) as Buffer | null;
      }
      expect(chunk).not.toBeNull();
      // Count item starts, including one split across two reads.
      const seen = carry + chunk!.toString('latin1');
      consumedItems += seen.split('{"id":').length - 1;
      carry = seen.slice(-5);
      maxLead = Math.max(maxLead, stream.produced - consumedItems);
      await turn(); // a slow client
    }
    expect(consumedItems).toBeGreaterThan(10_000);
    expect(maxLead).toBeLessThan(1000); // 16 KiB buffer + one chunk of 64 items ≈ 440 items
    stream.destroy();
  });

  it('stops producing once destroyed', async () => {
    const stream = largeDataStream({ count: 1_000_000 });
    stream.read();
    await turns(5);
    stream.destroy();
    const at = stream.produced;
    await turns(50);
    expect(stream.produced).toBe(at);
    expect(at).toBeLessThan(1_000_000);
  });

  it('an aborted signal destroys the stream with an AbortError', async () => {
    const controller = new AbortController();
    const stream: LargeDataStream = largeDataStream({ count: 1_000_000, signal: controller.signal });
    const failed = new Promise<unknown>((resolve) => stream.once('error', resolve));
    stream.read();
    controller.abort();
    expect(await failed).toMatchObject({ name: 'AbortError' });
    const at = stream.produced;
    await turns(20);
    expect(stream.produced).toBe(at);
  });
});

describe('largeDataStream over HTTP', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  });

  it('stops production when the client goes away mid-body', async () => {
    let body: LargeDataStream | undefined;
    const closed = new Promise<void>((resolve) => {
      server = createServer((_req, res) => {
        body = largeDataStream({ count: 1_000_000 });
        body.once('close', () => resolve());
        res.writeHead(200, { 'content-type': 'application/json' });
        pipeline(body, res, () => undefined); // destroying res (client gone) destroys body
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const res = await request(`http://127.0.0.1:${(server!.address() as AddressInfo).port}/`);
    for await (const chunk of res.body) {
      expect((chunk as Buffer).toString('utf8', 0, 10)).toBe('{"items":[');
      break; // leaving the loop destroys the response body and the socket
    }
    await closed;
    const at = body!.produced;
    await turns(20);
    expect(body!.produced).toBe(at);
    expect(at).toBeLessThan(1_000_000);
  });
});
