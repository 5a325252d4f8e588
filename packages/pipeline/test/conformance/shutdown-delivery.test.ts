/**
 * A response already written is delivered whole during a graceful close, even when the client has
 * not read it yet and has pipelined another request behind it: the server neither destroys the
 * connection as "idle" (which, with the pipelined bytes unread, makes the kernel send a reset and
 * drop the unsent tail) nor cuts it before the deadline; the pipelined request is answered and the
 * connection closed cleanly after it. Over a raw socket (in-process has no socket to cut).
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Application, GET, Path, Produces } from '../../src/index.js';
import { parseResponses } from '../helpers/raw-socket.js';

// Larger than loopback's kernel buffers (several MiB), so part of it waits in the server's socket.
const BIG = 'x'.repeat(32 * 1024 * 1024);

@Path('/')
class Downloads {
  @GET('big') @Produces('text/plain') big(): string {
    return BIG;
  }
  @GET('small') @Produces('text/plain') small(): string {
    return 'small';
  }
}

describe('graceful close delivers a started response whole', () => {
  let app: Application | undefined;
  afterEach(async () => {
    await app?.close(100);
  });

  it('a 32 MiB response the client has not read, with a request pipelined behind it', async () => {
    app = new Application({ resources: [Downloads], logger: () => undefined });
    const serverSockets: Socket[] = [];
    const { port } = await app.listen(0);
    app.server!.on('connection', (s: Socket) => serverSockets.push(s));
    const client = connect(port, '127.0.0.1');
    await once(client, 'connect');
    client.pause(); // read nothing yet
    client.write('GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /small HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    // Wait until the server has written the big response and is stuck on the unread socket.
    for (let i = 0; i < 500 && !(serverSockets[0] !== undefined && serverSockets[0].writableLength > 0); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(serverSockets[0]!.writableLength).toBeGreaterThan(0);

    const closing = app.close(5_000);
    const chunks: Buffer[] = [];
    let reset = false;
    client.on('data', (d: Buffer) => chunks.push(d));
    client.on('error', () => (reset = true));
    client.resume();
    await once(client, 'close');
    const result = await closing;

    expect(reset).toBe(false);
    const [first, second] = parseResponses(Buffer.concat(chunks).toString('latin1'));
    expect(first!.status).toBe(200);
    expect(first!.body.length).toBe(BIG.length);
    // The pipelined request reached the server before the close: it is served (Node may have
    // parsed it already) or, if it is dispatched only after, refused with 503; then the close.
    expect(second).toBeDefined();
    if (second!.status === 200) {
      expect(second!.body).toBe('small');
    } else {
      expect(second!.status).toBe(503);
      expect(second!.headers.connection).toBe('close');
    }
    expect(result).toEqual({ drained: true, cutConnections: 0 });
  });
});
