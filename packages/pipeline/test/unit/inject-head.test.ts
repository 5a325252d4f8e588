/**
 * `inject()` answers HEAD like a socket does: Node's ServerResponse never sends body bytes for
 * HEAD (or a 204/304), even for responses the pipeline produced before it knew the request was a
 * HEAD (no match, a pre-matching abort). Each case is compared byte for byte with the wire.
 */
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Application,
  GET,
  Path,
  PreMatching,
  Response,
  type ContainerRequestContext,
  type ContainerRequestFilter,
} from '../../src/index.js';
import { rawRoundTrip, splitResponse } from '../helpers/raw-socket.js';

@Path('/things')
class Things {
  @GET()
  list(): string[] {
    return ['a', 'b'];
  }

  @GET('/empty')
  empty(): Response {
    return Response.noContent().build();
  }
}

/** Refuses requests carrying `x-refuse` before matching, with a JSON body. */
@PreMatching()
class Refuse implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    if (ctx.getHeader('x-refuse') !== undefined) ctx.abortWith(Response.status(400).entity({ error: 'refused' }));
  }
}

const app = (): Application => new Application({ resources: [Things], providers: [Refuse], logger: () => undefined });

interface Raw {
  status: number;
  contentLength: string | undefined;
  bytes: number;
}

/**
 * One request on a fresh raw connection, counting the bytes that really arrive after the head.
 * Not node:http's client: it never hands a HEAD or 204 body to the caller, whatever the server
 * sends, so a count taken there could not fail. Here the request says `Connection: close` and
 * everything is read until the server hangs up, so any byte after the head is counted.
 */
async function overSocket(port: number, method: string, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
  const data = await rawRoundTrip(port, `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${lines.join('')}\r\n`);
  const res = splitResponse(data);
  // latin1: one character per byte.
  return { status: res.status, contentLength: res.headers['content-length'], bytes: res.body.length };
}

describe('inject() drops HEAD bodies as the socket does', () => {
  const served = app();
  let port = 0;
  beforeAll(async () => {
    ({ port } = await served.listen(0, '127.0.0.1'));
  });
  afterAll(() => served.close(2000));

  const CASES: { name: string; path: string; headers?: Record<string, string>; status: number }[] = [
    { name: 'a matched GET resource (automatic HEAD)', path: '/things', status: 200 },
    { name: 'no match (404, before the pipeline knows it is a HEAD)', path: '/nowhere', status: 404 },
    { name: 'a pre-matching abort', path: '/things', headers: { 'x-refuse': '1' }, status: 400 },
  ];

  for (const c of CASES) {
    it(`${c.name}: same status and Content-Length, no body bytes`, async () => {
      const wire = await overSocket(port, 'HEAD', c.path, c.headers);
      const local = await app().inject({ method: 'HEAD', url: c.path, headers: c.headers });
      expect(wire).toMatchObject({ status: c.status, bytes: 0 });
      expect(local.status).toBe(c.status);
      expect(local.body.byteLength).toBe(0);
      expect(local.headers['content-length']).toBe(wire.contentLength);
      // The response had a body (its length is announced), and neither transport delivered it.
      expect(Number(wire.contentLength)).toBeGreaterThan(0);
    });
  }

  it('a GET answering 204 has no body in either transport', async () => {
    const wire = await overSocket(port, 'GET', '/things/empty');
    const local = await app().inject('/things/empty');
    expect(wire).toMatchObject({ status: 204, bytes: 0 });
    expect(local.status).toBe(204);
    expect(local.body.byteLength).toBe(0);
  });
});
