import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/02-api-key/app.js';
import { listen, send, type Running } from './helpers/http.js';

describe('02 api-key: a request filter at AUTHENTICATION priority', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp({ keys: ['k-one', 'k-two'] }));
  });
  afterAll(() => server.close());

  it('/health needs no key', async () => {
    const r = await send(server.url, '/health');
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ status: 'UP' });
  });

  it('a missing key aborts with 401, WWW-Authenticate: API-Key and a JSON error', async () => {
    const r = await send(server.url, '/api/things');
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toBe('API-Key');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.json()).toEqual({ status: 401, error: 'Unauthorized', message: 'Missing X-API-Key header' });
  });

  it('a wrong key aborts the same way', async () => {
    const r = await send(server.url, '/api/things', { headers: { 'x-api-key': 'k-one-but-longer' } });
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toBe('API-Key');
    expect(r.json()).toMatchObject({ error: 'Unauthorized', message: 'Invalid API key' });
  });

  it('any configured key passes, and the resource sees the security context the filter set', async () => {
    for (const key of ['k-one', 'k-two']) {
      const r = await send(server.url, '/api/things', { headers: { 'x-api-key': key } });
      expect(r.status).toBe(200);
      expect(r.json()).toEqual({ caller: 'api-client', scheme: 'API-Key', things: ['alpha', 'beta'] });
    }
  });

  it('an unknown path is a 404 even without a key: the filter runs after matching', async () => {
    expect((await send(server.url, '/nowhere')).status).toBe(404);
  });

  it('in-process: the demo key works when API_KEYS is unset', async () => {
    const saved = process.env.API_KEYS;
    delete process.env.API_KEYS;
    try {
      const app = createApp();
      expect((await app.inject({ url: '/api/things', headers: { 'x-api-key': 'demo-key' } })).status).toBe(200);
      expect((await app.inject('/api/things')).status).toBe(401);
    } finally {
      if (saved !== undefined) process.env.API_KEYS = saved;
    }
  });
});
