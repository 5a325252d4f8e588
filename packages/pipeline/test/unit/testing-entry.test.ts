// README "Testing support": `@jaxrs-node/pipeline/testing` runs one component without an
// application or a socket, the way the pipeline would.
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ContainerRequestContext,
  GzipReaderInterceptor,
  GzipWriterInterceptor,
  NotAuthorizedError,
  Response,
  type ContainerRequestFilter,
  type ContainerResponseContext,
  type ContainerResponseFilter,
  type ExceptionMapper,
  type MessageBodyWriter,
  type ReaderInterceptor,
  type ReaderInterceptorContext,
  type WriterInterceptor,
  type WriterInterceptorContext,
} from '../../src/index.js';
import {
  collectBody,
  createRequestContext,
  injectRequest,
  runExceptionMapper,
  runReaderInterceptors,
  runRequestFilter,
  runResponseFilter,
  runWriterInterceptors,
} from '../../src/testing/index.js';

const gunzipAsync = promisify(gunzip);
const gzipAsync = promisify(gzip);

class ApiKeyFilter implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    if (ctx.getHeader('x-api-key') !== 'k') ctx.abortWith(Response.status(401).entity({ error: 'no key' }));
  }
}
class AsyncTagFilter implements ContainerRequestFilter {
  async filterRequest(ctx: ContainerRequestContext): Promise<void> {
    await Promise.resolve();
    ctx.setProperty('tag', ctx.query.get('tag'));
  }
}
class PoweredBy implements ContainerResponseFilter {
  filterResponse(req: ContainerRequestContext, res: ContainerResponseContext): void {
    res.setHeader('x-powered-by', 'pipeline');
    res.setHeader('x-method', req.method);
  }
}

describe('createRequestContext', () => {
  it('exposes method, path, query and lower-cased headers', () => {
    const ctx = createRequestContext({
      method: 'post',
      url: '/users/7?page=2&tag=a&tag=b',
      headers: { 'X-Api-Key': 'k', Accept: 'application/json' },
    });
    expect([ctx.method, ctx.path, ctx.rawQuery, ctx.requestUri]).toEqual([
      'POST',
      '/users/7',
      'page=2&tag=a&tag=b',
      '/users/7?page=2&tag=a&tag=b',
    ]);
    expect(ctx.query.get('page')).toBe('2');
    expect(ctx.query.getAll('tag')).toEqual(['a', 'b']);
    expect(ctx.headers['x-api-key']).toBe('k');
    expect(ctx.getHeader('ACCEPT')).toBe('application/json');
    expect(ctx.acceptableMediaTypes[0]!.essence).toBe('application/json');
    expect(ctx.remoteAddress).toBe('127.0.0.1');
  });

  it('defaults to GET / without headers, and a body sets Content-Length', () => {
    const ctx = createRequestContext();
    expect([ctx.method, ctx.path, ctx.hasEntity()]).toEqual(['GET', '/', false]);
    const withBody = createRequestContext({ method: 'PUT', body: 'héllo' });
    expect([withBody.getHeader('content-length'), withBody.hasEntity()]).toEqual(['6', true]);
  });

  it('preMatching: true allows setMethod / setRequestUri / setHeader, as a @PreMatching filter sees it', () => {
    const ctx = createRequestContext({ method: 'POST', url: '/old?x=1', preMatching: true });
    ctx.setMethod('delete');
    ctx.setRequestUri('/new?y=2');
    ctx.setHeader('X-Added', 'yes');
    expect([ctx.method, ctx.path, ctx.query.get('y'), ctx.query.get('x'), ctx.getHeader('x-added')]).toEqual([
      'DELETE',
      '/new',
      '2',
      null,
      'yes',
    ]);
  });

  it('otherwise (post-matching) they throw, naming the rule', () => {
    const ctx = createRequestContext({ url: '/a' });
    expect(() => ctx.setMethod('PUT')).toThrow(/setMethod\(\) is only allowed in a @PreMatching request filter/);
    expect(() => ctx.setRequestUri('/b')).toThrow(/setRequestUri\(\) is only allowed/);
    expect(() => ctx.setHeader('x', 'y')).toThrow(/setHeader\(\) is only allowed/);
    expect([ctx.method, ctx.path]).toEqual(['GET', '/a']);
  });
});

describe('runRequestFilter / runResponseFilter', () => {
  it('resolves with the abort response when the filter aborts, undefined otherwise', async () => {
    const aborted = await runRequestFilter(new ApiKeyFilter(), createRequestContext({ url: '/x' }));
    expect(aborted?.status).toBe(401);
    expect(aborted?.entity).toEqual({ error: 'no key' });
    expect(await runRequestFilter(new ApiKeyFilter(), createRequestContext({ headers: { 'x-api-key': 'k' } }))).toBeUndefined();
  });

  it('awaits async filters and keeps their effects on the context', async () => {
    const ctx = createRequestContext({ url: '/x?tag=blue' });
    await runRequestFilter(new AsyncTagFilter(), ctx);
    expect(ctx.getProperty('tag')).toBe('blue');
  });

  it('runResponseFilter returns the (default 200) response the filter changed', async () => {
    const r = await runResponseFilter(new PoweredBy(), createRequestContext({ method: 'PATCH' }));
    expect([r.status, r.getHeader('x-powered-by'), r.getHeader('x-method')]).toEqual([200, 'pipeline', 'PATCH']);
    const given = Response.status(201).entity({ id: 1 }).build();
    expect(await runResponseFilter(new PoweredBy(), undefined, given)).toBe(given);
  });
});

describe('runWriterInterceptors / runReaderInterceptors', () => {
  const entity = { items: Array.from({ length: 200 }, (_, i) => ({ i, name: `item-${i}` })) };

  it('GzipWriterInterceptor: the bytes gunzip to the JSON the writer produced', async () => {
    const request = createRequestContext({ headers: { 'accept-encoding': 'gzip' } });
    const out = await runWriterInterceptors([new GzipWriterInterceptor()], { entity, request });
    expect(out.response.getHeader('content-encoding')).toBe('gzip');
    expect(out.response.getHeader('vary')).toBe('Accept-Encoding');
    expect(out.response.getHeader('content-type')).toBe('application/json');
    expect(out.body.byteLength).toBeLessThan(JSON.stringify(entity).length);
    expect(JSON.parse((await gunzipAsync(out.body)).toString('utf8'))).toEqual(entity);
  });

  it('without Accept-Encoding the body is the plain JSON', async () => {
    const out = await runWriterInterceptors([new GzipWriterInterceptor()], { entity });
    expect(out.response.getHeader('content-encoding')).toBeUndefined();
    expect(JSON.parse(out.body.toString('utf8'))).toEqual(entity);
  });

  it('GzipReaderInterceptor: a gzip body reaches the reader decoded', async () => {
    const body = await gzipAsync(Buffer.from(JSON.stringify(entity)));
    const seen: string[] = [];
    const spy: ReaderInterceptor = {
      aroundReadFrom(ctx: ReaderInterceptorContext) {
        seen.push(`${ctx.headers['content-encoding'] ?? 'identity'}`);
        return ctx.proceed();
      },
    };
    const value = await runReaderInterceptors([new GzipReaderInterceptor(), spy], {
      body,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(body.byteLength) },
    });
    expect(value).toEqual(entity);
    expect(seen).toEqual(['identity']); // the interceptor dropped Content-Encoding before the next one
  });

  it("reads a stream body without writing request fields onto the caller's stream", async () => {
    const body = Readable.from([Buffer.from('{"a":'), Buffer.from('1}')]);
    const value = await runReaderInterceptors([], { body, headers: { 'content-type': 'application/json' } });
    expect(value).toEqual({ a: 1 });
    const fields = body as unknown as Record<string, unknown>;
    expect([fields.method, fields.url, fields.headers, fields.socket]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it("an error of the caller's stream reaches the reader", async () => {
    const body = new Readable({ read() {} });
    const run = runReaderInterceptors([], { body, headers: { 'content-type': 'application/json' } });
    body.destroy(new Error('source broke'));
    // The pipeline's answer to a body stream that fails: a 400, as over a socket.
    await expect(run).rejects.toMatchObject({ status: 400, message: 'The request body could not be read' });
  });

  it('GzipReaderInterceptor: corrupt gzip is 400', async () => {
    const run = runReaderInterceptors([new GzipReaderInterceptor()], {
      body: Buffer.from('not gzip at all'),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    await expect(run).rejects.toBeInstanceOf(BadRequestError);
  });

  it('without mediaType the method is taken to @Produces application/json: a string becomes a JSON string', async () => {
    const out = await runWriterInterceptors([], { entity: 'hi' });
    expect([out.response.getHeader('content-type'), out.body.toString(), out.mediaType.essence]).toEqual([
      'application/json',
      '"hi"',
      'application/json',
    ]);
  });

  it('the interceptors get the request context passed in, and what they set stays on it', async () => {
    const request = createRequestContext({ url: '/p' });
    const seen: unknown[] = [];
    const tagger: WriterInterceptor = {
      async aroundWriteTo(ctx: WriterInterceptorContext) {
        seen.push(ctx.request);
        ctx.setProperty('tagged', ctx.request.path);
        await ctx.proceed();
      },
    };
    await runWriterInterceptors([tagger], { entity: { a: 1 }, request });
    expect(seen).toEqual([request]);
    expect(seen[0]).toBe(request);
    expect(request.getProperty('tagged')).toBe('/p');
  });

  it('a request context not made by createRequestContext is refused with a TypeError saying so', async () => {
    const plain = new ContainerRequestContext(createRequestContext().raw, createRequestContext().rawResponse, 'GET', '/', '', false);
    const refused = runWriterInterceptors([], { entity: { a: 1 }, request: plain });
    await expect(refused).rejects.toBeInstanceOf(TypeError);
    await expect(refused).rejects.toHaveProperty(
      'message',
      'The request must be a context from createRequestContext() (the pipeline runs interceptors on its own request object)',
    );
  });

  it('writers and mediaType given to one call are not reused by the next call on the same request context', async () => {
    const request = createRequestContext();
    const csv = (tag: string): MessageBodyWriter => ({ isWriteable: (_t, mt) => mt.essence === 'text/csv', writeTo: () => tag });
    const first = await runWriterInterceptors([], { entity: { a: 1 }, mediaType: 'text/csv', request, writers: [csv('first')] });
    const second = await runWriterInterceptors([], { entity: { a: 1 }, mediaType: 'text/csv', request, writers: [csv('second')] });
    expect([first.body.toString(), second.body.toString(), second.response.getHeader('content-type')]).toEqual([
      'first',
      'second',
      'text/csv; charset=utf-8',
    ]);
    // Built-in writers again, and no mediaType: application/json, not the previous call's text/csv.
    const third = await runWriterInterceptors([], { entity: { a: 1 }, request });
    expect([third.body.toString(), third.response.getHeader('content-type')]).toEqual(['{"a":1}', 'application/json']);
    expect(request.responseMediaType).toBeUndefined();
    await expect(runWriterInterceptors([], { entity: { a: 1 }, mediaType: 'text/csv', request })).rejects.toMatchObject({
      status: 500,
      code: 'PIPE_NO_WRITER',
    });
  });

  it('collectBody turns any body into bytes', async () => {
    expect((await collectBody('abc')).toString()).toBe('abc');
    expect((await collectBody(undefined)).byteLength).toBe(0);
  });
});

describe('runExceptionMapper', () => {
  const nullMapper: ExceptionMapper<Error> = { toResponse: () => null };
  const challenge: ExceptionMapper<NotAuthorizedError> = {
    toResponse: async (e, req) => Response.status(e.status).entity({ path: req.path }).build(),
  };

  it('null → 204, as the pipeline does', async () => {
    expect((await runExceptionMapper(nullMapper, new Error('x'))).status).toBe(204);
  });

  it('passes the error and the request; async mappers are awaited', async () => {
    const r = await runExceptionMapper(challenge, new NotAuthorizedError('Bearer'), createRequestContext({ url: '/secure' }));
    expect([r.status, r.entity]).toEqual([401, { path: '/secure' }]);
  });
});

describe('injectRequest', () => {
  it('drives any (req, res) handler in-process', async () => {
    const r = await injectRequest((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`${req.method} ${req.url}`), {
      method: 'delete',
      url: '/x',
    });
    expect([r.status, r.headers['content-type'], r.text(), r.aborted]).toEqual([200, 'text/plain', 'DELETE /x', false]);
  });
});
