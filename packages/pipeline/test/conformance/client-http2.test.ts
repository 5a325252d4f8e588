/**
 * The typed client over HTTP/2 (`ClientOptions.http2`, undici's `allowH2`) against the pipeline's
 * h2 TLS server, trusting the test CA (`ClientOptions.tls`): calls go as streams of one HTTP/2
 * connection; without `http2` the same server is spoken to in HTTP/1.1 (ALPN fallback).
 */
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Application, Consumes, Context, ContainerRequestContext, GET, Path, POST, Produces } from '../../src/index.js';
import { ClientBuilder, clientOf, createClient } from '../../src/client/index.js';
import { TEST_TLS } from '../helpers/h2.js';

interface Seen {
  version: string;
  name?: string;
}

const unused = (): never => {
  throw new Error('contract method: the server resource or the client proxy implements it');
};

@Path('/version')
@Produces('application/json')
abstract class VersionContract {
  @GET() get(): Promise<Seen> {
    return unused();
  }
  @POST()
  @Consumes('application/json')
  post(_body: { name: string }): Promise<Seen> {
    return unused();
  }
}

/** The server side of the contract, reporting the HTTP version each call came in. */
@Path('/version')
@Produces('application/json')
class VersionResource {
  @GET() get(@Context() ctx: ContainerRequestContext): Seen {
    return { version: ctx.raw.httpVersion };
  }
  @POST()
  @Consumes('application/json')
  post(body: { name: string }, @Context() ctx: ContainerRequestContext): Seen {
    return { version: ctx.raw.httpVersion, name: body.name };
  }
}

describe('the typed client over HTTP/2', () => {
  let app: Application;
  let baseUrl: string;
  beforeAll(async () => {
    app = new Application({ resources: [VersionResource] });
    const { port } = await app.listen(0, '127.0.0.1', { tls: { key: TEST_TLS.key, cert: TEST_TLS.cert }, http2: true });
    baseUrl = `https://localhost:${port}`;
  });
  afterAll(async () => {
    await app.close(200);
  });

  it('with http2: true, calls go over h2 (GET and a POST entity), concurrently on one session', async () => {
    const client = createClient(VersionContract, { baseUrl, http2: true, tls: { ca: TEST_TLS.cert } });
    try {
      expect(await client.get()).toEqual({ version: '2.0' });
      expect(await client.post({ name: 'ada' })).toEqual({ version: '2.0', name: 'ada' });
      const many = await Promise.all(Array.from({ length: 10 }, () => client.get()));
      expect(many.every((s) => s.version === '2.0')).toBe(true);
    } finally {
      await clientOf(client).close();
    }
  });

  it('without http2 the same server answers in HTTP/1.1; the fluent builder sets both options', async () => {
    const h1 = createClient(VersionContract, { baseUrl, tls: { ca: TEST_TLS.cert } });
    const h2 = ClientBuilder.newBuilder().baseUrl(baseUrl).http2(true).tls({ ca: TEST_TLS.cert }).build();
    try {
      expect(await h1.get()).toEqual({ version: '1.1' });
      const res = await h2.target('/version').request().get();
      expect(await res.readEntity(Object)).toEqual({ version: '2.0' });
    } finally {
      await clientOf(h1).close();
      await h2.close();
    }
  });

  it('refuses an http2 option that is not a boolean', () => {
    expect(() => createClient(VersionContract, { baseUrl, http2: 'yes' as never })).toThrow(/http2 must be true or false, got yes/);
  });
});
