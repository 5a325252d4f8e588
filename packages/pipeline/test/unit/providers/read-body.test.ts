import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { PayloadTooLargeError } from '../../../src/core/http/errors.js';
import { readBody } from '../../../src/providers/read-body.js';
import { deferred } from '../../helpers/deferred.js';
import { bytes, rejection } from './helpers.js';

/** A readable that counts how often it was asked for data and serves `body` once. */
function probe(body: Buffer): Readable & { reads: number } {
  let served = false;
  const r = new Readable({
    read() {
      r.reads++;
      if (served) {
        this.push(null);
        return;
      }
      served = true;
      this.push(body);
    },
  }) as Readable & { reads: number };
  r.reads = 0;
  return r;
}

describe('readBody: success', () => {
  it('returns a single chunk without copying it', async () => {
    const chunk = Buffer.from('{"a":1}');
    const out = await readBody(Readable.from([chunk]), 100, chunk.length);
    expect(out).toBe(chunk);
  });

  it('concatenates several chunks in order', async () => {
    const out = await readBody(bytes('ab', 'cd', 'ef'), 100, 6);
    expect(out.toString()).toBe('abcdef');
  });

  it('accepts string and plain Uint8Array chunks from object-mode sources', async () => {
    const out = await readBody(Readable.from(['hé', new Uint8Array([33])]), 100, undefined);
    expect(out.toString()).toBe('hé!');
  });

  it('resolves an empty body', async () => {
    const out = await readBody(Readable.from([]), 100, 0);
    expect(out.length).toBe(0);
  });

  it('passes a body of exactly the limit, declared and streamed', async () => {
    expect((await readBody(bytes('12345'), 5, 5)).toString()).toBe('12345');
    expect((await readBody(bytes('12', '345'), 5, undefined)).toString()).toBe('12345');
  });

  it('resolves (empty) instead of hanging when the stream already ended', async () => {
    const r = bytes('consumed elsewhere');
    r.resume();
    await once(r, 'end');
    expect((await readBody(r, 100, undefined)).length).toBe(0);
  });
});

describe('readBody: limits', () => {
  it('rejects a declared Content-Length above the limit with 413 before reading a byte', async () => {
    const r = probe(Buffer.alloc(50));
    const err = await rejection(readBody(r, 10, 50));
    expect(err).toBeInstanceOf(PayloadTooLargeError);
    expect(err.status).toBe(413);
    expect(err.code).toBe('PIPE_BODY_TOO_LARGE');
    expect(r.reads).toBe(0);
    expect(r.readableFlowing).toBe(null); // never switched to flowing: nothing consumed
  });

  it('cuts a streamed body at the limit with 413, pausing but not destroying the source', async () => {
    const r = bytes('123', '456', '789');
    const err = await rejection(readBody(r, 5, undefined));
    expect(err.status).toBe(413);
    expect(err.code).toBe('PIPE_BODY_TOO_LARGE');
    expect(r.destroyed).toBe(false);
    expect(r.isPaused()).toBe(true);
  });

  it('survives a later error on a source it gave up on (no unhandled error event)', async () => {
    const r = bytes('123456');
    await rejection(readBody(r, 2, undefined));
    r.destroy(new Error('late failure'));
    await once(r, 'close');
    expect(r.destroyed).toBe(true);
  });
});

describe('readBody: Content-Length mismatch and errors', () => {
  it('rejects fewer bytes than declared with 400', async () => {
    const err = await rejection(readBody(bytes('abc'), 100, 5));
    expect(err.status).toBe(400);
    expect(err.code).toBe('PIPE_BODY_LENGTH_MISMATCH');
  });

  it('rejects more bytes than declared with 400', async () => {
    const err = await rejection(readBody(bytes('abcdef'), 100, 5));
    expect(err.status).toBe(400);
    expect(err.code).toBe('PIPE_BODY_LENGTH_MISMATCH');
  });

  it('rejects a Content-Length that is not a non-negative integer with 400', async () => {
    for (const bad of [Number.NaN, -1, 1.5]) {
      expect((await rejection(readBody(bytes('a'), 100, bad))).status).toBe(400);
    }
  });

  it('maps a connection reset to PIPE_CLIENT_ABORTED', async () => {
    const r = new Readable({ read() {} });
    const p = readBody(r, 100, undefined);
    r.push('partial');
    r.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    const err = await rejection(p);
    expect(err.code).toBe('PIPE_CLIENT_ABORTED');
  });

  it("maps an 'aborted' event and a silent destroy to PIPE_CLIENT_ABORTED", async () => {
    const a = new Readable({ read() {} });
    const pa = readBody(a, 100, undefined);
    a.emit('aborted');
    expect((await rejection(pa)).code).toBe('PIPE_CLIENT_ABORTED');

    const b = new Readable({ read() {} });
    const pb = readBody(b, 100, undefined);
    b.destroy();
    expect((await rejection(pb)).code).toBe('PIPE_CLIENT_ABORTED');
  });

  it('rejects at once for a stream destroyed before the call', async () => {
    const r = new Readable({ read() {} });
    r.destroy();
    await once(r, 'close');
    expect((await rejection(readBody(r, 100, undefined))).code).toBe('PIPE_CLIENT_ABORTED');
  });

  it('passes HTTP errors from upstream streams through, other errors become 400', async () => {
    const upstream = new Readable({ read() {} });
    const p1 = readBody(upstream, 100, undefined);
    const tooLarge = new PayloadTooLargeError('decoded body too large');
    upstream.destroy(tooLarge);
    expect(await rejection(p1)).toBe(tooLarge);

    const corrupt = new Readable({ read() {} });
    const p2 = readBody(corrupt, 100, undefined);
    corrupt.destroy(Object.assign(new Error('incorrect header check'), { code: 'Z_DATA_ERROR' }));
    const err = await rejection(p2);
    expect(err.status).toBe(400);
    expect(err.code).toBe('PIPE_BODY_READ_FAILED');
  });

  it('rejects chunks that are not bytes with 400 instead of throwing inside the stream', async () => {
    const err = await rejection(readBody(Readable.from([{ not: 'bytes' }]), 100, undefined));
    expect(err.status).toBe(400);
  });
});

describe('readBody over a real loopback request', () => {
  let server: Server | undefined;
  afterEach(async () => {
    if (server !== undefined) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = undefined;
    }
  });

  async function listen(onRequest: (req: IncomingMessage) => void): Promise<number> {
    server = createServer((req) => onRequest(req));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return (server.address() as AddressInfo).port;
  }

  it('reads a complete body and rejects a client that disconnects mid-body', async () => {
    const results: Promise<Buffer>[] = [];
    const started = deferred();
    const port = await listen((req) => {
      results.push(readBody(req, 1000, Number(req.headers['content-length'])));
      started.resolve();
    });
    const sock = connect(port, '127.0.0.1');
    await once(sock, 'connect');
    sock.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789');
    await started.promise;
    sock.destroy();
    const err = await rejection(results[0]);
    expect(err.code).toBe('PIPE_CLIENT_ABORTED');
  });

  it("listens to a node:http request with one 'data', one 'end' and one 'close' listener, and ignores the 'close' after the end", async () => {
    const added: Record<string, number>[] = [];
    let result!: Promise<Buffer>;
    let request!: IncomingMessage;
    const started = deferred();
    const port = await listen((req) => {
      request = req;
      const before = (e: string): number => req.listenerCount(e);
      const counts = {
        data: before('data'),
        end: before('end'),
        close: before('close'),
        error: before('error'),
        aborted: before('aborted'),
      };
      result = readBody(req, 100, Number(req.headers['content-length']));
      added.push({
        data: req.listenerCount('data') - counts.data,
        end: req.listenerCount('end') - counts.end,
        close: req.listenerCount('close') - counts.close,
        error: req.listenerCount('error') - counts.error,
        aborted: req.listenerCount('aborted') - counts.aborted,
      });
      started.resolve();
    });
    const sock = connect(port, '127.0.0.1');
    await once(sock, 'connect');
    sock.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello');
    await started.promise;
    expect(added).toEqual([{ data: 1, end: 1, close: 1, error: 0, aborted: 0 }]);
    expect((await result).toString()).toBe('hello');
    // The request auto-destroys after its end: the 'close' that follows changes nothing.
    if (!request.closed) await once(request, 'close');
    expect((await result).toString()).toBe('hello');
    sock.destroy();
  });

  it('rejects with the error a node:http request was destroyed with (an HTTP error passes, others are 400), never an unhandled error', async () => {
    // Each rejection is taken at once (rejection()), not after both requests arrived: no unhandled rejection.
    const results: Promise<Error & { status?: number; code?: string }>[] = [];
    const started = deferred();
    const errors = [new PayloadTooLargeError('upstream limit'), new Error('something broke')];
    const port = await listen((req) => {
      results.push(rejection(readBody(req, 1000, Number(req.headers['content-length']))));
      req.destroy(errors[results.length - 1]);
      if (results.length === errors.length) started.resolve();
    });
    for (let i = 0; i < errors.length; i++) {
      const sock = connect(port, '127.0.0.1');
      await once(sock, 'connect');
      sock.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789');
      sock.on('error', () => undefined);
    }
    await started.promise;
    expect(await results[0]).toBe(errors[0]);
    const other = await results[1]!;
    expect(other.status).toBe(400);
    expect(other.code).toBe('PIPE_BODY_READ_FAILED');
  });

  it('cuts a real request at the limit with 413 and pauses it', async () => {
    let result!: Promise<Buffer>;
    let request!: IncomingMessage;
    const started = deferred();
    const port = await listen((req) => {
      request = req;
      result = readBody(req, 4, undefined);
      started.resolve();
    });
    const sock = connect(port, '127.0.0.1');
    await once(sock, 'connect');
    sock.write('POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n');
    await started.promise;
    const err = await rejection(result);
    expect(err.status).toBe(413);
    expect(err.code).toBe('PIPE_BODY_TOO_LARGE');
    expect(request.isPaused()).toBe(true);
    expect(request.destroyed).toBe(false);
    sock.destroy();
  });

  it('reads an exact-length body from a real request', async () => {
    let result!: Promise<Buffer>;
    const started = deferred();
    const port = await listen((req) => {
      result = readBody(req, 10, Number(req.headers['content-length']));
      started.resolve();
    });
    const sock = connect(port, '127.0.0.1');
    await once(sock, 'connect');
    sock.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789');
    await started.promise;
    expect((await result).toString()).toBe('0123456789');
    sock.destroy();
  });
});
