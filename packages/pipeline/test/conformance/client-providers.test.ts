/**
 * The client's provider model over both transports: request filters (ascending, `abortWith`),
 * response filters (descending), name binding onto contract methods, reader and writer
 * interceptors (gzip both ways, with the server's GzipFeature), readers, writers and param
 * converters shared with the server, response-exception and failure mappers.
 */
import 'reflect-metadata';
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  Application,
  Consumes,
  type ContainerRequestContext,
  type ContainerRequestFilter,
  GET,
  GzipFeature,
  HeaderParam,
  type MediaType,
  type MessageBodyReader,
  type MessageBodyWriter,
  NameBinding,
  type ParamConverter,
  type ParamConverterProvider,
  Path,
  PathParam,
  POST,
  PreMatching,
  Priority,
  Produces,
  QueryParam,
  readBody,
  type ReadContext,
  Response,
  type TypeToken,
} from '../../src/index.js';
import {
  ClientGzipFeature,
  ClientProcessingError,
  ClientResponseError,
  type ClientFailureMapper,
  type ClientReaderInterceptor,
  type ClientReaderInterceptorContext,
  type ClientRequestContext,
  type ClientRequestFilter,
  type ClientResponse,
  type ClientResponseFilter,
  type ClientWriterInterceptor,
  type ClientWriterInterceptorContext,
  type ResponseExceptionMapper,
} from '../../src/client/index.js';
import { CLIENT_TRANSPORTS, serveForClients } from '../helpers/client-transports.js';

/** A value type with its own media type, read and written by the same providers on both sides. */
class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

class PointProvider implements MessageBodyReader<Point>, MessageBodyWriter<Point> {
  readonly consumes = ['text/x-point'];
  readonly produces = ['text/x-point'];
  isReadable(type: TypeToken): boolean {
    return type === Point;
  }
  async readFrom(_t: TypeToken, _m: MediaType | undefined, input: Readable, ctx: ReadContext): Promise<Point> {
    const [x, y] = (await readBody(input, ctx.limit, ctx.contentLength)).toString().split(';').map(Number);
    return new Point(x!, y!);
  }
  isWriteable(type: TypeToken): boolean {
    return type === Point;
  }
  writeTo(p: Point): string {
    return `${p.x};${p.y}`;
  }
}

/** An id type in paths and queries: `fromString` on the server, `toString` on the client, one provider for both. */
class Sku {
  constructor(readonly code: string) {}
}
class SkuConverter implements ParamConverter<Sku> {
  fromString(value: string): Sku {
    if (!value.startsWith('sku-')) throw new Error('not a sku');
    return new Sku(value.slice(4));
  }
  toString(value: Sku): string {
    return `sku-${value.code}`;
  }
}
class SkuConverters implements ParamConverterProvider {
  getConverter(type: TypeToken): ParamConverter | undefined {
    return type === Sku ? new SkuConverter() : undefined;
  }
}

const Audited = NameBinding('Audited');

const unused = (): never => {
  throw new Error('contract method');
};

@Path('/p')
abstract class ProvidersContract {
  @GET('echo') @Produces('application/json') echo(@HeaderParam('x-seen') _seen?: string): Promise<Record<string, string | null>> {
    return unused();
  }
  @Audited() @GET('audited') audited(): Promise<{ audited: string | null }> {
    return unused();
  }
  /** A sync return type: TypeScript emits it (a `Promise<Point>` would read as `Promise`), so the client reads a Point. */
  @POST('points') @Consumes('text/x-point') @Produces('text/x-point') mirror(_p: Point): Point {
    return unused();
  }
  @GET('sku/{sku}') sku(@PathParam('sku') _sku: Sku, @QueryParam('alt') _alt?: Sku): Promise<{ sku: string; alt: string | null }> {
    return unused();
  }
  @POST('big') @Consumes('application/json') big(_body: {
    text: string;
  }): Promise<{ length: number; encoding: string | null; text: string }> {
    return unused();
  }
  @GET('status/{code}') status(@PathParam('code') _code: number): Promise<{ ok: true }> {
    return unused();
  }
}

/** Records what reached the server. */
const seen: Array<Record<string, string | undefined>> = [];
let served = 0;

@PreMatching()
class RecordHeaders implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    served++;
    seen.push({
      'content-encoding': ctx.getHeader('content-encoding'),
      'x-audit': ctx.getHeader('x-audit'),
      'x-order': ctx.getHeader('x-order'),
    });
  }
}

class ProvidersResource extends ProvidersContract {
  override async echo() {
    const last = seen[seen.length - 1]!;
    return { order: last['x-order'] ?? null };
  }
  override async audited() {
    return { audited: seen[seen.length - 1]!['x-audit'] ?? null };
  }
  override mirror(p: Point): Point {
    return new Point(p.y, p.x);
  }
  override async sku(sku: Sku, alt?: Sku) {
    return { sku: sku.code, alt: alt?.code ?? null };
  }
  override async big(body: { text: string }) {
    return { length: body.text.length, encoding: seen[seen.length - 1]!['content-encoding'] ?? null, text: body.text };
  }
  override async status(code: number) {
    return Promise.resolve(
      Response.status(code)
        .entity({ problem: `status ${code}` })
        .header('x-detail', 'd')
        .build() as never,
    );
  }
}

/** Appends its name to `x-order` (request) and to a list (response). */
function orderFilters(log: string[]): object[] {
  const make = (name: string, priority: number) => {
    @Priority(priority)
    class F implements ClientRequestFilter, ClientResponseFilter {
      filterClientRequest(request: ClientRequestContext): void {
        request.setHeader('x-order', `${request.getHeader('x-order') ?? ''}${name}`);
      }
      filterClientResponse(): void {
        log.push(name);
      }
    }
    Object.defineProperty(F, 'name', { value: `Order${name}` });
    return new F();
  };
  return [make('C', 3000), make('A', 1000), make('B', 2000)];
}

describe.each(CLIENT_TRANSPORTS)('client providers (%s)', (transport) => {
  const suite = serveForClients(
    transport,
    () =>
      new Application({
        resources: [ProvidersResource],
        providers: [RecordHeaders, new PointProvider(), new SkuConverters(), new GzipFeature({ threshold: 100 })],
        onWarning: () => undefined,
      }),
  );

  it('request filters run in ascending priority, response filters in descending', async () => {
    const log: string[] = [];
    const api = suite.client({ providers: orderFilters(log) }).proxy(ProvidersContract);
    expect(await api.echo()).toEqual({ order: 'ABC' });
    expect(log).toEqual(['C', 'B', 'A']);
  });

  it('an explicit registration priority beats @Priority', async () => {
    const log: string[] = [];
    const [c, a, b] = orderFilters(log);
    const client = suite.client({ providers: [a!, b!] }).register(c!, { priority: 1 });
    expect(await client.proxy(ProvidersContract).echo()).toEqual({ order: 'CAB' });
  });

  it('a request filter may abort with its own response: nothing is sent, the response filters still run', async () => {
    const log: string[] = [];
    class Cached implements ClientRequestFilter {
      filterClientRequest(request: ClientRequestContext): void {
        request.abortWith(Response.ok({ order: 'cached' }).header('x-cache', 'hit'));
      }
    }
    class Late implements ClientRequestFilter {
      filterClientRequest(): void {
        log.push('late request filter');
      }
    }
    class Seen implements ClientResponseFilter {
      filterClientResponse(_req: ClientRequestContext, res: ClientResponse): void {
        log.push(`response ${res.status} ${res.getHeader('x-cache')}`);
      }
    }
    const before = served;
    const client = suite.client({ providers: [new Cached(), new Late(), new Seen()] });
    expect(await client.proxy(ProvidersContract).echo()).toEqual({ order: 'cached' });
    expect(served).toBe(before);
    expect(log).toEqual(['response 200 hit']);
    const r = await client.responseProxy(ProvidersContract).echo();
    expect(r.status).toBe(200);
    expect(await r.readEntity()).toEqual({ order: 'cached' });
  });

  it('a name-bound filter runs only for contract methods carrying its binding', async () => {
    @Audited()
    class AuditFilter implements ClientRequestFilter {
      filterClientRequest(request: ClientRequestContext): void {
        request.setHeader('x-audit', `${request.resourceInfo?.methodName}:${request.resourceInfo?.hasBinding(Audited)}`);
      }
    }
    const api = suite.client({ providers: [AuditFilter] }).proxy(ProvidersContract);
    expect(await api.audited()).toEqual({ audited: 'audited:true' });
    await api.echo();
    expect(seen[seen.length - 1]!['x-audit']).toBeUndefined();
  });

  it('readers and writers shared with the server: a custom media type both ways', async () => {
    const api = suite.client({ providers: [new PointProvider()] }).proxy(ProvidersContract);
    expect(await api.mirror(new Point(1, 2))).toEqual(new Point(2, 1));
  });

  it("a ParamConverterProvider's toString sends the value; the same provider converts it on the server", async () => {
    const api = suite.client({ providers: [new SkuConverters()] }).proxy(ProvidersContract);
    expect(await api.sku(new Sku('a1'), new Sku('b/2'))).toEqual({ sku: 'a1', alt: 'b/2' });
  });

  it('an object without a text form is refused, naming the parameter', async () => {
    const api = suite.client().proxy(ProvidersContract);
    await expect(api.sku(new Sku('x'))).rejects.toThrow(
      /ProvidersContract\.sku \(argument 0\), path parameter 'sku': a Sku has no text form/,
    );
  });

  it('gzip both ways: request bodies compressed for the server, compressed responses decoded', async () => {
    const encodings: Array<string | undefined> = [];
    class SeenEncoding implements ClientResponseFilter {
      filterClientResponse(_req: ClientRequestContext, res: ClientResponse): void {
        encodings.push(res.getHeader('content-encoding'));
      }
    }
    const api = suite.client({ providers: [new ClientGzipFeature({ threshold: 100 }), new SeenEncoding()] }).proxy(ProvidersContract);
    const text = 'x'.repeat(5000);
    const r = await api.big({ text });
    expect(r).toEqual({ length: 5000, encoding: 'gzip', text });
    expect(encodings).toEqual(['gzip']);
  });

  it('writer interceptors change the entity before the writer, reader interceptors the value after the reader', async () => {
    class Shout implements ClientWriterInterceptor {
      async aroundWriteTo(ctx: ClientWriterInterceptorContext): Promise<void> {
        ctx.entity = { text: (ctx.entity as { text: string }).text.toUpperCase() };
        await ctx.proceed();
      }
    }
    class Unwrap implements ClientReaderInterceptor {
      async aroundReadFrom(ctx: ClientReaderInterceptorContext): Promise<unknown> {
        const v = (await ctx.proceed()) as { text?: string };
        return v.text ?? v;
      }
    }
    const api = suite.client({ providers: [new Shout(), new Unwrap()] }).proxy(ProvidersContract);
    expect(await api.big({ text: 'hi' })).toBe('HI');
  });

  it('by default every status >= 400 rejects with ClientResponseError (status, headers, parsed body)', async () => {
    const api = suite.client().proxy(ProvidersContract);
    const e = (await api.status(418).catch((x: unknown) => x)) as ClientResponseError;
    expect(e).toBeInstanceOf(ClientResponseError);
    expect([e.status, e.headers['x-detail'], e.body, e.code]).toEqual([418, 'd', { problem: 'status 418' }, 'CLIENT_HTTP_418']);
    expect(await api.status(299)).toEqual({ problem: 'status 299' });
  });

  it('response-exception mappers: the first (ascending priority) that handles the status and returns an error wins', async () => {
    class Teapot extends Error {}
    const asked: string[] = [];
    @Priority(10)
    class Declines implements ResponseExceptionMapper {
      toError(): undefined {
        asked.push('declines');
        return undefined;
      }
    }
    @Priority(20)
    class TeapotMapper implements ResponseExceptionMapper {
      handles(status: number): boolean {
        return status === 418;
      }
      async toError(response: ClientResponse): Promise<Error> {
        asked.push('teapot');
        return new Teapot(((await response.readEntity()) as { problem: string }).problem);
      }
    }
    @Priority(30)
    class Redirects implements ResponseExceptionMapper {
      handles(status: number): boolean {
        return status >= 300 && status < 400;
      }
      toError(response: ClientResponse): Error {
        return new Error(`redirected ${response.status}`);
      }
    }
    const api = suite.client({ providers: [TeapotMapper, Redirects, Declines] }).proxy(ProvidersContract);
    await expect(api.status(418)).rejects.toEqual(new Teapot('status 418'));
    expect(asked).toEqual(['declines', 'teapot']);
    await expect(api.status(500)).rejects.toBeInstanceOf(ClientResponseError);
    await expect(api.status(302)).rejects.toThrow('redirected 302');
  });

  it('the response proxy never maps statuses: the caller reads them', async () => {
    const r = await suite.client().responseProxy(ProvidersContract).status(503);
    expect([r.status, r.ok, r.reason]).toEqual([503, false, 'Service Unavailable']);
    expect(await r.readEntity()).toEqual({ problem: 'status 503' });
  });

  it('failure mappers turn processing errors into the caller’s errors', async () => {
    class Mapped extends Error {}
    class Failures implements ClientFailureMapper {
      mapFailure(error: ClientProcessingError, request: ClientRequestContext): Error | undefined {
        return error.code === 'CLIENT_RESPONSE_UNREADABLE' ? new Mapped(`${request.method} ${error.code}`) : undefined;
      }
    }
    // No reader for text/x-point as Point without the PointProvider on the client.
    const api = suite.client({ providers: [new Failures()] }).proxy(ProvidersContract);
    await expect(api.mirror(new Point(1, 1))).rejects.toEqual(expect.objectContaining({ code: 'CLIENT_REQUEST_UNWRITABLE' }));
    const withWriter = suite.client({
      providers: [new Failures(), { isWriteable: (t: TypeToken) => t === Point, writeTo: (p: Point) => `${p.x};${p.y}` }],
    });
    await expect(withWriter.proxy(ProvidersContract).mirror(new Point(1, 1))).rejects.toEqual(
      new Mapped('POST CLIENT_RESPONSE_UNREADABLE'),
    );
  });
});

describe('misconfiguration fails at construction, naming the class and the fix', () => {
  it('a server provider registered on a client', async () => {
    const { Client } = await import('../../src/client/index.js');
    expect(() => new Client({ providers: [RecordHeaders] })).toThrow(
      /RecordHeaders is a server provider \(filterRequest\): register it on an Application/,
    );
    expect(() => new Client({ providers: [{ filter() {} }] })).toThrow(/implements no client provider contract/);
    class NeedsArgs implements ClientRequestFilter {
      constructor(readonly token: string) {}
      filterClientRequest(): void {}
    }
    expect(() => new Client({ providers: [NeedsArgs] })).toThrow(/NeedsArgs's constructor takes arguments: register an instance instead/);
  });

  it('contracts that cannot be called', async () => {
    const { Client } = await import('../../src/client/index.js');
    const client = new Client({ baseUrl: 'http://127.0.0.1:9' });
    class Nothing {}
    expect(() => client.proxy(Nothing)).toThrow(/Nothing has no resource method/);
    @Path('/x')
    class BadPath {
      @GET('{id}') get(@PathParam('idd') _id: number) {}
    }
    expect(() => client.proxy(BadPath)).toThrow(/BadPath\.get: @PathParam\('idd'\) names no variable of its path '\/x\/\{id\}'/);
    @Path('/x')
    class TwoBodies {
      @POST() post(_a: string, _b: string) {}
    }
    expect(() => client.proxy(TwoBodies)).toThrow(/TwoBodies\.post has more than one entity parameter/);
    expect(() => new Client().proxy(ProvidersContract)).toThrow(/the client has no baseUrl/);
    client.proxy(ProvidersContract);
    expect(() => client.register(new PointProvider())).toThrow(/register\(\) after the client made a call or a proxy/);
    await client.close();
  });

  it('bad options name the option', async () => {
    const { Client } = await import('../../src/client/index.js');
    expect(() => new Client({ headersTimeout: 0 })).toThrow(/headersTimeout must be a positive integer/);
    expect(() => new Client({ baseUrl: 'ftp://x' })).toThrow(/baseUrl must be an http\(s\) URL/);
    expect(() => new Client({ retry: { maxRetries: -1 } })).toThrow(/retry\.maxRetries must be a non-negative integer/);
    expect(() => new Client({ application: new Application(), baseUrl: 'http://x', dispatcher: {} as never })).toThrow(
      /application and dispatcher exclude each other/,
    );
  });
});
