/**
 * `GET /api/health/live` and `/api/health/ready` over a real socket (issue 24), on the journal and,
 * in the `user-service-etcd` project, on etcd (a pair of instances; ready then checks etcd too):
 * UP with their checks, without credentials, never rate limited; during a SIGTERM drain, while an
 * upload is still in flight, ready answers 503 `draining` and live 200 on connections
 * opened before the close (the listening socket is closed by then). A full disk making ready DOWN
 * is in disk-full.test.ts (a real tmpfs) and test/unit/health-probes.test.ts (in-process).
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binaryContent, BOUNDARY, filePart, multipartBody } from '../domain/files/uploads-multipart.js';
import { http, removeDir, startServer, waitForLine, type RunningServer } from '../helpers/server.js';

const ON_ETCD = process.env.BLACKBOX_STORE === 'etcd';
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** One GET on a connection opened earlier; resolves with the status and the JSON body. */
async function getOn(socket: Socket, path: string): Promise<{ status: number; body: unknown }> {
  let data = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    data += chunk;
  });
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  for (;;) {
    const end = data.indexOf('\r\n\r\n');
    const length = /\r\ncontent-length: (\d+)/i.exec(data);
    if (end >= 0 && length !== null && data.length >= end + 4 + Number(length[1])) {
      return { status: Number(data.split(' ')[1]), body: JSON.parse(data.slice(end + 4, end + 4 + Number(length[1]))) as unknown };
    }
    const [closed] = await Promise.race([once(socket, 'data'), once(socket, 'close').then(() => ['closed'])]);
    if (closed === 'closed') throw new Error(`connection closed before a response to ${path}: ${JSON.stringify(data)}`);
  }
}

describe('health probes (black box)', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ env: { RATE_LIMIT_PER_MINUTE: '2', LOG_REQUESTS: 'false' } });
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    if (server !== undefined) removeDir(server.dataDir);
  });

  it('live: UP with no check; ready: the store (and etcd on STORAGE=etcd) UP; no credentials, no rate limit', async () => {
    for (let i = 0; i < 5; i++) {
      const live = await http(server.url, 'GET', '/api/health/live');
      expect(live.status).toBe(200);
      expect(live.headers['cache-control']).toBe('no-store');
      expect(live.headers['x-rate-limit-limit']).toBeUndefined();
      expect(live.json()).toEqual({ status: 'UP', checks: [] });
      const ready = await http(server.url, 'GET', '/api/health/ready');
      expect(ready.status).toBe(200);
      const checks = [{ name: 'store', status: 'UP' }];
      if (ON_ETCD) checks.push({ name: 'etcd', status: 'UP', data: { revision: expect.any(Number) } } as never);
      checks.push({ name: 'indexes', status: 'UP' }); // the demo data: indexed before listening
      expect(ready.json()).toEqual({ status: 'UP', checks });
    }
    // The specified health answer is untouched.
    expect((await http(server.url, 'GET', '/api/health')).json()).toMatchObject({ status: 'UP' });
  });

  // Node 26's server.close() also closes connections that have not sent a request yet, the ones
  // this test probes on; there SHUTDOWN_DELAY_MS is what keeps probes answered (the pipeline's
  // shutdown-delay test shows it on fresh connections).
  it.skipIf(NODE_MAJOR >= 26)(
    'SIGTERM: while an upload is in flight, ready answers 503 draining and live 200 on connections opened before',
    async () => {
      const drained = await startServer({ env: { LOG_REQUESTS: 'false' } });
      const sockets: Socket[] = [];
      try {
        // An upload held half-sent keeps a request in flight, so the drain lasts until the test ends it
        // (to the first instance of a pair, on etcd: the one the signal goes to).
        const body = multipartBody([filePart(binaryContent(16 * 1024), 'probe.bin', 'application/octet-stream')]);
        const half = Math.floor(body.length / 2);
        const chunk = (b: Buffer): Buffer => Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);
        const upload = connect(drained.port, '127.0.0.1').on('error', () => undefined);
        sockets.push(upload);
        let received = '';
        const sawContinue = new Promise<void>((resolve) =>
          upload.on('data', (d: Buffer) => {
            received += d.toString('latin1');
            if (received.includes('100 Continue')) resolve();
          }),
        );
        const uploadClosed = once(upload, 'close');
        upload.write(
          `POST /api/files/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\n` +
            'Transfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n',
        );
        await sawContinue; // Node answers 100 once the request reached the handler: it is in flight
        upload.write(chunk(body.subarray(0, half)));
        const probes = [connect(drained.port, '127.0.0.1'), connect(drained.port, '127.0.0.1'), connect(drained.port, '127.0.0.1')];
        sockets.push(...probes);
        await Promise.all(probes.map((s) => once(s, 'connect')));
        // A connection the kernel completed but the server has not accepted yet is reset when the
        // close stops listening. The server accepts in arrival order: once a connection opened after
        // these has an answer, they have been accepted.
        const later = connect(drained.port, '127.0.0.1');
        sockets.push(later);
        await once(later, 'connect');
        expect((await getOn(later, '/api/health/live')).status).toBe(200);

        drained.process.kill('SIGTERM');
        await waitForLine(drained, (l) => l.includes('SIGTERM: draining'));
        const [live, ready, other] = await Promise.all([
          getOn(probes[0]!, '/api/health/live'),
          getOn(probes[1]!, '/api/health/ready'),
          getOn(probes[2]!, '/api/users'),
        ]);
        expect(live).toEqual({ status: 200, body: { status: 'UP', checks: [] } });
        expect(ready.status).toBe(503);
        expect(ready.body).toMatchObject({
          status: 'DOWN',
          checks: expect.arrayContaining([
            { name: 'store', status: 'UP' },
            { name: 'draining', status: 'DOWN', data: { reason: 'the application is closing' } },
          ]),
        });
        expect(other.status).toBe(503);
        expect(other.body).toMatchObject({ status: 503 });

        // The upload still completes, and the instance exits cleanly.
        const exited = once(drained.process, 'exit');
        upload.write(Buffer.concat([chunk(body.subarray(half)), Buffer.from('0\r\n\r\n')]));
        await uploadClosed;
        expect(received).toMatch(/HTTP\/1\.1 201 Created/);
        const [code] = (await exited) as [number | null];
        expect(code).toBe(0);
      } finally {
        for (const s of sockets) s.destroy();
        await drained.stop('SIGKILL');
        removeDir(drained.dataDir);
      }
    },
  );
});
