/**
 * An early answer to a request whose body is still arriving (413 above the limit, 415, an abort):
 * the server closes the connection after it (RFC 9112 §9.6) but first keeps reading and discarding
 * what the client still sends, for a bounded time and size ("lingering close", as nginx and
 * Apache do). Closing at once with unread bytes in the kernel makes it send a reset: a client
 * still writing its body gets EPIPE/ECONNRESET, and may lose the answer itself.
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Application, Entity, Path, POST } from '../../src/index.js';

@Path('/upload')
class Upload {
  @POST() take(@Entity() body: Buffer): object {
    return { bytes: body.length };
  }
}

/** Sends a POST declaring `total` bytes, writing all of them; what came back and whether a write failed. */
async function sendAll(port: number, total: number): Promise<{ response: string; writeError: string | undefined; sent: number }> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let response = '';
  let writeError: string | undefined;
  socket.setEncoding('latin1');
  socket.on('data', (d: string) => (response += d));
  socket.on('error', (e: NodeJS.ErrnoException) => (writeError ??= e.code ?? e.message));
  const closed = once(socket, 'close');
  socket.write(`POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: ${total}\r\n\r\n`);
  const chunk = Buffer.alloc(64 * 1024, 120);
  let sent = 0;
  for (; sent < total && writeError === undefined && !socket.destroyed; sent += chunk.length) {
    const ok = socket.write(chunk);
    if (!ok) await Promise.race([once(socket, 'drain'), closed]);
  }
  if (!socket.destroyed) socket.end();
  await closed;
  return { response, writeError, sent };
}

describe('lingering close after an early answer', () => {
  it('a client writing a body far over the limit can finish writing and reads the 413', async () => {
    const app = new Application({ resources: [Upload], limits: { bodyLimit: 1024 }, logger: () => undefined });
    const { port } = await app.listen(0, '127.0.0.1');
    try {
      for (let i = 0; i < 5; i++) {
        const { response, writeError } = await sendAll(port, 4 * 1024 * 1024);
        expect(writeError).toBeUndefined();
        expect(response).toMatch(/^HTTP\/1\.1 413 /);
        expect(response).toMatch(/\r\nconnection: close\r\n/i);
        expect(response).toContain('PIPE_BODY_TOO_LARGE');
      }
    } finally {
      await app.close(1000);
    }
  });

  it('is bounded: a client that would send far more than the linger bound is cut off after it', async () => {
    const app = new Application({ resources: [Upload], limits: { bodyLimit: 1024 }, logger: () => undefined });
    const { port } = await app.listen(0, '127.0.0.1');
    try {
      const declared = 256 * 1024 * 1024;
      const { response, sent } = await sendAll(port, declared);
      expect(response).toMatch(/^HTTP\/1\.1 413 /);
      expect(sent).toBeLessThan(declared);
    } finally {
      await app.close(1000);
    }
  });
});
