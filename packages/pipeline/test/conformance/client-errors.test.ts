/**
 * Requests Node's HTTP parser rejects before the application sees them get the application's
 * error body as JSON (README "Errors", codes `PIPE_BAD_REQUEST_SYNTAX`, `PIPE_HEADERS_TOO_LARGE`,
 * `PIPE_REQUEST_TIMEOUT`), with Node's statuses and `Connection: close`, over a raw socket (no
 * HTTP client sends these bytes; in-process `inject()` has no parser).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ContainerRequestContext, WebApplicationError } from '../../src/index.js';
import { Application, GET, Path, POST, Produces, type ErrorBodyFactory } from '../../src/index.js';
import { rawConnect, splitResponse, type RawResponse } from '../helpers/raw-socket.js';

@Path('/r')
class R {
  @GET() @Produces('text/plain') get(): string {
    return 'ok';
  }
  @POST() @Produces('text/plain') post(body: string): string {
    return `got ${body.length}`;
  }
}

let app: Application | undefined;
afterEach(async () => {
  await app?.close(100);
  app = undefined;
});

const MAX_HEADER = 1024;
const listen = async (errorBody?: ErrorBodyFactory): Promise<number> => {
  app = new Application({
    resources: [R],
    logger: () => undefined,
    limits: { maxHeaderSize: MAX_HEADER, headersTimeout: 400, requestTimeout: 800, connectionsCheckingInterval: 50 },
    ...(errorBody === undefined ? {} : { errorBody }),
  });
  return (await app.listen(0)).port;
};

/** Sends `bytes` (then half-closes when `end`), and resolves with the one answer once the server has closed cleanly. */
async function exchange(port: number, bytes: string, end = false): Promise<RawResponse> {
  const c = await rawConnect(port);
  c.socket.write(bytes, 'latin1');
  if (end) c.socket.end();
  return splitResponse(await c.untilClosed(3000));
}

/** The JSON error answer every rejection gets: status, JSON body with the code, its exact length, Connection: close. */
function expectJsonError(r: RawResponse, status: number, code: string): Record<string, unknown> {
  expect(r.status).toBe(status);
  expect(r.headers['content-type']).toBe('application/json');
  expect(r.headers.connection).toBe('close');
  expect(r.headers['x-content-type-options']).toBe('nosniff');
  expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(r.body, 'latin1'));
  const body = JSON.parse(r.body) as Record<string, unknown>;
  expect(body).toMatchObject({ status, code });
  return body;
}

const H = 'Host: 127.0.0.1\r\n';
const BAD: [string, string][] = [
  ['a request line without a target', 'GET\r\n\r\n'],
  ['a request line of garbage', 'hello world\r\n\r\n'],
  ['an invalid method token', `G@T /r HTTP/1.1\r\n${H}\r\n`],
  ['a space inside the target', `GET /a b HTTP/1.1\r\n${H}\r\n`],
  ['an unknown HTTP version', `GET /r HTTP/3.7\r\n${H}\r\n`],
  ['a NUL in the path', `GET /a\0b HTTP/1.1\r\n${H}\r\n`],
  ['a lone CR in the request line', `GET /r HTTP/1.1\rX${H}\r\n`],
  ['bare LF line endings', `GET /r HTTP/1.1\n${H.replace('\r\n', '\n')}\n`],
  ['a space in a header name', `GET /r HTTP/1.1\r\n${H}Bad Header: x\r\n\r\n`],
  ['a separator in a header name', `GET /r HTTP/1.1\r\n${H}X(y): 1\r\n\r\n`],
  ['a space before the colon', `GET /r HTTP/1.1\r\n${H}X-A : 1\r\n\r\n`],
  ['a header line without a colon', `GET /r HTTP/1.1\r\n${H}NoColon\r\n\r\n`],
  ['a control character in a header value', `GET /r HTTP/1.1\r\n${H}X-A: a\x01b\r\n\r\n`],
  ['obs-fold (a continuation line)', `GET /r HTTP/1.1\r\n${H}X-A: 1\r\n  folded\r\n\r\n`],
  ['Content-Length with Transfer-Encoding', `POST /r HTTP/1.1\r\n${H}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`],
  ['two different Content-Lengths', `POST /r HTTP/1.1\r\n${H}Content-Length: 1\r\nContent-Length: 2\r\n\r\nab`],
  ['a negative Content-Length', `POST /r HTTP/1.1\r\n${H}Content-Length: -1\r\n\r\n`],
  ['chunked not the last transfer coding', `POST /r HTTP/1.1\r\n${H}Transfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n`],
  ['a bad chunk size', `POST /r HTTP/1.1\r\n${H}Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n`],
  [
    'chunk data longer than its size',
    `POST /r HTTP/1.1\r\n${H}Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhello\r\n0\r\n\r\n`,
  ],
  ['the HTTP/2 preface on HTTP/1.1', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
];

describe('requests the HTTP parser rejects get the error body as JSON', () => {
  it.each(BAD)('400 PIPE_BAD_REQUEST_SYNTAX for %s', async (_what, bytes) => {
    const port = await listen();
    const body = expectJsonError(await exchange(port, bytes), 400, 'PIPE_BAD_REQUEST_SYNTAX');
    expect(body).toMatchObject({ error: 'Bad Request' });
    expect(body.message).toMatch(/^Malformed HTTP request/);
  });
});

describe('limits and timeouts keep their statuses', () => {
  it('431 PIPE_HEADERS_TOO_LARGE for headers over maxHeaderSize, naming the limit', async () => {
    const port = await listen();
    const body = expectJsonError(
      await exchange(port, `GET /r HTTP/1.1\r\n${H}X-Big: ${'a'.repeat(2 * MAX_HEADER)}\r\n\r\n`),
      431,
      'PIPE_HEADERS_TOO_LARGE',
    );
    expect(body.message).toBe(`Request headers are larger than ${MAX_HEADER} bytes`);
  });

  it('431 for a target longer than maxHeaderSize (the request line counts)', async () => {
    const port = await listen();
    expectJsonError(await exchange(port, `GET /${'a'.repeat(2 * MAX_HEADER)} HTTP/1.1\r\n${H}\r\n`), 431, 'PIPE_HEADERS_TOO_LARGE');
  });

  it('431 is read whole while the client is still sending 256 KiB of headers (no reset)', async () => {
    const port = await listen();
    const c = await rawConnect(port);
    c.socket.write(`GET /r HTTP/1.1\r\n${H}`);
    for (let i = 0; i < 256 && !c.socket.destroyed; i++) c.socket.write(`X-Filler-${i}: ${'b'.repeat(1000)}\r\n`);
    expectJsonError(splitResponse(await c.untilClosed(3000)), 431, 'PIPE_HEADERS_TOO_LARGE');
  });

  it('408 PIPE_REQUEST_TIMEOUT when the headers do not arrive within headersTimeout', async () => {
    const port = await listen();
    const c = await rawConnect(port);
    c.socket.write(`GET /r HTTP/1.1\r\n${H}`);
    expectJsonError(splitResponse(await c.untilClosed(3000)), 408, 'PIPE_REQUEST_TIMEOUT');
  });

  it('408 with the request method and path when the body stalls past requestTimeout', async () => {
    const seen: [string, string][] = [];
    const port = await listen((error, request) => {
      seen.push([request.method, request.path]);
      return { status: error.status, code: error.code };
    });
    const c = await rawConnect(port);
    c.socket.write(`POST /r?x=1 HTTP/1.1\r\n${H}Content-Type: text/plain\r\nContent-Length: 100\r\n\r\nsome`);
    expectJsonError(splitResponse(await c.untilClosed(3000)), 408, 'PIPE_REQUEST_TIMEOUT');
    // (The request's own handler may also build an error body when its body is cut off: never sent.)
    expect(seen[0]).toEqual(['POST', '/r']);
  });

  it('400 for a request cut short by the client closing its side', async () => {
    const port = await listen();
    expectJsonError(await exchange(port, `GET /r HTTP/1.1\r\n${H}X-Half`, true), 400, 'PIPE_BAD_REQUEST_SYNTAX');
  });
});

describe('the error body and the connection', () => {
  it("the application's errorBody gets the error and a context with an empty method and path", async () => {
    const seen: { method: string; path: string; status: number; code: string; reason: string }[] = [];
    const factory = (error: WebApplicationError, request: ContainerRequestContext): unknown => {
      seen.push({ method: request.method, path: request.path, status: error.status, code: error.code, reason: error.reason });
      return { timestamp: 'now', status: error.status, error: error.reason, message: error.message, path: request.path, errors: [] };
    };
    const port = await listen(factory);
    const r = await exchange(port, `GET /r HTTP/1.1\r\n${H}Bad Header: x\r\n\r\n`);
    expect(JSON.parse(r.body)).toMatchObject({ timestamp: 'now', status: 400, error: 'Bad Request', path: '', errors: [] });
    expect(seen).toEqual([{ method: '', path: '', status: 400, code: 'PIPE_BAD_REQUEST_SYNTAX', reason: 'Bad Request' }]);
  });

  it("errorFormat 'problem': the answer is RFC 9457 problem details as application/problem+json", async () => {
    app = new Application({ resources: [R], logger: () => undefined, errorFormat: 'problem' });
    const { port } = await app.listen(0);
    const r = await exchange(port, `GET /r HTTP/1.1\r\n${H}Bad Header: x\r\n\r\n`);
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toBe('application/problem+json');
    expect(r.headers.connection).toBe('close');
    expect(JSON.parse(r.body)).toMatchObject({ type: 'about:blank', title: 'Bad Request', status: 400, code: 'PIPE_BAD_REQUEST_SYNTAX' });
  });

  it("errorFormat 'negotiate': a request rejected before its headers were read has no Accept, so it gets the errorBody", async () => {
    app = new Application({ resources: [R], logger: () => undefined, errorFormat: 'negotiate' });
    const { port } = await app.listen(0);
    const r = await exchange(port, `GET /r HTTP/1.1\r\n${H}Accept: application/problem+json\r\nBad Header: x\r\n\r\n`);
    expectJsonError(r, 400, 'PIPE_BAD_REQUEST_SYNTAX');
  });

  it('a throwing errorBody falls back to the default body (and is logged)', async () => {
    const logged: unknown[] = [];
    app = new Application({
      resources: [R],
      logger: (e) => logged.push(e),
      errorBody: () => {
        throw new Error('factory broke');
      },
    });
    const { port } = await app.listen(0);
    const body = expectJsonError(await exchange(port, 'hello world\r\n\r\n'), 400, 'PIPE_BAD_REQUEST_SYNTAX');
    expect(body).toMatchObject({ error: 'Bad Request' });
    expect(logged).toEqual([expect.objectContaining({ message: 'factory broke' })]);
  });

  it('a malformed request pipelined behind a good one: the good one is answered, then the connection closes without a 400', async () => {
    const port = await listen();
    const c = await rawConnect(port);
    c.socket.write(`GET /r HTTP/1.1\r\n${H}\r\nGET /r HTTP/1.1\r\n${H}Bad Header: x\r\n\r\n`);
    const all = await c.untilClosed(3000);
    const first = splitResponse(all);
    expect(first.status).toBe(200);
    expect(first.body.endsWith('ok')).toBe(true);
    expect(all.match(/HTTP\/1\.1 /g)).toHaveLength(1);
  });

  it('a client that resets right after its malformed request does not take the server down', async () => {
    const port = await listen();
    for (let i = 0; i < 5; i++) {
      const c = await rawConnect(port);
      c.socket.write(`GET /r HTTP/1.1\r\n${H}Bad Header: x\r\n\r\n${'z'.repeat(100_000)}`);
      c.socket.resetAndDestroy();
      await c.closed;
    }
    const ok = await exchange(port, `GET /r HTTP/1.1\r\n${H}Connection: close\r\n\r\n`);
    expect([ok.status, ok.body]).toEqual([200, 'ok']);
  });

  it('after the answer, the bytes the client keeps sending are read and dropped until it closes (no reset)', async () => {
    const port = await listen();
    const c = await rawConnect(port);
    c.socket.write(`POST /r HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\nzz\r\n`);
    await c.waitFor('"PIPE_BAD_REQUEST_SYNTAX"');
    // The server has half-closed; more bytes from the client are not answered with a reset.
    for (let i = 0; i < 20; i++) c.socket.write('y'.repeat(10_000));
    c.socket.end();
    expectJsonError(splitResponse(await c.untilClosed(3000)), 400, 'PIPE_BAD_REQUEST_SYNTAX');
  });
});

describe('Host (RFC 9112 §3.2), checked where Node would answer without a body', () => {
  it('an HTTP/1.1 request without Host: 400 PIPE_INVALID_HOST through the error body, then the close', async () => {
    const port = await listen();
    const r = await exchange(port, 'GET /r HTTP/1.1\r\n\r\n');
    expect([r.status, r.headers['content-type'], r.headers.connection]).toEqual([400, 'application/json', 'close']);
    expect(JSON.parse(r.body)).toMatchObject({ status: 400, code: 'PIPE_INVALID_HOST', message: 'Missing Host header' });
  });

  it('HTTP/1.0 needs no Host', async () => {
    const port = await listen();
    const r = await exchange(port, 'GET /r HTTP/1.0\r\n\r\n');
    expect([r.status, r.body]).toEqual([200, 'ok']);
  });
});
