/**
 * Two content-coding features on one application would both run on every request (a 304 gets
 * two ETag suffixes, the first reader interceptor refuses a coding only the second decodes):
 * `build()` refuses the combination with `PIPELINE_PROVIDER_CONFLICT` naming both classes and the
 * fix (docs/compression.md), so `inject()` and `listen()` fail before any request, and nothing
 * listens. One coder per direction stays allowed.
 */
import 'reflect-metadata';
import { connect, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  Application,
  ContentCodingTagFilter,
  ContentEncodingFeature,
  ContentEncodingReaderInterceptor,
  ContentEncodingWriterInterceptor,
  GET,
  GzipFeature,
  GzipWriterInterceptor,
  ModelValidationError,
  Path,
  Produces,
} from '../../src/index.js';

@Path('/items')
class Items {
  @GET() @Produces('application/json') list(): unknown {
    return Array.from({ length: 100 }, (_, i) => ({ id: i, name: `item ${i}` }));
  }
}

const app = (...providers: object[]): Application => new Application({ resources: [Items], providers, logger: () => undefined });

/** The problems `build()` threw, as [code, message]. */
function problemsOf(a: Application): Array<[string, string]> {
  try {
    a.build();
  } catch (e) {
    expect(e).toBeInstanceOf(ModelValidationError);
    return (e as ModelValidationError).problems.map((p) => [p.code, p.message]);
  }
  throw new Error('build() accepted the application');
}

/** A port nothing listens on (bound by the OS, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('two content-coding features', () => {
  it('ContentEncodingFeature with GzipFeature: one problem naming both classes and the fix', () => {
    const problems = problemsOf(app(new ContentEncodingFeature(), new GzipFeature()));
    expect(problems).toEqual([
      ['PIPELINE_PROVIDER_CONFLICT', expect.stringContaining('ContentEncodingFeature and GzipFeature are both registered')],
    ]);
    expect(problems[0]![1]).toMatch(/two ETag suffixes/);
    expect(problems[0]![1]).toContain(
      "Register only one: ContentEncodingFeature alone covers what GzipFeature does (codings: ['gzip'] for gzip only)",
    );
  });

  it('in either order, and two ContentEncodingFeatures too', () => {
    expect(problemsOf(app(new GzipFeature(), new ContentEncodingFeature()))[0]![1]).toMatch(
      /^GzipFeature and ContentEncodingFeature are both/,
    );
    const twice = problemsOf(app(new ContentEncodingFeature({ codings: ['gzip'] }), new ContentEncodingFeature()));
    expect(twice).toEqual([
      [
        'PIPELINE_PROVIDER_CONFLICT',
        expect.stringMatching(/^ContentEncodingFeature and ContentEncodingFeature \(the same class registered twice\)/),
      ],
    ]);
  });

  it('a standalone coder of the same direction as a feature conflicts with it', () => {
    const problems = problemsOf(app(new ContentEncodingFeature(), new GzipWriterInterceptor()));
    expect(problems).toEqual([
      ['PIPELINE_PROVIDER_CONFLICT', expect.stringMatching(/^ContentEncodingFeature and GzipWriterInterceptor are both/)],
    ]);
  });

  it('inject() fails with the same error before any request reaches the method', async () => {
    const a = app(new ContentEncodingFeature(), new GzipFeature());
    await expect(a.inject('/items')).rejects.toMatchObject({
      code: 'PIPELINE_MODEL_INVALID',
      problems: [expect.objectContaining({ code: 'PIPELINE_PROVIDER_CONFLICT' })],
    });
  });

  it('listen() rejects and nothing listens on the port', async () => {
    const port = await freePort();
    await expect(app(new ContentEncodingFeature(), new GzipFeature()).listen(port, '127.0.0.1')).rejects.toBeInstanceOf(
      ModelValidationError,
    );
    const refused = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    });
    expect(refused).toBe('ECONNREFUSED');
  });
});

describe('one coder per direction', () => {
  it('a writer, a reader and a tag filter registered on their own build and compress over a socket', async () => {
    const a = app(
      new ContentEncodingWriterInterceptor({ codings: ['gzip'] }),
      new ContentEncodingReaderInterceptor({ codings: ['gzip'] }),
      new ContentCodingTagFilter({ codings: ['gzip'] }),
    );
    const { port } = await a.listen(0, '127.0.0.1');
    try {
      const res = await fetch(`http://127.0.0.1:${port}/items`, { headers: { 'accept-encoding': 'gzip' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-encoding')).toBe('gzip');
      expect(((await res.json()) as unknown[]).length).toBe(100);
    } finally {
      await a.close();
    }
  });

  it('one GzipFeature alone answers in-process with gzip', async () => {
    const res = await app(new GzipFeature()).inject({ url: '/items', headers: { 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
  });
});
