import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/05-ordering/app.js';
import { listen, send, type Reply, type Running } from './helpers/http.js';

const trace = (r: Reply): string[] => String(r.headers['x-trace']).split(', ');
const RESPONSE_CHAIN = [
  'response:5000',
  'response:3000',
  'response:1000',
  'write:4000 in',
  'write:5000 in',
  'write:5000 out',
  'write:4000 out',
];

describe('05 ordering: request chain ascending, response chain descending', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp());
  });
  afterAll(() => server.close());

  it('a normal request runs everything in priority order', async () => {
    const r = await send(server.url, '/ordering');
    expect(r.status).toBe(200);
    expect(trace(r)).toEqual(['pre-matching', 'request:1000', 'request:2000', 'request:5000', 'method', ...RESPONSE_CHAIN]);
  });

  it('reader interceptors run after every request filter and before the method, ascending', async () => {
    const r = await send(server.url, '/ordering', { method: 'POST', body: { n: 7 } });
    expect(r.json()).toEqual({ received: 7 });
    expect(trace(r)).toEqual([
      'pre-matching',
      'request:1000',
      'request:2000',
      'request:5000',
      'read:4000',
      'read:5000',
      'method',
      ...RESPONSE_CHAIN,
    ]);
  });

  it('a filter that aborts skips later request filters and the method; the response chain still runs', async () => {
    const r = await send(server.url, '/ordering', { headers: { 'x-abort': 'yes' } });
    expect(r.status).toBe(403);
    expect(r.json()).toEqual({ error: 'aborted by request:2000' });
    expect(trace(r)).toEqual(['pre-matching', 'request:1000', 'request:2000', ...RESPONSE_CHAIN]);
    expect(r.headers['x-status-seen-by-filters']).toBe('403');
  });

  it('a method that throws: the mapper runs once, then the whole response chain on its response', async () => {
    const r = await send(server.url, '/ordering/fail');
    expect(r.status).toBe(409);
    expect(trace(r)).toEqual([
      'pre-matching',
      'request:1000',
      'request:2000',
      'request:5000',
      'method',
      'exception-mapper',
      ...RESPONSE_CHAIN,
    ]);
  });

  it('no match: only the pre-matching filter ran before the 404, then the response chain', async () => {
    const r = await send(server.url, '/nowhere');
    expect(r.status).toBe(404);
    expect(trace(r)).toEqual(['pre-matching', ...RESPONSE_CHAIN]);
  });

  it('in-process: the same order', async () => {
    const r = await createApp().inject('/ordering');
    expect(String(r.headers['x-trace']).split(', ')).toEqual([
      'pre-matching',
      'request:1000',
      'request:2000',
      'request:5000',
      'method',
      ...RESPONSE_CHAIN,
    ]);
  });
});
