/**
 * `listen()` over TLS and HTTP/2 seen by curl (built with nghttp2): h2 negotiated by ALPN with the
 * test CA, HTTP/1.1 on the same port for a client that does not offer h2, h2c with prior
 * knowledge, HTTP/1.1 over TLS without `http2`; the start-up refusals of unusable TLS options; an
 * early answer on HTTP/2 ends only its stream (RFC 9113 §8.1), not the connection.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createH2cServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { Application, Consumes, Context, GET, Path, POST, UriInfo } from '../../src/index.js';
import { connectClient, TEST_TLS } from '../helpers/h2.js';

const run = promisify(execFile);

@Path('/hello')
class Hello {
  @GET() get(): unknown {
    return { hello: 'world' };
  }
  @POST()
  @Consumes('text/plain')
  post(body: string): unknown {
    return { length: body.length };
  }
}

@Path('/where')
class Where {
  @GET() get(@Context() uri: UriInfo): unknown {
    return { base: uri.baseUri };
  }
}

const tls = { key: TEST_TLS.key, cert: TEST_TLS.cert };

/** curl's status line, negotiated HTTP version and body. */
async function curl(args: string[], url: string): Promise<{ status: number; version: string; body: string }> {
  const { stdout } = await run('curl', ['-sS', '--max-time', '10', '-w', '\n%{http_code} %{http_version}', ...args, url]);
  const nl = stdout.lastIndexOf('\n');
  const [status, version] = stdout.slice(nl + 1).split(' ');
  return { status: Number(status), version: version!, body: stdout.slice(0, nl) };
}

describe('listen() with tls and http2, over curl', () => {
  let app: Application | undefined;
  afterEach(async () => {
    await app?.close(200);
    app = undefined;
  });
  const start = async (options: Parameters<Application['listen']>[2]): Promise<number> => {
    app = new Application({ resources: [Hello], logger: () => undefined });
    return (await app.listen(0, '127.0.0.1', options)).port;
  };

  it('h2 over TLS: curl --http2 negotiates h2 with the test CA', async () => {
    const port = await start({ tls, http2: true });
    const res = await curl(['--http2', '--cacert', TEST_TLS.certFile], `https://localhost:${port}/hello`);
    expect(res).toEqual({ status: 200, version: '2', body: '{"hello":"world"}' });
    const post = await curl(
      ['--http2', '--cacert', TEST_TLS.certFile, '-H', 'content-type: text/plain', '--data-binary', 'abcdef'],
      `https://127.0.0.1:${port}/hello`,
    );
    expect(post).toEqual({ status: 200, version: '2', body: '{"length":6}' });
  });

  it('h2 over TLS: a client without h2 (curl --http1.1) is served HTTP/1.1 on the same port', async () => {
    const port = await start({ tls, http2: true });
    const res = await curl(['--http1.1', '--cacert', TEST_TLS.certFile], `https://localhost:${port}/hello`);
    expect(res).toEqual({ status: 200, version: '1.1', body: '{"hello":"world"}' });
    const missing = await curl(['--http1.1', '--cacert', TEST_TLS.certFile], `https://localhost:${port}/nothing`);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toMatchObject({ code: 'PIPE_NO_MATCH' });
  });

  it('h2c: curl --http2-prior-knowledge', async () => {
    const port = await start({ http2: true });
    const res = await curl(['--http2-prior-knowledge'], `http://127.0.0.1:${port}/hello`);
    expect(res).toEqual({ status: 200, version: '2', body: '{"hello":"world"}' });
  });

  it('TLS without http2: HTTP/1.1 over TLS, even when curl offers h2', async () => {
    const port = await start({ tls });
    const res = await curl(['--http2', '--cacert', TEST_TLS.certFile], `https://localhost:${port}/hello`);
    expect(res).toEqual({ status: 200, version: '1.1', body: '{"hello":"world"}' });
    expect(app!.server).toBeDefined();
    expect(app!.http2Server).toBeUndefined();
  });

  it('refuses unusable TLS options at listen(), naming the option and the fix', async () => {
    app = new Application({ resources: [Hello] });
    await expect(app.listen(0, '127.0.0.1', { tls: { key: TEST_TLS.key } })).rejects.toThrow(
      /tls needs a private key and its certificate \(tls\.key and tls\.cert, PEM\) or tls\.pfx; got a key without a certificate/,
    );
    await expect(app.listen(0, '127.0.0.1', { tls: { cert: TEST_TLS.cert } })).rejects.toThrow(/got a certificate without a key/);
    await expect(app.listen(0, '127.0.0.1', { tls: { key: TEST_TLS.otherKey, cert: TEST_TLS.cert } })).rejects.toThrow(
      /the TLS options are unusable: .*key values mismatch/i,
    );
    await expect(app.listen(0, '127.0.0.1', { http2: { maxConcurrentStreams: 0 } })).rejects.toThrow(
      /http2\.maxConcurrentStreams must be a positive integer, got 0/,
    );
    await expect(app.listen(0, '127.0.0.1', { http2: { maxStreams: 5 } as never })).rejects.toThrow(
      /http2\.maxStreams is not an HTTP\/2 option/,
    );
    expect(app.server).toBeUndefined();
  });

  it("app.handler mounted on a server of one's own (http2.createServer) reads bodies by the stream and :authority as the host", async () => {
    app = new Application({ resources: [Hello, Where], logger: () => undefined });
    const handler = app.handler;
    const server = createH2cServer((req, res) => handler(req as unknown as IncomingMessage, res as unknown as ServerResponse));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client = await connectClient('h2c', port);
    try {
      const post = await client.send({
        method: 'POST',
        path: '/hello',
        headers: { 'content-type': 'text/plain' },
        body: 'abc',
        chunked: true,
      });
      expect(post.json()).toEqual({ length: 3 });
      expect((await client.send({ path: '/where' })).json()).toEqual({ base: `http://127.0.0.1:${port}` });
    } finally {
      client.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('an early answer on HTTP/2 (415 while the body still arrives) ends its stream with NO_ERROR, and the session serves on', async () => {
    const port = await start({ http2: true });
    const client = await connectClient('h2c', port);
    try {
      // The body is still open (no END_STREAM) when the answer comes.
      const stream = client.session!.request({ ':method': 'POST', ':path': '/hello', 'content-type': 'text/csv' }, { endStream: false });
      stream.write(Buffer.alloc(16 * 1024));
      const [headers] = (await once(stream, 'response')) as [Record<string, string>];
      expect(headers[':status']).toBe(415);
      expect(headers.connection).toBeUndefined();
      stream.resume();
      await once(stream, 'close');
      expect(stream.rstCode).toBe(0);
      expect(client.session!.destroyed).toBe(false);
      expect((await client.send({ path: '/hello' })).status).toBe(200);
    } finally {
      client.close();
    }
  });
});
