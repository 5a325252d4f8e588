/**
 * A response already written is delivered whole during a graceful close, even when the client has
 * not read it yet and has pipelined another request behind it: the server neither destroys the
 * connection as "idle" (which, with the pipelined bytes unread, makes the kernel send a reset and
 * drop the unsent tail) nor cuts it before the deadline; the pipelined request is answered and the
 * connection closed cleanly after it. Over a raw socket (in-process has no socket to cut).
 */
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Application, GET, Path, Produces } from '../../src/index.js';
import { parseResponses } from '../helpers/raw-socket.js';

// Larger than loopback's kernel buffers (several MiB), so part of it waits in the server's socket.
const BIG = 'x'.repeat(32 * 1024 * 1024);
// Smaller than them: once written, all of it waits in the kernel (Node sees nothing left to send).
const KERNEL_SIZED = 'k'.repeat(1_400_000);

@Path('/')
class Downloads {
  @GET('big') @Produces('text/plain') big(): string {
    return BIG;
  }
  @GET('small') @Produces('text/plain') small(): string {
    return 'small';
  }
  @GET('kernel-sized') @Produces('text/plain') kernelSized(): string {
    return KERNEL_SIZED;
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
    const { data, reset } = await readAll(client);
    const result = await closing;

    expect(reset).toBe(false);
    const [first, second] = parseResponses(data);
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

  /** Starts the app; resolves each URL's promise when its response has been handed to the kernel. */
  async function serve(): Promise<{ port: number; finished: (url: string) => Promise<void>; serverSockets: Socket[] }> {
    app = new Application({ resources: [Downloads], logger: () => undefined });
    const { port } = await app.listen(0);
    const done = new Map<string, () => void>();
    const waits = new Map<string, Promise<void>>();
    const finished = (url: string): Promise<void> => {
      let w = waits.get(url);
      if (w === undefined) {
        w = new Promise<void>((r) => done.set(url, r));
        waits.set(url, w);
      }
      return w;
    };
    app.server!.on('request', (req: IncomingMessage, res: ServerResponse) => {
      void finished(req.url!);
      res.once('finish', () => done.get(req.url!)!());
    });
    const serverSockets: Socket[] = [];
    app.server!.on('connection', (s: Socket) => serverSockets.push(s));
    return { port, finished, serverSockets };
  }

  /** Reads everything until the server closes; `reset` when the connection ended in an error. */
  async function readAll(client: Socket): Promise<{ data: string; reset: boolean }> {
    const chunks: Buffer[] = [];
    let reset = false;
    client.on('data', (d: Buffer) => chunks.push(d));
    client.on('error', () => (reset = true));
    client.resume();
    await once(client, 'close');
    return { data: Buffer.concat(chunks).toString('latin1'), reset };
  }

  it('a 1.4 MB response wholly in the kernel, with a request pipelined behind it, unread until the close began', async () => {
    const { port, finished } = await serve();
    const client = connect(port, '127.0.0.1');
    await once(client, 'connect');
    client.pause(); // read nothing yet
    client.write('GET /kernel-sized HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /small HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await finished('/kernel-sized');

    const closing = app!.close(5_000);
    const { data, reset } = await readAll(client);
    const result = await closing;

    expect(reset).toBe(false);
    const [first, second] = parseResponses(data);
    expect(first!.status).toBe(200);
    expect(first!.body.length).toBe(KERNEL_SIZED.length);
    // The pipelined request was answered before the close (Node parsed both at once), or refused.
    if (second !== undefined && second.status !== 200) {
      expect(second.status).toBe(503);
      expect(second.headers.connection).toBe('close');
    }
    expect(result).toEqual({ drained: true, cutConnections: 0 });
  });

  it('a request that arrives after the close began, behind a response still in the kernel, costs the client nothing of that response', async () => {
    const { port, finished, serverSockets } = await serve();
    const client = connect(port, '127.0.0.1');
    await once(client, 'connect');
    client.pause();
    client.write('GET /kernel-sized HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await finished('/kernel-sized');
    expect(serverSockets[0]!.writableLength).toBe(0); // Node counts the connection idle

    const closing = app!.close(5_000);
    // The client, not yet reading, sends its next request: today's idle reaping had closed the
    // socket, so the kernel answered this with a reset and dropped the unsent tail of the 200.
    client.write('GET /small HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    // Wait until the server has either read the request or closed the connection.
    await Promise.race([finished('/small'), once(serverSockets[0]!, 'close'), new Promise((r) => app!.server!.once('request', r))]);
    const { data, reset } = await readAll(client);
    const result = await closing;

    expect(reset).toBe(false);
    const responses = parseResponses(data);
    expect(responses[0]!.status).toBe(200);
    expect(responses[0]!.body.length).toBe(KERNEL_SIZED.length);
    // The late request is not answered: the client has the FIN after the 200 and retries it.
    expect(responses).toHaveLength(1);
    expect(result).toEqual({ drained: true, cutConnections: 0 });
  });
});
