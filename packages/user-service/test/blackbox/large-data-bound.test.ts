/**
 * `/api/large-data` under clients that never read: at most LARGE_DATA_PER_CLIENT responses per
 * client address are in flight, the next one is 429 with Retry-After and the error body, another
 * client is served meanwhile, and a slot is given back when a stalled response is cut or ends.
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/poll.js';
import { http, removeDir, startServer, type RunningServer } from '../helpers/server.js';

/** Opens a download from `localAddress` and stops reading once its first bytes arrived. */
async function stalledDownload(port: number, localAddress: string): Promise<{ socket: Socket; head: string }> {
  const socket = connect({ port, host: '127.0.0.1', localAddress });
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  socket.write('GET /api/large-data?count=1000000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  const [first] = (await once(socket, 'data')) as [Buffer];
  socket.pause();
  return { socket, head: first.toString('latin1') };
}

describe('GET /api/large-data: per-client bound', () => {
  let server: RunningServer;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    server = await startServer({ env: { LARGE_DATA_PER_CLIENT: '2', LOG_REQUESTS: 'false', RATE_LIMIT_PER_MINUTE: '0' } });
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await server?.stop();
    if (server !== undefined) removeDir(server.dataDir);
  });

  it('the third concurrent stalled download of one client is 429; other clients are served; a slot comes back', async () => {
    for (let i = 0; i < 2; i++) {
      const d = await stalledDownload(server.port, '127.0.0.1');
      sockets.push(d.socket);
      expect(d.head).toMatch(/^HTTP\/1\.1 200 /);
    }
    const refused = await http(server.url, 'GET', '/api/large-data?count=10');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.json()).toMatchObject({ status: 429, error: 'Too Many Requests', path: '/api/large-data' });

    // Another client address (loopback is the whole 127/8 on Linux) gets its own slots.
    const other = await stalledDownload(server.port, '127.0.0.2');
    sockets.push(other.socket);
    expect(other.head).toMatch(/^HTTP\/1\.1 200 /);
    // A plain request of the stalled client is not affected.
    expect((await http(server.url, 'GET', '/api/users/1')).status).toBe(200);

    // The first client goes away: its slots are released.
    sockets[0]!.destroy();
    sockets[1]!.destroy();
    await until(async () => (await http(server.url, 'GET', '/api/large-data?count=10')).status === 200, 'a slot to be released');
  });
});
