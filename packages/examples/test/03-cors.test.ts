import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, STRICT_CORS } from '../src/03-cors/app.js';
import { listen, send, type Running } from './helpers/http.js';

const SPEC_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, PUT, DELETE',
  'access-control-allow-headers': 'X-API-Key, Content-Type',
};

describe('03 cors: the spec configuration', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp());
  });
  afterAll(() => server.close());

  it('every response carries the three headers', async () => {
    const r = await send(server.url, '/api/items', { headers: { origin: 'https://anywhere.example' } });
    expect(r.status).toBe(200);
    expect(r.headers).toMatchObject(SPEC_HEADERS);
    expect(r.json()).toEqual(['apple', 'pear']);
  });

  it('error responses carry them too (a 404 goes through the global response filters)', async () => {
    const r = await send(server.url, '/nowhere');
    expect(r.status).toBe(404);
    expect(r.headers).toMatchObject(SPEC_HEADERS);
  });

  it('a preflight is answered with 204 before matching', async () => {
    const r = await send(server.url, '/api/items', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://anywhere.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(r.status).toBe(204);
    expect(r.headers).toMatchObject(SPEC_HEADERS);
    expect(r.body.length).toBe(0);
  });

  it('an OPTIONS that is not a preflight gets the automatic Allow answer', async () => {
    const r = await send(server.url, '/api/items', { method: 'OPTIONS' });
    expect(r.status).toBe(200);
    expect(r.headers.allow).toBe('GET, HEAD, OPTIONS, POST');
  });
});

describe('03 cors: an origin allow-list with credentials', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp({ cors: STRICT_CORS }));
  });
  afterAll(() => server.close());

  it('an allowed origin is echoed, with credentials, exposed headers and Vary: Origin', async () => {
    const r = await send(server.url, '/api/items', { method: 'POST', body: { name: 'fig' }, headers: { origin: 'https://app.example' } });
    expect(r.status).toBe(201);
    expect(r.headers).toMatchObject({
      'access-control-allow-origin': 'https://app.example',
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': 'X-Item-Count',
      vary: 'Origin',
    });
  });

  it('another origin gets no CORS headers (the browser then blocks the read), but still Vary: Origin', async () => {
    const r = await send(server.url, '/api/items', { headers: { origin: 'https://evil.example' } });
    expect(r.status).toBe(200);
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
    expect(r.headers.vary).toBe('Origin');
  });

  it('a preflight from the allowed origin gets Max-Age', async () => {
    const r = await send(server.url, '/api/items', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'DELETE' },
    });
    expect(r.status).toBe(204);
    expect(r.headers['access-control-max-age']).toBe('600');
    expect(r.headers['access-control-allow-methods']).toBe('GET, POST, PUT, DELETE');
  });

  it('in-process: a preflight from another origin is a 204 without CORS headers', async () => {
    const r = await createApp({ cors: STRICT_CORS }).inject({
      method: 'OPTIONS',
      url: '/api/items',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(r.status).toBe(204);
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
  });
});
