/**
 * A 304 carries the headers its 200 would have carried that RFC 9110 §15.4.5 lists (Cache-Control,
 * Content-Location, Date, ETag, Expires, Vary), so a cache that refreshes its stored response from
 * the 304 (RFC 9111 §4.3.4) keeps the right Vary. Issue 22: with GzipFeature, a 304 made by
 * `evaluatePreconditions` (no entity, so no writer interceptor) lost `Vary: Accept-Encoding`
 * whenever the client echoed the identity tag. In-process, over undici and over curl.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Application,
  CacheControl,
  Context,
  EntityTag,
  GET,
  GzipFeature,
  Path,
  Produces,
  Response,
  ContainerRequestContext,
} from '../../src/index.js';
import { serveForSuite, TRANSPORTS, type TestResponse } from '../helpers/transports.js';

const run = promisify(execFile);
const TAG = new EntityTag('v7');
const EXPIRES = new Date('2030-01-01T00:00:00Z');

/** The 200, or the 304 its preconditions ask for, both with the same caching headers (README "Conditional requests"). */
function conditional(ctx: ContainerRequestContext, entity: unknown): Response {
  const stop = ctx.evaluatePreconditions({ tag: TAG });
  const builder = stop === undefined ? Response.ok(entity).tag(TAG) : Response.fromResponse(stop);
  return builder
    .cacheControl(new CacheControl({ maxAge: 60, private: true }))
    .expires(EXPIRES)
    .contentLocation('/doc/canonical')
    .build();
}

@Path('/doc')
class Doc {
  /** Small (under gzip's threshold), so the 200 is never compressed, yet varies on Accept-Encoding. */
  @GET() @Produces('application/json') json(@Context() ctx: ContainerRequestContext): Response {
    return conditional(ctx, { id: 7, name: 'small' });
  }

  /** Two types: Accept chooses, so the answers vary on Accept too. */
  @GET('both') @Produces('application/json', 'text/plain') both(@Context() ctx: ContainerRequestContext): Response {
    return conditional(ctx, 'seven');
  }

  /** Not compressible: neither the 200 nor the 304 varies on Accept-Encoding. */
  @GET('png') @Produces('image/png') png(@Context() ctx: ContainerRequestContext): Response {
    return conditional(ctx, Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  }
}

const app = (): Application => new Application({ resources: [Doc], providers: [new GzipFeature()], logger: () => undefined });

/** The §15.4.5 headers of a response, Vary as a sorted list of field names. */
function kept(headers: Record<string, string | string[] | undefined>): Record<string, unknown> {
  const vary = headers.vary;
  return {
    etag: headers.etag,
    vary:
      vary === undefined
        ? []
        : String(vary)
            .split(/\s*,\s*/)
            .sort(),
    'cache-control': headers['cache-control'],
    expires: headers.expires,
    'content-location': headers['content-location'],
  };
}

const PATHS: Array<[string, string[]]> = [
  ['/doc', ['Accept-Encoding']],
  ['/doc/both', ['Accept', 'Accept-Encoding']],
  ['/doc/png', []],
];

describe.each(TRANSPORTS)('a 304 keeps the 200 headers of RFC 9110 §15.4.5 (%s)', (transport) => {
  const send = serveForSuite(transport, app);

  it.each(PATHS)('%s: If-None-Match gives a 304 with the same ETag, Vary, Cache-Control, Expires, Content-Location', async (url, vary) => {
    const codings: Array<Record<string, string>> = [{}, { 'accept-encoding': 'gzip' }];
    for (const accept of codings) {
      const ok: TestResponse = await send({ url, headers: accept });
      expect(ok.status).toBe(200);
      const tag = ok.headers.etag as string;
      const notModified = await send({ url, headers: { ...accept, 'if-none-match': tag } });
      expect(notModified.status).toBe(304);
      expect(notModified.body.length).toBe(0);
      expect(kept(notModified.headers)).toEqual(kept(ok.headers));
      expect(kept(notModified.headers).vary).toEqual(vary);
      expect(notModified.headers['content-type']).toBeUndefined();
    }
  });
});

describe('a 304 over curl', () => {
  let base = '';
  const application = app();
  beforeAll(async () => {
    const { port } = await application.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await application.close(2000);
  });

  /** Status line and headers as curl received them (lower-cased names). */
  async function head(url: string, ...args: string[]): Promise<{ status: number; headers: Record<string, string> }> {
    const { stdout } = await run('curl', ['-s', '-o', '/dev/null', '-D', '-', '--max-time', '5', ...args, `${base}${url}`]);
    const [statusLine = '', ...lines] = stdout.trim().split(/\r?\n/);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const i = line.indexOf(':');
      if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
    }
    return { status: Number(statusLine.split(' ')[1]), headers };
  }

  it('identity and --compressed clients: Vary: Accept-Encoding and the same validators on the 200 and the 304', async () => {
    for (const coding of [[], ['--compressed']]) {
      const ok = await head('/doc', ...coding);
      expect(ok.status).toBe(200);
      const notModified = await head('/doc', ...coding, '-H', `If-None-Match: ${ok.headers.etag}`);
      expect(notModified.status).toBe(304);
      expect(kept(notModified.headers)).toEqual(kept(ok.headers));
      expect(notModified.headers.vary).toBe('Accept-Encoding');
      expect(notModified.headers.date).toBeDefined();
    }
  });
});
