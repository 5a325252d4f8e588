import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppWithFeature, DEFAULT_DEPRECATION, type DeprecationFeature } from '../src/07-dynamic-feature/app.js';
import { listen, send, type Running } from './helpers/http.js';

describe('07 dynamic feature: a filter only where a start-up rule says', () => {
  let server: Running;
  let feature: DeprecationFeature;
  beforeAll(async () => {
    const built = createAppWithFeature();
    feature = built.feature;
    server = await listen(built.app);
  });
  afterAll(() => server.close());

  it('configure() ran once per method at start-up and picked the v1 methods only', () => {
    expect(feature.deprecatedMethods.sort()).toEqual(['GET /api/v1/users', 'GET /api/v1/users/{id}']);
  });

  it('v1 responses carry Deprecation, Sunset and a successor Link', async () => {
    for (const path of ['/api/v1/users', '/api/v1/users/2']) {
      const r = await send(server.url, path);
      expect(r.status).toBe(200);
      expect(r.headers.deprecation).toBe(`@${Date.parse('2025-01-01T00:00:00Z') / 1000}`);
      expect(r.headers.sunset).toBe('Fri, 01 Jan 2027 00:00:00 GMT');
      expect(r.headers.link).toBe('</api/v2/users>; rel="successor-version"');
    }
  });

  it('an error from a deprecated method is deprecated too (a matched route keeps its response filters)', async () => {
    const r = await send(server.url, '/api/v1/users/99');
    expect(r.status).toBe(404);
    expect(r.headers.deprecation).toBe(`@${Date.parse('2025-01-01T00:00:00Z') / 1000}`);
  });

  it('v2 responses carry none of them', async () => {
    const r = await send(server.url, '/api/v2/users');
    expect(r.json()).toEqual([
      { id: 1, firstName: 'Ada', lastName: 'Lovelace' },
      { id: 2, firstName: 'Alan', lastName: 'Turing' },
    ]);
    expect(r.headers.deprecation).toBeUndefined();
    expect(r.headers.sunset).toBeUndefined();
  });

  it('in-process: another rule, decided when the app is built, deprecates v2 instead', async () => {
    const { app, feature: other } = createAppWithFeature({ ...DEFAULT_DEPRECATION, prefixes: ['/api/v2/'], successor: undefined });
    expect((await app.inject('/api/v2/users')).headers.deprecation).toBe(`@${Date.parse('2025-01-01T00:00:00Z') / 1000}`);
    expect((await app.inject('/api/v1/users')).headers.deprecation).toBeUndefined();
    expect(other.deprecatedMethods).toEqual(['GET /api/v2/users']);
  });
});
