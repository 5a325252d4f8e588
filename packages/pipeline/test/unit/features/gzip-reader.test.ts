import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough, Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { WebApplicationError } from '../../../src/core/http/errors.js';
import { findClassMeta } from '../../../src/core/model/metadata.js';
import { Priorities } from '../../../src/core/util/priorities.js';
import type { ReaderInterceptorContext } from '../../../src/core/context/contracts.js';
import { ContainerRequestContext } from '../../../src/core/context/request-context.js';
import { GzipErrorCode, GzipReaderInterceptor } from '../../../src/features/content-coding/index.js';
import { tooLarge } from '../../../src/providers/body-errors.js';
import { readBody } from '../../../src/providers/read-body.js';
import { countingSource, repeated, type CountingSource } from '../../helpers/streams.js';
import { rejection as rejectionOf } from '../providers/helpers.js';

const gzipAsync = promisify(gzip);
const MiB = 1024 * 1024;

/**
 * A ReaderInterceptorContext whose proceed() plays the MessageBodyReader: the real `readBody`
 * over whatever `ctx.input` / `ctx.limit` the interceptor left. With `raw`, `input` is the
 * request itself (as in the pipeline before any interceptor replaced it), so its declared
 * Content-Length applies to it.
 */
function readCtx(
  input: Readable,
  headers: IncomingHttpHeaders,
  limit = MiB,
  raw = false,
): ReaderInterceptorContext & { proceeded: number } {
  const fakeReq = (raw ? Object.assign(input, { headers }) : { headers }) as unknown as IncomingMessage;
  const request = new ContainerRequestContext(fakeReq, {} as ServerResponse, 'POST', '/x', '', false);
  const props = new Map<string, unknown>();
  const ctx = {
    request,
    type: Object,
    mediaType: undefined,
    headers: { ...headers },
    input,
    limit,
    proceeded: 0,
    proceed(): Promise<unknown> {
      ctx.proceeded++;
      return readBody(ctx.input, ctx.limit, undefined);
    },
    getProperty: (n: string) => props.get(n),
    setProperty: (n: string, v: unknown) => {
      props.set(n, v);
    },
  };
  return ctx;
}

async function read(interceptor: GzipReaderInterceptor, ctx: ReaderInterceptorContext): Promise<Buffer> {
  return (await interceptor.aroundReadFrom(ctx)) as Buffer;
}

/** The rejection of `p`, which must be a WebApplicationError: an HTTP answer, not a crash. */
async function rejection(p: unknown): Promise<WebApplicationError> {
  const e = await rejectionOf(p);
  expect(e).toBeInstanceOf(WebApplicationError);
  return e as WebApplicationError;
}

async function drain(stream: Readable): Promise<number> {
  let n = 0;
  for await (const c of stream) n += (c as Buffer).length;
  return n;
}

const json = JSON.stringify({ email: 'a@example.com', firstName: 'Ada', lastName: 'Lovelace' });

describe('GzipReaderInterceptor', () => {
  it('runs at ENTITY_CODER', () => {
    expect(findClassMeta(GzipReaderInterceptor)?.priority).toBe(Priorities.ENTITY_CODER);
  });

  it.each(['gzip', 'x-gzip', 'GZIP', ' gzip ', 'identity, gzip'])(
    'decodes Content-Encoding %j and hides the encoded length from the reader',
    async (coding) => {
      const gz = await gzipAsync(json);
      const ctx = readCtx(Readable.from([gz]), { 'content-encoding': coding, 'content-length': String(gz.length) });
      const body = await read(new GzipReaderInterceptor(), ctx);
      expect(body.toString()).toBe(json);
      expect(ctx.proceeded).toBe(1);
      expect(ctx.headers['content-encoding']).toBeUndefined();
      expect(ctx.headers['content-length']).toBeUndefined();
    },
  );

  it('decodes a body that arrives in many small chunks', async () => {
    const gz = await gzipAsync(json.repeat(50));
    const chunks = Array.from({ length: Math.ceil(gz.length / 7) }, (_, i) => gz.subarray(i * 7, i * 7 + 7));
    const body = await read(new GzipReaderInterceptor(), readCtx(countingSource(chunks), { 'content-encoding': 'gzip' }));
    expect(body.toString()).toBe(json.repeat(50));
  });

  it.each([undefined, '', 'identity'])('passes Content-Encoding %j through untouched', async (coding) => {
    const input = Readable.from([Buffer.from(json)]);
    const headers: IncomingHttpHeaders = coding === undefined ? {} : { 'content-encoding': coding };
    const ctx = readCtx(input, { ...headers, 'content-length': String(json.length) });
    const body = await read(new GzipReaderInterceptor(), ctx);
    expect(body.toString()).toBe(json);
    expect(ctx.input).toBe(input);
    expect(ctx.headers['content-length']).toBe(String(json.length));
  });

  it.each(['br', 'deflate', 'zstd', 'deflate, gzip', 'gzip, gzip', 'compress'])(
    'answers 415 with Accept-Encoding: gzip for Content-Encoding %j (RFC 9110 §15.5.16)',
    async (coding) => {
      const ctx = readCtx(Readable.from([Buffer.from('x')]), { 'content-encoding': coding });
      const err = await rejection((async () => new GzipReaderInterceptor().aroundReadFrom(ctx))());
      expect(err.status).toBe(415);
      expect(err.code).toBe(GzipErrorCode.UnsupportedEncoding);
      expect(err.headers['accept-encoding']).toBe('gzip');
      expect(ctx.proceeded).toBe(0);
    },
  );

  it('bounds the coding echoed in the 415 message', async () => {
    const ctx = readCtx(Readable.from([Buffer.from('x')]), { 'content-encoding': 'x'.repeat(5000) });
    const err = await rejection((async () => new GzipReaderInterceptor().aroundReadFrom(ctx))());
    expect(err.message.length).toBeLessThan(100);
  });

  it('answers 400 for data that is not gzip', async () => {
    const ctx = readCtx(Readable.from([Buffer.from('definitely not gzip')]), { 'content-encoding': 'gzip' });
    const err = await rejection(new GzipReaderInterceptor().aroundReadFrom(ctx));
    expect(err.status).toBe(400);
    expect(err.code).toBe(GzipErrorCode.Corrupt);
  });

  it('answers 400 for truncated gzip and for a bad checksum', async () => {
    const gz = await gzipAsync(json);
    const truncated = readCtx(Readable.from([gz.subarray(0, gz.length - 10)]), { 'content-encoding': 'gzip' });
    expect((await rejection(new GzipReaderInterceptor().aroundReadFrom(truncated))).status).toBe(400);
    const bad = Buffer.from(gz);
    bad[bad.length - 8] = (bad[bad.length - 8]! + 1) & 0xff; // CRC32 in the trailer
    const corrupt = readCtx(Readable.from([bad]), { 'content-encoding': 'gzip' });
    expect((await rejection(new GzipReaderInterceptor().aroundReadFrom(corrupt))).code).toBe(GzipErrorCode.Corrupt);
  });

  describe('gzip bombs (the Fastify body-limit contract)', () => {
    it('10 MB of zeros with a 1 MB limit: 413, no more than the limit is inflated, the request survives', async () => {
      const bomb = await gzipAsync(Buffer.alloc(10 * MiB));
      expect(bomb.length).toBeLessThan(20 * 1024);
      const input = countingSource([bomb], false);
      const ctx = readCtx(input, { 'content-encoding': 'gzip', 'content-length': String(bomb.length) }, MiB);
      const decoded = { bytes: 0 };
      const interceptor = new GzipReaderInterceptor();
      const proceed = ctx.proceed.bind(ctx);
      // Observe what the decoder hands the reader.
      ctx.proceed = () => {
        ctx.input.on('data', (c: Buffer) => {
          decoded.bytes += c.length;
        });
        return proceed();
      };
      const err = await rejection(interceptor.aroundReadFrom(ctx));
      expect(err.status).toBe(413);
      expect(err.code).toBe('PIPE_BODY_TOO_LARGE');
      expect(decoded.bytes).toBeLessThanOrEqual(MiB);
      expect(ctx.input.destroyed).toBe(true); // the decoder stopped
      // The request itself is only unpiped and paused, never destroyed: destroying an
      // IncomingMessage kills the socket and the 413 could not be sent.
      expect(input.destroyed).toBe(false);
      expect(input.isPaused()).toBe(true);
      expect(input.listenerCount('data')).toBe(0); // unpiped: nothing more reaches the decoder
    });

    it('an endless bomb: reading the compressed input stops shortly after the limit', async () => {
      const member = await gzipAsync(Buffer.alloc(MiB)); // ~1 KB each, gzip allows concatenated members
      const members = Array.from({ length: 10_000 }, () => member); // 10 GB if inflated
      const input = countingSource(members);
      const ctx = readCtx(input, { 'content-encoding': 'gzip' }, 4 * MiB);
      // A reader without a limit of its own: only the interceptor stands in the way.
      ctx.proceed = () => drain(ctx.input);
      const err = await rejection(new GzipReaderInterceptor().aroundReadFrom(ctx));
      expect(err.status).toBe(413);
      // 4 members fill the limit; stream buffers may hold a few dozen more, never thousands.
      expect(input.pulled()).toBeLessThan(100);
      expect(input.destroyed).toBe(false);
    });

    it('maxDecodedBytes overrides the reader limit and becomes the reader limit', async () => {
      const twoMiB = await gzipAsync(Buffer.alloc(2 * MiB, 0x61));
      const small = readCtx(Readable.from([twoMiB]), { 'content-encoding': 'gzip' }, 10 * MiB);
      expect((await rejection(new GzipReaderInterceptor({ maxDecodedBytes: MiB }).aroundReadFrom(small))).status).toBe(413);
      const large = readCtx(Readable.from([twoMiB]), { 'content-encoding': 'gzip' }, 64 * 1024);
      const body = await read(new GzipReaderInterceptor({ maxDecodedBytes: 3 * MiB }), large);
      expect(body.length).toBe(2 * MiB);
      expect(large.limit).toBe(3 * MiB);
    });

    it('a body of exactly the limit passes', async () => {
      const gz = await gzipAsync(Buffer.alloc(MiB, 0x62));
      const body = await read(new GzipReaderInterceptor(), readCtx(Readable.from([gz]), { 'content-encoding': 'gzip' }, MiB));
      expect(body.length).toBe(MiB);
    });

    it('caps the compressed bytes at the original limit (empty gzip members decode to nothing)', async () => {
      const empty = await gzipAsync(Buffer.alloc(0)); // 20 bytes, 0 decoded
      const input = countingSource(Array.from({ length: 5000 }, () => empty)); // 100 KB in
      const ctx = readCtx(input, { 'content-encoding': 'gzip' }, 16 * 1024);
      const err = await rejection(new GzipReaderInterceptor({ maxDecodedBytes: MiB }).aroundReadFrom(ctx));
      expect(err.status).toBe(413);
      expect(input.pulled()).toBeLessThan(5000);
    });
  });

  describe('the declared Content-Length of the compressed body (the raw-body contract)', () => {
    /** Valid gzip without end (empty members, bounded, never ended), counted: only a limit can stop reading it. */
    const endless = async (): Promise<CountingSource> => countingSource(repeated(await gzipAsync(Buffer.alloc(0)), 100_000), false);

    it('above ctx.limit: 413 with the raw-body error before a byte is read, the reader never runs', async () => {
      const input = await endless();
      const ctx = readCtx(input, { 'content-encoding': 'gzip', 'content-length': String(64 * 1024 + 1) }, 64 * 1024, true);
      const err = await rejection((async () => new GzipReaderInterceptor({ maxDecodedBytes: MiB }).aroundReadFrom(ctx))());
      const raw = tooLarge(64 * 1024);
      expect([err.status, err.code, err.message]).toEqual([raw.status, raw.code, raw.message]);
      expect(input.pulled()).toBe(0);
      expect(ctx.proceeded).toBe(0);
      // ctx untouched: nothing was piped, the limit and headers are the request's
      expect(ctx.input).toBe(input);
      expect(ctx.limit).toBe(64 * 1024);
      expect(ctx.headers['content-encoding']).toBe('gzip');
      expect(input.listenerCount('data')).toBe(0);
    });

    it('at exactly ctx.limit the body is read', async () => {
      const gz = await gzipAsync(json);
      const input = countingSource([gz]);
      const ctx = readCtx(input, { 'content-encoding': 'gzip', 'content-length': String(gz.length) }, gz.length, true);
      const body = await read(new GzipReaderInterceptor({ maxDecodedBytes: MiB }), ctx);
      expect(body.toString()).toBe(json);
    });

    it('the compressed bytes are held to ctx.limit, not maxDecodedBytes: a declared length between the two is read', async () => {
      // Incompressible bytes: the gzip form is longer than the decoded form.
      const bytes = randomBytes(1000);
      const gz = await gzipAsync(bytes);
      expect(gz.length).toBeGreaterThan(bytes.length);
      const ctx = readCtx(countingSource([gz]), { 'content-encoding': 'gzip', 'content-length': String(gz.length) }, 64 * 1024, true);
      const body = await read(new GzipReaderInterceptor({ maxDecodedBytes: bytes.length }), ctx);
      expect(body.equals(bytes)).toBe(true);
    });

    it('counts only while the input is the raw request (an earlier interceptor replaced it)', async () => {
      const gz = await gzipAsync(json);
      const ctx = readCtx(Readable.from([gz]), { 'content-encoding': 'gzip', 'content-length': String(10 * MiB) }, MiB);
      const body = await read(new GzipReaderInterceptor(), ctx);
      expect(body.toString()).toBe(json);
    });

    it.each([
      ['shorter', 5],
      ['longer', -5],
    ])('compressed bytes %s than declared: 400 PIPE_BODY_LENGTH_MISMATCH', async (_name, delta) => {
      const gz = await gzipAsync(json);
      const ctx = readCtx(countingSource([gz]), { 'content-encoding': 'gzip', 'content-length': String(gz.length + delta) }, MiB, true);
      const err = await rejection(new GzipReaderInterceptor().aroundReadFrom(ctx));
      expect(err.status).toBe(400);
      expect(err.code).toBe('PIPE_BODY_LENGTH_MISMATCH');
    });
  });

  it('passes a client abort on the request stream on to the reader', async () => {
    const gz = await gzipAsync(json.repeat(100));
    const input = new PassThrough();
    const ctx = readCtx(input, { 'content-encoding': 'gzip' });
    const pending = new GzipReaderInterceptor().aroundReadFrom(ctx);
    input.write(gz.subarray(0, 20));
    input.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    const err = await rejection(pending);
    expect(err.status).toBe(400);
    expect(err.code).toBe('PIPE_CLIENT_ABORTED');
  });

  it('rejects an invalid maxDecodedBytes when constructed', () => {
    expect(() => new GzipReaderInterceptor({ maxDecodedBytes: -1 })).toThrow(RangeError);
    expect(() => new GzipReaderInterceptor({ maxDecodedBytes: Number.NaN })).toThrow(RangeError);
  });
});
