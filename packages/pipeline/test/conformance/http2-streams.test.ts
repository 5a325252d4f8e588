/**
 * What docs/http2.md promises per stream, over a real HTTP/2 session (h2 over TLS and h2c, `node:http2`
 * as the client): multipart uploads on a stream and on two streams of one session at once (their
 * DATA frames interleaved, each larger than the initial flow-control window, RFC 9113 §6.9.2), the
 * deadline of one stream firing while another stream of the same session goes on and is answered
 * (docs/deadlines.md), and a stream that reaches the pipeline after close() began: the closing 503
 * without any connection-specific header (RFC 9113 §8.2.2) while the session gets GOAWAY (§6.8).
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { ClientHttp2Stream, ServerHttp2Stream, IncomingHttpHeaders as H2Headers } from 'node:http2';
import { afterEach, describe, expect, it } from 'vitest';
import { Application, Context, Deadline, GET, Path, POST, Produces, Response } from '../../src/index.js';
import { MultipartBody, MultipartFeature } from '../../src/features/multipart/index.js';
import { deferred } from '../helpers/deferred.js';
import { serve, type WireClient } from '../helpers/h2.js';
import { bytes, fieldPart, filePart, multipart, MULTIPART_TYPE } from '../helpers/multipart-bodies.js';

let heldEntered = deferred();
let heldRelease = deferred();
let heldSignal: AbortSignal | undefined;
let lateSignal = deferred<string>();

@Path('/upload')
class Upload {
  /** Every part: its name, size and SHA-256 (a part cut or mixed with another stream's shows here). */
  @POST()
  @Produces('application/json')
  async parts(body: MultipartBody): Promise<unknown> {
    const out = [];
    for await (const part of body) {
      const data = await part.buffer();
      out.push({ name: part.name, size: data.length, sha256: createHash('sha256').update(data).digest('hex') });
    }
    return out;
  }
}

@Path('/tasks')
class Work {
  /** Past its deadline: 503 PIPE_DEADLINE, its signal fired with a TimeoutError. */
  @GET('late')
  @Deadline(100)
  late(@Context() signal: AbortSignal): Promise<string> {
    return new Promise<string>((resolve) => {
      signal.addEventListener('abort', () => {
        lateSignal.resolve((signal.reason as Error).name);
        resolve('too late');
      });
    });
  }

  /** Held by the test, no deadline. */
  @GET('held')
  async held(@Context() signal: AbortSignal): Promise<unknown> {
    heldSignal = signal;
    heldEntered.resolve();
    await heldRelease.promise;
    return { held: 'done', aborted: signal.aborted };
  }

  @GET('now') now(): unknown {
    return { now: true };
  }

  /** A Date of the application's own (a replayed answer, say): kept as given. */
  @GET('dated') dated(): Response {
    return Response.ok({ dated: true }).header('date', 'Tue, 01 Jan 2030 00:00:00 GMT').build();
  }
}

const newApp = (): Application =>
  new Application({
    resources: [Upload, Work],
    providers: [new MultipartFeature({ limits: { partSize: 1 << 20, totalSize: 4 << 20 } })],
    logger: () => undefined,
  });

const CONNECTION_SPECIFIC = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade'];

interface StreamAnswer {
  status: number;
  headers: H2Headers;
  text: string;
}

/** The answer on a stream opened by the test. */
function answer(stream: ClientHttp2Stream): Promise<StreamAnswer> {
  return new Promise((resolve, reject) => {
    let headers: H2Headers = {};
    const chunks: Buffer[] = [];
    stream.on('response', (h) => {
      headers = h;
    });
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve({ status: Number(headers[':status']), headers, text: Buffer.concat(chunks).toString('utf8') }));
    stream.on('error', reject);
  });
}

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

describe.each(['h2 TLS', 'h2c'] as const)('per-stream behaviour over %s', (protocol) => {
  let app: Application;
  let client: WireClient;
  const start = async (): Promise<void> => {
    app = newApp();
    client = await serve(app, protocol);
  };
  afterEach(async () => {
    heldRelease.resolve();
    client?.close();
    await app?.close(200);
    heldEntered = deferred();
    heldRelease = deferred();
    heldSignal = undefined;
    lateSignal = deferred<string>();
  });

  it('reads a multipart upload on a stream, with and without Content-Length', async () => {
    await start();
    const file = bytes(150_000);
    const body = multipart([fieldPart('title', 'on h2'), filePart('file', file, 'f.bin', 'application/octet-stream')]);
    const expected = [
      { name: 'title', size: 5, sha256: sha256(Buffer.from('on h2')) },
      { name: 'file', size: file.length, sha256: sha256(file) },
    ];
    for (const chunked of [false, true]) {
      const res = await client.send({ method: 'POST', path: '/upload', headers: { 'content-type': MULTIPART_TYPE }, body, chunked });
      expect(res.status, `chunked: ${chunked}`).toBe(200);
      expect(res.json()).toEqual(expected);
    }
  });

  it('reads two uploads on two streams of one session at once, their DATA frames interleaved', async () => {
    await start();
    const session = client.session!;
    const files = [bytes(200_000, 1), bytes(180_000, 2)];
    const bodies = files.map((f, i) => multipart([filePart(`file${i}`, f, `f${i}.bin`, 'application/octet-stream')]));
    const streams = bodies.map((b) =>
      session.request({ ':method': 'POST', ':path': '/upload', 'content-type': MULTIPART_TYPE, 'content-length': String(b.length) }),
    );
    const answers = streams.map(answer);
    // Slices of 16 KiB, alternating between the streams, so the server reads both bodies at once.
    const slice = 16_384;
    for (let at = 0; at < Math.max(...bodies.map((b) => b.length)); at += slice) {
      for (const [i, stream] of streams.entries()) {
        const chunk = bodies[i]!.subarray(at, at + slice);
        if (chunk.length > 0 && !stream.write(chunk)) await once(stream, 'drain');
      }
    }
    for (const stream of streams) stream.end();
    const [a, b] = await Promise.all(answers);
    expect(a!.status).toBe(200);
    expect(JSON.parse(a!.text)).toEqual([{ name: 'file0', size: files[0]!.length, sha256: sha256(files[0]!) }]);
    expect(b!.status).toBe(200);
    expect(JSON.parse(b!.text)).toEqual([{ name: 'file1', size: files[1]!.length, sha256: sha256(files[1]!) }]);
  });

  it("fires one stream's deadline while another stream of the session goes on and is answered", async () => {
    await start();
    const session = client.session!;
    const held = answer(session.request({ ':path': '/tasks/held' }, { endStream: true }));
    await heldEntered.promise;
    const late = await answer(session.request({ ':path': '/tasks/late' }, { endStream: true }));
    expect(late.status).toBe(503);
    expect(late.headers['retry-after']).toBe('1');
    expect(JSON.parse(late.text)).toMatchObject({ status: 503, code: 'PIPE_DEADLINE' });
    expect(await lateSignal.promise).toBe('TimeoutError');
    // The other stream's request is untouched: its signal has not fired, the session serves on.
    expect(heldSignal?.aborted).toBe(false);
    expect((await client.send({ path: '/tasks/now' })).status).toBe(200);
    heldRelease.resolve();
    const res = await held;
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ held: 'done', aborted: false });
  });

  it('sends a Date of its own on every answer, and keeps one the application set', async () => {
    await start();
    const first = await client.send({ path: '/tasks/now' });
    const second = await client.send({ path: '/tasks/now' });
    for (const res of [first, second]) {
      expect(res.headers.date).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
      expect(Math.abs(Date.parse(String(res.headers.date)) - Date.now())).toBeLessThan(5_000);
    }
    expect((await client.send({ path: '/tasks/dated' })).headers.date).toBe('Tue, 01 Jan 2030 00:00:00 GMT');
  });

  it('answers a stream that reaches the pipeline after close() began with 503, no connection header, and GOAWAY', async () => {
    await start();
    const session = client.session!;
    // The race made deterministic: the server starts closing when the stream's HEADERS arrive,
    // before the pipeline's listener sees the request (the compatibility API's 'request' follows 'stream').
    let closing: ReturnType<Application['close']> | undefined;
    app.http2Server!.prependListener('stream', (_stream: ServerHttp2Stream, headers: H2Headers) => {
      if (headers[':path'] === '/tasks/now' && closing === undefined) closing = app.close(2000);
    });
    const goaway = once(session, 'goaway');
    const res = await answer(session.request({ ':path': '/tasks/now' }, { endStream: true }));
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(JSON.parse(res.text)).toMatchObject({ status: 503, code: 'PIPE_SHUTTING_DOWN' });
    for (const name of CONNECTION_SPECIFIC) expect(res.headers[name], name).toBeUndefined();
    const [code] = (await goaway) as [number];
    expect(code).toBe(0); // NO_ERROR
    expect(await closing).toEqual({ drained: true, cutConnections: 0 });
  });
});
