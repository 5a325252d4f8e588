// ContentEncodingFeature over both transports and over curl (docs/compression.md): the response
// coding chosen by Accept-Encoding q-values with the server's preference zstd > br > gzip (RFC 9110
// §12.5.3), request bodies decoded in each coding under the same bomb bounds (a tiny bomb per
// coding, made here with node:zlib), 415 with Accept-Encoding for any other coding (§15.5.16), and
// the coded variants' entity tags with If-None-Match / If-Match. zstd cases run only where this
// Node's node:zlib has zstd (22.15+, 23.8+) and are skipped, by name, elsewhere.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import * as zlib from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  Application,
  AVAILABLE_CONTENT_CODINGS,
  ContainerRequestContext,
  ContentEncodingFeature,
  Context,
  Entity,
  EntityTag,
  GET,
  Path,
  POST,
  Produces,
  PUT,
  Response,
  ZSTD_AVAILABLE,
  type ContentCoding,
} from '../../src/index.js';
import { GzipResponseDecoder, type ClientRequestContext, type ClientResponse, type ClientResponseFilter } from '../../src/client/index.js';
import { CLIENT_TRANSPORTS, serveForClients } from '../helpers/client-transports.js';
import { serveForSuite, TRANSPORTS, type TestResponse, type Transport } from '../helpers/transports.js';

const run = promisify(execFile);
const LIMIT = 16 * 1024;
const MAX_DECODED = 256 * 1024;
const users = Array.from({ length: 200 }, (_, i) => ({ id: i + 1, email: `user${i}@example.com`, firstName: 'Ann', age: 20 + (i % 50) }));
let methodCalls = 0;
let version = 1;

/** The codings under test: zstd only where this Node has it. */
const CODINGS: readonly ContentCoding[] = ['gzip', 'br', 'zstd'];
const skipped = (coding: ContentCoding): boolean => coding === 'zstd' && !ZSTD_AVAILABLE;

/** zstd's options (Node 20's types have none): parameters by number. */
interface ZstdOptions {
  params?: Record<number, number>;
}

/** zstd's one-shot functions, absent from Node 20's types (and runtime). */
const zstdSync = (name: 'zstdCompressSync' | 'zstdDecompressSync'): ((input: Buffer, options?: ZstdOptions) => Buffer) => {
  const fn: unknown = Reflect.get(zlib, name);
  if (typeof fn !== 'function') throw new Error(`node:zlib has no ${name} here`);
  return (input, options) => fn(input, options) as Buffer;
};

function compress(coding: ContentCoding, input: Buffer | string, options: ZstdOptions = {}): Buffer {
  const bytes = Buffer.from(input);
  if (coding === 'gzip') return zlib.gzipSync(bytes);
  if (coding === 'br') return zlib.brotliCompressSync(bytes);
  return zstdSync('zstdCompressSync')(bytes, options);
}

function decompress(coding: string | string[] | undefined, bytes: Buffer): Buffer {
  if (coding === undefined) return bytes;
  if (coding === 'gzip') return zlib.gunzipSync(bytes);
  if (coding === 'br') return zlib.brotliDecompressSync(bytes);
  if (coding === 'zstd') return zstdSync('zstdDecompressSync')(bytes);
  throw new Error(`unexpected Content-Encoding ${String(coding)}`);
}

const decoded = (r: TestResponse): unknown => JSON.parse(decompress(r.headers['content-encoding'], r.body).toString('utf8'));

@Path('/cc')
class Coded {
  @GET() @Produces('application/json') list(): unknown {
    return users;
  }

  /** A stream of JSON (length unknown): compressed through the streaming encoder. */
  @GET('stream') @Produces('application/json') stream(): Readable {
    return Readable.from([
      Buffer.from('['),
      ...users.map((u, i) => Buffer.from(`${i === 0 ? '' : ','}${JSON.stringify(u)}`)),
      Buffer.from(']'),
    ]);
  }

  @POST()
  @Produces('application/json')
  create(@Entity() body: Record<string, unknown>): unknown {
    methodCalls++;
    return { keys: Object.keys(body).length };
  }

  /** A versioned document: strong tag `"v<version>"`, preconditions by the identity tag only. */
  @GET('doc') @Produces('application/json') doc(@Context() ctx: ContainerRequestContext): Response {
    const tag = new EntityTag(`v${version}`);
    const stop = ctx.evaluatePreconditions({ tag });
    return stop ?? Response.ok(users).tag(tag).build();
  }

  @PUT('doc') @Produces('application/json') update(@Context() ctx: ContainerRequestContext): Response {
    const stop = ctx.evaluatePreconditions({ tag: new EntityTag(`v${version}`) });
    if (stop !== undefined) return stop;
    version++;
    return Response.ok(users)
      .tag(new EntityTag(`v${version}`))
      .build();
  }
}

const build = (): Application =>
  new Application({
    resources: [Coded],
    providers: [new ContentEncodingFeature({ maxDecodedBytes: MAX_DECODED })],
    limits: { bodyLimit: LIMIT },
    logger: () => undefined,
  });

describe.each(TRANSPORTS)('ContentEncodingFeature (%s)', (transport: Transport) => {
  const send = serveForSuite(transport, build);
  beforeEach(() => {
    methodCalls = 0;
    version = 1;
  });

  describe('Accept-Encoding negotiation (RFC 9110 §12.5.3)', () => {
    // [header, the coding with zstd available, the coding without]
    it.each<[string, string | undefined, string | undefined]>([
      ['gzip, deflate, br, zstd', 'zstd', 'br'],
      ['gzip, deflate, br', 'br', 'br'],
      ['gzip', 'gzip', 'gzip'],
      ['br', 'br', 'br'],
      ['zstd', 'zstd', undefined],
      ['*', 'zstd', 'br'],
      ['br;q=0, *', 'zstd', 'gzip'],
      ['zstd;q=0.5, br;q=0.8, gzip;q=0.9', 'gzip', 'gzip'],
      ['zstd;q=0.9, br;q=0.9, gzip', 'gzip', 'gzip'],
      ['zstd, br;q=0.5', 'zstd', 'br'],
      ['ZSTD;Q=0.1, BR;Q=0.2', 'br', 'br'],
      ['gzip;q=0.5, identity', undefined, undefined],
      ['br, identity;q=0.5', 'br', 'br'],
      ['*;q=0', undefined, undefined],
      ['identity;q=0, *;q=0', undefined, undefined],
      ['deflate, compress', undefined, undefined],
      ['', undefined, undefined],
    ])('%j -> %s (without zstd: %s), Vary either way, the same JSON', async (header, withZstd, withoutZstd) => {
      const r = await send({ url: '/cc', headers: { 'accept-encoding': header } });
      expect(r.status).toBe(200);
      expect(r.headers['content-encoding']).toBe(ZSTD_AVAILABLE ? withZstd : withoutZstd);
      expect(r.headers.vary).toBe('Accept-Encoding');
      expect(decoded(r)).toEqual(users);
    });

    it('no Accept-Encoding: identity', async () => {
      const r = await send('/cc');
      expect(r.headers['content-encoding']).toBeUndefined();
      expect(r.headers.vary).toBe('Accept-Encoding');
      expect(r.json()).toEqual(users);
    });

    it.each(CODINGS.filter((c) => !skipped(c)))('%s: a streamed body is compressed through the streaming encoder', async (coding) => {
      const r = await send({ url: '/cc/stream', headers: { 'accept-encoding': coding } });
      expect(r.headers['content-encoding']).toBe(coding);
      expect(r.headers['content-length']).toBeUndefined();
      expect(decoded(r)).toEqual(users);
    });
  });

  describe.each(CODINGS)('%s request bodies', (coding) => {
    const headers = (length: number): Record<string, string> => ({
      'content-type': 'application/json',
      'content-encoding': coding,
      'content-length': String(length),
    });

    it.skipIf(skipped(coding))('decoded before the reader, past bodyLimit up to maxDecodedBytes', async () => {
      const body = compress(coding, JSON.stringify({ a: 1, b: 'x'.repeat(LIMIT * 4) }));
      expect(body.length).toBeLessThan(LIMIT);
      const r = await send({ method: 'POST', url: '/cc', headers: headers(body.length), body });
      expect(r.status).toBe(200);
      expect(r.json()).toEqual({ keys: 2 });
      expect(methodCalls).toBe(1);
    });

    it.skipIf(skipped(coding))('a bomb: 413 while decoding, at maxDecodedBytes', async () => {
      const bomb = compress(coding, Buffer.alloc(10 * MAX_DECODED, 0x20));
      expect(bomb.length).toBeLessThan(LIMIT);
      const r = await send({ method: 'POST', url: '/cc', headers: headers(bomb.length), body: bomb });
      expect(r.status).toBe(413);
      expect(r.json()).toMatchObject({ status: 413, code: 'PIPE_BODY_TOO_LARGE' });
      expect(r.text).toContain(String(MAX_DECODED));
      expect(methodCalls).toBe(0);
    });

    it.skipIf(skipped(coding))('a declared Content-Length over bodyLimit: 413 before reading', async () => {
      const r = await send({ method: 'POST', url: '/cc', headers: headers(LIMIT + 1), body: Buffer.alloc(LIMIT + 1) });
      expect(r.status).toBe(413);
      expect(r.json()).toMatchObject({ code: 'PIPE_BODY_TOO_LARGE' });
      expect(methodCalls).toBe(0);
    });

    it.skipIf(skipped(coding))('corrupt and truncated bodies: 400 with the coding error code', async () => {
      const code = coding === 'gzip' ? 'PIPE_GZIP_CORRUPT' : 'PIPE_CONTENT_CODING_CORRUPT';
      const good = compress(coding, JSON.stringify({ a: 1, pad: 'y'.repeat(2000) }));
      const corrupt = Buffer.from(good);
      corrupt.fill(0x55, 4, 12);
      for (const body of [good.subarray(0, good.length - 4), corrupt]) {
        const r = await send({ method: 'POST', url: '/cc', headers: headers(body.length), body });
        expect(r.status).toBe(400);
        expect(r.json()).toMatchObject({ status: 400, code });
      }
      expect(methodCalls).toBe(0);
    });
  });

  it.skipIf(!ZSTD_AVAILABLE)('a zstd frame asking for a window above 8 MB (RFC 9659 §3): 400, nothing allocated for it', async () => {
    // Level 1 with a 64 MB window (windowLog 26): the frame header declares it whatever the content.
    const windowLog: unknown = Reflect.get(zlib.constants, 'ZSTD_c_windowLog');
    expect(typeof windowLog).toBe('number');
    const body = compress('zstd', Buffer.alloc(16 << 20, 0x61), { params: { [windowLog as number]: 26 } });
    const r = await send({
      method: 'POST',
      url: '/cc',
      headers: { 'content-type': 'application/json', 'content-encoding': 'zstd', 'content-length': String(body.length) },
      body,
    });
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ code: 'PIPE_CONTENT_CODING_CORRUPT' });
  });

  it.each(['deflate', 'compress', 'gzip, br', 'br, br', ...(ZSTD_AVAILABLE ? [] : ['zstd'])])(
    'Content-Encoding %j: 415 with Accept-Encoding listing the codings accepted',
    async (coding) => {
      const r = await send({
        method: 'POST',
        url: '/cc',
        headers: { 'content-type': 'application/json', 'content-encoding': coding },
        body: '{}',
      });
      expect(r.status).toBe(415);
      expect(r.headers['accept-encoding']).toBe(AVAILABLE_CONTENT_CODINGS.join(', '));
      expect(r.json()).toMatchObject({ status: 415, code: 'PIPE_UNSUPPORTED_CONTENT_ENCODING' });
      expect(methodCalls).toBe(0);
    },
  );

  describe.each(CODINGS)('entity tags of the %s variant', (coding) => {
    it.skipIf(skipped(coding))('the tag has the coding suffix; If-None-Match with it is 304 with that tag', async () => {
      const ok = await send({ url: '/cc/doc', headers: { 'accept-encoding': coding } });
      expect(ok.headers['content-encoding']).toBe(coding);
      expect(ok.headers.etag).toBe(`"v1-${coding}"`);
      const notModified = await send({ url: '/cc/doc', headers: { 'accept-encoding': coding, 'if-none-match': `"v1-${coding}"` } });
      expect(notModified.status).toBe(304);
      expect(notModified.headers.etag).toBe(`"v1-${coding}"`);
      expect(notModified.headers.vary).toBe('Accept-Encoding');
      // The identity tag names the same resource state: 304 too, with the identity tag.
      const identity = await send({ url: '/cc/doc', headers: { 'if-none-match': '"v1"' } });
      expect([identity.status, identity.headers.etag]).toEqual([304, '"v1"']);
    });

    it.skipIf(skipped(coding))('If-Match with the coded tag passes; a stale coded tag is 412', async () => {
      const put = await send({ method: 'PUT', url: '/cc/doc', headers: { 'accept-encoding': coding, 'if-match': `"v1-${coding}"` } });
      expect(put.status).toBe(200);
      expect(put.headers.etag).toBe(`"v2-${coding}"`);
      const stale = await send({ method: 'PUT', url: '/cc/doc', headers: { 'accept-encoding': coding, 'if-match': `"v1-${coding}"` } });
      expect(stale.status).toBe(412);
    });
  });
});

describe.each(CODINGS)('%s request bodies without a declared length', (coding) => {
  const application = build();
  let port = 0;
  beforeAll(async () => {
    ({ port } = await application.listen(0, '127.0.0.1'));
  });
  afterAll(() => application.close(2000));
  beforeEach(() => {
    methodCalls = 0;
  });
  // Random bytes do not compress: the encoded body itself is over bodyLimit, and only the count of
  // encoded bytes as they arrive can stop it (no Content-Length to refuse up front).
  const body = (): Buffer => compress(coding, randomBytes(4 * LIMIT));
  const headers = { 'content-type': 'application/json', 'content-encoding': coding };

  it.skipIf(skipped(coding))('in-process: encoded bytes past bodyLimit are 413', async () => {
    const encoded = body();
    expect(encoded.length).toBeGreaterThan(LIMIT);
    const r = await application.inject({ method: 'POST', url: '/cc', headers, body: Readable.from([encoded]) });
    expect(r.status).toBe(413);
    expect(r.json()).toMatchObject({ code: 'PIPE_BODY_TOO_LARGE' });
    expect(methodCalls).toBe(0);
  });

  it.skipIf(skipped(coding))('over a socket, chunked: encoded bytes past bodyLimit are 413', async () => {
    const r = await request(`http://127.0.0.1:${port}/cc`, { method: 'POST', headers, body: Readable.from([body()]) });
    expect(r.statusCode).toBe(413);
    expect(await r.body.json()).toMatchObject({ code: 'PIPE_BODY_TOO_LARGE' });
    expect(methodCalls).toBe(0);
  });
});

@Path('/cc')
@Produces('application/json')
abstract class CodedContract {
  @GET() list(): Promise<typeof users> {
    return unused();
  }
  @GET('stream') stream(): Promise<typeof users> {
    return unused();
  }
}
const unused = (): never => {
  throw new Error('contract method');
};

describe.each(CLIENT_TRANSPORTS)('the typed client with GzipResponseDecoder (%s)', (transport) => {
  const suite = serveForClients(transport, build);
  const seen: Array<string | undefined> = [];
  class SeenEncoding implements ClientResponseFilter {
    filterClientResponse(_req: ClientRequestContext, res: ClientResponse): void {
      seen.push(res.getHeader('content-encoding'));
    }
  }
  beforeEach(() => {
    seen.length = 0;
  });

  it('asks for every coding this Node decodes and decodes the preferred one', async () => {
    const api = suite.client({ providers: [new GzipResponseDecoder(), new SeenEncoding()] }).proxy(CodedContract);
    expect(await api.list()).toEqual(users);
    expect(await api.stream()).toEqual(users);
    const preferred = ZSTD_AVAILABLE ? 'zstd' : 'br';
    expect(seen).toEqual([preferred, preferred]);
  });

  it.each(CODINGS.filter((c) => !skipped(c)))('codings: [%s] asks for that coding alone and decodes it', async (coding) => {
    const api = suite.client({ providers: [new GzipResponseDecoder({ codings: [coding] }), new SeenEncoding()] }).proxy(CodedContract);
    expect(await api.list()).toEqual(users);
    expect(seen).toEqual([coding]);
  });

  it.each(CODINGS.filter((c) => !skipped(c)))('%s: decoded bytes past maxDecodedBytes are CLIENT_RESPONSE_TOO_LARGE', async (coding) => {
    const api = suite
      .client({ providers: [new GzipResponseDecoder({ codings: [coding], maxDecodedBytes: 4096 })], maxResponseBytes: 1 << 20 })
      .proxy(CodedContract);
    await expect(api.list()).rejects.toMatchObject({ code: 'CLIENT_RESPONSE_TOO_LARGE' });
  });
});

describe('ContentEncodingFeature over curl', () => {
  let base = '';
  let tmp = '';
  const application = build();
  beforeAll(async () => {
    const { port } = await application.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${port}`;
    tmp = await mkdtemp(join(tmpdir(), 'content-coding-'));
  });
  afterAll(async () => {
    await application.close(2000);
    await rm(tmp, { recursive: true, force: true });
  });

  /** Status, headers (lower-cased names) and the body curl wrote (decoded when --compressed). */
  async function curl(...args: string[]): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    const { stdout } = await run('curl', ['-s', '-D', '-', '--max-time', '5', ...args], { encoding: 'utf8', maxBuffer: 1 << 24 });
    const split = stdout.indexOf('\r\n\r\n');
    const [statusLine = '', ...lines] = stdout.slice(0, split).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const i = line.indexOf(':');
      if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
    }
    return { status: Number(statusLine.split(' ')[1]), headers, body: stdout.slice(split + 4) };
  }

  it('--compressed: curl advertises what it decodes, gets the preferred coding and decodes it', async () => {
    const r = await curl('--compressed', `${base}/cc`);
    expect(r.status).toBe(200);
    // This curl is built with zlib, brotli and zstd (curl --version), so it offers all three.
    expect(r.headers['content-encoding']).toBe(ZSTD_AVAILABLE ? 'zstd' : 'br');
    expect(JSON.parse(r.body)).toEqual(users);
  });

  describe.each(CODINGS)('%s', (coding) => {
    it.skipIf(skipped(coding))('-H "Accept-Encoding: <coding>" --compressed: that coding, decoded by curl', async () => {
      const r = await curl('--compressed', '-H', `Accept-Encoding: ${coding}`, `${base}/cc`);
      expect(r.headers['content-encoding']).toBe(coding);
      expect(r.headers.vary).toBe('Accept-Encoding');
      expect(JSON.parse(r.body)).toEqual(users);
    });

    it.skipIf(skipped(coding))('a request body in the coding sent by curl is decoded; a truncated one is 400', async () => {
      const body = compress(coding, JSON.stringify({ a: 1, b: 2, c: 'x'.repeat(5000) }));
      await writeFile(join(tmp, `${coding}.ok`), body);
      await writeFile(join(tmp, `${coding}.bad`), body.subarray(0, body.length - 5));
      const post = (file: string) =>
        curl(
          '-H',
          'Content-Type: application/json',
          '-H',
          `Content-Encoding: ${coding}`,
          '--data-binary',
          `@${join(tmp, file)}`,
          `${base}/cc`,
        );
      const ok = await post(`${coding}.ok`);
      expect([ok.status, JSON.parse(ok.body)]).toEqual([200, { keys: 3 }]);
      const bad = await post(`${coding}.bad`);
      expect(bad.status).toBe(400);
      expect(JSON.parse(bad.body)).toMatchObject({ code: coding === 'gzip' ? 'PIPE_GZIP_CORRUPT' : 'PIPE_CONTENT_CODING_CORRUPT' });
    });
  });
});
