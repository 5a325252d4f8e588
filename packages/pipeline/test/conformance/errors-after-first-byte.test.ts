// Processing rules §4 / README decision 10: after the first byte nothing can be mapped; the
// connection is aborted so the client cannot take a truncated body for a complete one.
import diagnostics_channel from 'node:diagnostics_channel';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  Application,
  CHANNEL_NAMES,
  GET,
  GzipWriterInterceptor,
  MapsError,
  Path,
  Produces,
  Response,
  type ExceptionMapper,
} from '../../src/index.js';
import { deferred } from '../helpers/deferred.js';

/** The test decides when the stream fails: after the client has seen the first bytes. */
let failure = deferred();

/** Emits `head`, then fails once `failure` resolves: headers and some bytes are already out. */
function failingAfter(head: string | Buffer): Readable {
  let pushed = false;
  let armed = false;
  return new Readable({
    read() {
      if (!pushed) {
        pushed = true;
        this.push(head);
      } else if (!armed) {
        armed = true;
        void failure.promise.then(() => this.destroy(new Error('disk went away')));
      }
    },
  });
}

// Incompressible, so gzip emits compressed blocks (and the headers) before the source fails.
const NOISE = `[${JSON.stringify(randomBytes(96 * 1024).toString('base64'))},`;

@Path('/stream')
class StreamResource {
  @GET('readable') @Produces('text/plain') readable(): Readable {
    return failingAfter('partial-');
  }
  @GET('generator') @Produces('text/plain') generator(): AsyncGenerator<string> {
    return (async function* gen() {
      yield 'first-chunk-';
      await failure.promise;
      throw new Error('generator failed');
    })();
  }
  @GET('gzip') @Produces('application/json') gzip(): Readable {
    return failingAfter(NOISE);
  }
  @GET('ok') ok(): unknown {
    return { ok: true };
  }
}

let mapperCalls = 0;
@MapsError(Error)
class CatchAll implements ExceptionMapper<Error> {
  toResponse(): Response {
    mapperCalls++;
    return Response.status(500).entity({ mapped: true }).build();
  }
}

const logged: unknown[] = [];
const newApp = (): Application =>
  new Application({
    resources: [StreamResource],
    providers: [CatchAll, new GzipWriterInterceptor({ threshold: 0 })],
    logger: (e) => logged.push(e),
  });
beforeEach(() => {
  mapperCalls = 0;
  logged.length = 0;
  failure = deferred();
  failure.resolve(); // in-process: fail as soon as the head is out
});

describe('errors after the first byte (in-process)', () => {
  const app = newApp();

  it.each(['readable', 'generator'])('a %s that fails mid-body aborts the response: no mapper, status stays 200', async (kind) => {
    const r = await app.inject(`/stream/${kind}`);
    expect(r.aborted).toBe(true);
    expect(r.status).toBe(200);
    expect(r.text()).not.toContain('mapped');
    expect(mapperCalls).toBe(0);
    expect(logged).toHaveLength(1); // the cause is logged, once
  });

  it('publishes finish (with the status that was sent) but no error:mapped', async () => {
    const seen: string[] = [];
    const onFinish = (m: unknown): void => {
      seen.push(`finish:${(m as { status: number }).status}`);
    };
    const onMapped = (): void => {
      seen.push('mapped');
    };
    diagnostics_channel.subscribe(CHANNEL_NAMES.finish, onFinish);
    diagnostics_channel.subscribe(CHANNEL_NAMES.mapped, onMapped);
    try {
      expect((await app.inject('/stream/readable')).aborted).toBe(true);
    } finally {
      diagnostics_channel.unsubscribe(CHANNEL_NAMES.finish, onFinish);
      diagnostics_channel.unsubscribe(CHANNEL_NAMES.mapped, onMapped);
    }
    expect(seen).toEqual(['finish:200']);
  });

  it('keeps serving afterwards', async () => {
    const r = await app.inject('/stream/ok');
    expect([r.status, r.aborted, r.json()]).toEqual([200, false, { ok: true }]);
  });
});

describe('errors after the first byte (socket)', () => {
  const app = newApp();
  const BODY_TIMEOUT = 3000;
  const agent = new Agent({ connections: 1, keepAliveTimeout: 1000, headersTimeout: 3000, bodyTimeout: BODY_TIMEOUT });
  // undici reports the server's abort as UND_ERR_SOCKET ("other side closed"); ECONNRESET if a RST
  // wins the race. Exact codes, so UND_ERR_BODY_TIMEOUT (a server that merely stalls) cannot pass.
  const SOCKET_ABORT = /^(UND_ERR_SOCKET|ECONNRESET)$/;
  /** Well under bodyTimeout: the abort is immediate, not a timeout's doing. */
  const PROMPT_MS = BODY_TIMEOUT / 3;
  let base: string;
  beforeAll(async () => {
    base = `http://127.0.0.1:${(await app.listen(0)).port}`;
  });
  afterAll(async () => {
    await agent.close();
    await app.close(500);
  });

  /** Reads the body chunk by chunk; the source fails only once the first chunk has arrived here. */
  const fetchBroken = async (
    path: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; headers: Record<string, unknown>; received: Buffer; error: unknown; elapsedMs: number }> => {
    failure = deferred(); // pending: fails once the first chunk has arrived below
    const t0 = performance.now();
    const res = await request(`${base}${path}`, { dispatcher: agent, headers });
    const chunks: Buffer[] = [];
    let error: unknown;
    try {
      for await (const c of res.body) {
        chunks.push(Buffer.from(c as Uint8Array));
        failure.resolve();
      }
    } catch (e) {
      error = e;
    }
    return { status: res.statusCode, headers: res.headers, received: Buffer.concat(chunks), error, elapsedMs: performance.now() - t0 };
  };

  it.each(['readable', 'generator'])('a %s that fails mid-body: the client sees 200, some bytes, then a premature close', async (kind) => {
    const r = await fetchBroken(`/stream/${kind}`);
    expect(r.status).toBe(200);
    expect(r.headers['transfer-encoding']).toBe('chunked'); // no length: only the missing last chunk tells
    expect(r.error).toBeInstanceOf(Error);
    expect((r.error as { code?: string }).code).toMatch(SOCKET_ABORT);
    expect(r.elapsedMs).toBeLessThan(PROMPT_MS);
    expect(r.received.toString()).toBe(kind === 'readable' ? 'partial-' : 'first-chunk-');
    expect(mapperCalls).toBe(0);
    expect(logged).toHaveLength(1);
  });

  it('the same through the gzip writer interceptor: the compressed stream is cut, never completed', async () => {
    const r = await fetchBroken('/stream/gzip', { 'accept-encoding': 'gzip' });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(r.error).toBeInstanceOf(Error);
    expect((r.error as { code?: string }).code).toMatch(SOCKET_ABORT);
    expect(r.elapsedMs).toBeLessThan(PROMPT_MS);
    // A gzip stream was started (its magic bytes arrived), then cut: no valid end of stream.
    expect([...r.received.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    expect(() => gunzipSync(r.received)).toThrow(expect.objectContaining({ code: 'Z_BUF_ERROR', message: 'unexpected end of file' }));
    expect(mapperCalls).toBe(0);
  });

  it('keeps serving on new connections', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await request(`${base}/stream/ok`, { dispatcher: agent });
      expect([res.statusCode, await res.body.json()]).toEqual([200, { ok: true }]);
    }
  });
});
