import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, removeDir, startServer, waitForLine, type RunningServer } from '../helpers/server.js';

describe('the real server (smoke)', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    expect(await server.stop('SIGTERM')).toBe(0);
    removeDir(server.dataDir);
  });

  it('serves the seeded user 1 and logs one JSON line per request', async () => {
    const r = await http(server.url, 'GET', '/api/users/1', { headers: { 'x-api-version': '1', 'x-request-id': 'smoke-1' } });
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ id: 1, firstName: 'John', lastName: 'Doe', email: 'test@example.com', roles: ['USER'] });
    expect(r.headers['x-rate-limit-limit']).toBe('600'); // RATE_LIMIT_PER_MINUTE's default
    const line = JSON.parse(await waitForLine(server, (l) => l.includes('"requestId":"smoke-1"')));
    expect(line).toMatchObject({ method: 'GET', path: '/api/users/1', status: 200 });
    expect(typeof line.durationMs).toBe('number');
  });
});
