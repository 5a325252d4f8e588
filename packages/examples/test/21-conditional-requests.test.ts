import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/21-conditional-requests/app.js';
import { listen, send, type Running } from './helpers/http.js';

describe('21 conditional requests and caching, over a real socket', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp());
  });
  afterAll(() => server.close());

  it('GET carries the validators; If-None-Match gives a 304 without a body that keeps them', async () => {
    const first = await send(server.url, '/docs/readme');
    expect(first.status).toBe(200);
    expect(first.headers.etag).toBe('"readme-1"');
    expect(first.headers['cache-control']).toBe('private, must-revalidate, max-age=0');
    expect(first.headers['last-modified']).toBe('Thu, 01 Jan 2026 00:00:00 GMT');
    const again = await send(server.url, '/docs/readme', { headers: { 'if-none-match': '"readme-1"' } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.etag).toBe('"readme-1"');
    expect(again.headers['cache-control']).toBe(first.headers['cache-control']);
  });

  it('PUT with a current If-Match changes the document; a stale one is a 412 and changes nothing', async () => {
    const ok = await send(server.url, '/docs/readme', {
      method: 'PUT',
      headers: { 'if-match': '"readme-1"', 'content-type': 'text/plain' },
      body: 'v2',
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.etag).toBe('"readme-2"');
    const stale = await send(server.url, '/docs/readme', {
      method: 'PUT',
      headers: { 'if-match': '"readme-1"', 'content-type': 'text/plain' },
      body: 'v3',
    });
    expect(stale.status).toBe(412);
    expect((await send(server.url, '/docs/readme')).text).toBe('v2');
  });

  it('ETagFeature tags what Catalog writes and answers 304 itself; gzip suffixes the tag', async () => {
    const plain = await send(server.url, '/catalog');
    const tag = String(plain.headers.etag);
    expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const cached = await send(server.url, '/catalog', { headers: { 'if-none-match': tag } });
    expect(cached.status).toBe(304);
    expect(cached.body.length).toBe(0);
    const zipped = await send(server.url, '/catalog', { headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.etag).toBe(tag.replace(/"$/, '-gzip"'));
    expect(JSON.parse(gunzipSync(zipped.body).toString()).items).toHaveLength(50);
    const zipped304 = await send(server.url, '/catalog', {
      headers: { 'accept-encoding': 'gzip', 'if-none-match': String(zipped.headers.etag) },
    });
    expect(zipped304.status).toBe(304);
  });

  it('303 See Other with a cookie', async () => {
    const r = await send(server.url, '/docs/readme/visit', { method: 'POST' });
    expect(r.status).toBe(303);
    expect(String(r.headers.location)).toMatch(/\/docs\/readme$/);
    expect(r.headers['set-cookie']).toMatch(/^last-doc=readme; Path=\/; Max-Age=3600; HttpOnly; SameSite=Lax$/);
  });
});
