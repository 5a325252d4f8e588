/**
 * The connections an application's server keeps for its graceful close and its `sendTimeout`
 * sweep (core/server/connections.ts): tracked without a second listener on the server's
 * connection event and without a `close` listener on each socket, closed ones dropped as the set
 * is read or grows. Over real sockets, and with a plain emitter for the bookkeeping.
 */
import { EventEmitter, once } from 'node:events';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Connections } from '../../src/core/server/connections.js';
import { Application, GET, Path } from '../../src/index.js';

/** One request over a new connection (no keep-alive agent); resolves with the status and the body. */
function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A server whose handler reports the listener counts its socket has, tracked or not. */
async function serve(
  tracked: boolean,
): Promise<{ port: number; connections: Connections; closeListeners: number[]; stop: () => Promise<void> }> {
  const closeListeners: number[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    closeListeners.push(req.socket.listenerCount('close'));
    res.end('ok');
  });
  const connections = new Connections();
  if (tracked) connections.track(server, 'connection');
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    connections,
    closeListeners,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}

class FakeSocket extends EventEmitter {
  destroyed = false;
}

describe('Connections', () => {
  it('keeps one connection listener on the server and adds none to the sockets; requests are served as before', async () => {
    const plain = await serve(false);
    const tracked = await serve(true);
    try {
      expect(await get(plain.port, '/')).toEqual({ status: 200, body: 'ok' });
      expect(await get(tracked.port, '/')).toEqual({ status: 200, body: 'ok' });
      expect(tracked.closeListeners).toEqual(plain.closeListeners);
      expect(tracked.connections.held).toBe(1);
    } finally {
      await plain.stop();
      await tracked.stop();
    }
  });

  it('answers the open connections only: a connection the client closed is dropped', async () => {
    const s = await serve(true);
    const client = connect(s.port, '127.0.0.1');
    try {
      await once(client, 'connect');
      // The server side has it once the request has been answered on it.
      client.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      await once(client, 'data');
      const open = [...s.connections.open()];
      expect(open).toHaveLength(1);
      const serverSide = open[0]!;
      client.destroy();
      await once(serverSide, 'close');
      expect(s.connections.open().size).toBe(0);
      expect(s.connections.held).toBe(0);
    } finally {
      client.destroy();
      await s.stop();
    }
  });

  it('drops closed connections as new ones arrive: the set holds at most twice the open ones (or 64)', () => {
    const server = new EventEmitter();
    const connections = new Connections().track(server, 'connection');
    const live: FakeSocket[] = [];
    for (let i = 0; i < 1_000; i++) {
      const s = new FakeSocket();
      server.emit('connection', s as unknown as Socket);
      if (i % 10 === 0) live.push(s);
      else s.destroyed = true;
      expect(connections.held).toBeLessThanOrEqual(Math.max(64, 2 * live.length) + 1);
    }
    expect(connections.open().size).toBe(live.length);
    expect([...connections.open()]).toEqual(live);
  });

  it("wraps the server's only listener, which still runs first and with the server as `this`", () => {
    const server = new EventEmitter();
    const seen: string[] = [];
    server.on('connection', function (this: unknown, s: FakeSocket) {
      seen.push(this === server ? 'node' : 'wrong this');
      expect(connections.open().has(s as unknown as Socket)).toBe(false);
    });
    const connections = new Connections().track(server, 'connection');
    expect(server.listenerCount('connection')).toBe(1);
    const s = new FakeSocket();
    server.emit('connection', s);
    expect(seen).toEqual(['node']);
    expect(connections.open().has(s as unknown as Socket)).toBe(true);
  });

  it('leaves a once listener alone and listens beside it', () => {
    const server = new EventEmitter();
    let calls = 0;
    server.once('connection', () => calls++);
    const connections = new Connections().track(server, 'connection');
    server.emit('connection', new FakeSocket());
    server.emit('connection', new FakeSocket());
    expect(calls).toBe(1);
    expect(connections.open().size).toBe(2);
  });

  it("an application's listen(): one listener for new connections, and close() still reaps them", async () => {
    @Path('/')
    class Hello {
      @GET() hello(): string {
        return 'hi';
      }
    }
    const app = new Application({ resources: [Hello] });
    const { port } = await app.listen(0);
    try {
      expect(app.server!.listenerCount('connection')).toBe(1);
      expect((await get(port, '/')).status).toBe(200);
    } finally {
      const result = await app.close(2_000);
      expect(result).toEqual({ drained: true, cutConnections: 0 });
    }
  });
});
