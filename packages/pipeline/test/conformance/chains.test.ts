// Processing rules §2: which chains run. G = global providers, B = providers bound to the method.
import { describe, expect, it } from 'vitest';
import {
  Application,
  ContainerRequestContext,
  GET,
  MapsError,
  NameBinding,
  NotFoundError,
  Path,
  PreMatching,
  Priority,
  QueryParam,
  Response,
  type ContainerRequestFilter,
  type ContainerResponseContext,
  type ContainerResponseFilter,
  type ExceptionMapper,
  type WriterInterceptor,
  type WriterInterceptorContext,
} from '../../src/index.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

const Bound = NameBinding('Bound');
const log = (ctx: ContainerRequestContext, what: string): void => {
  const list = (ctx.getProperty('log') as string[] | undefined) ?? [];
  list.push(what);
  ctx.setProperty('log', list);
};

class Boom extends Error {}

@PreMatching()
class PreFilter implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    log(ctx, 'pre');
    const mode = ctx.getHeader('x-mode');
    if (mode === 'pre-abort') ctx.abortWith(Response.status(418).entity({ by: 'pre' }));
    if (mode === 'pre-throw') throw new Boom('pre');
  }
}

class GlobalFilter implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    log(ctx, 'post-G');
    const mode = ctx.getHeader('x-mode');
    if (mode === 'post-abort') ctx.abortWith(Response.status(403).entity({ by: 'post' }));
    if (mode === 'post-throw') throw new Boom('post');
  }
}

@Bound()
class BoundFilter implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    log(ctx, 'post-B');
  }
}

class GlobalResponse implements ContainerResponseFilter {
  filterResponse(req: ContainerRequestContext, res: ContainerResponseContext): void {
    res.setHeader('x-log', ((req.getProperty('log') as string[] | undefined) ?? []).join(','));
    log(req, 'resp-G');
    if (req.getHeader('x-mode') === 'resp-throw' && req.getProperty('thrown') === undefined) {
      req.setProperty('thrown', true);
      throw new Boom('resp');
    }
  }
}

@Bound()
@Priority(6000)
class BoundResponse implements ContainerResponseFilter {
  filterResponse(req: ContainerRequestContext): void {
    log(req, 'resp-B');
  }
}

class GlobalWriter implements WriterInterceptor {
  async aroundWriteTo(ctx: WriterInterceptorContext): Promise<void> {
    ctx.headers['x-writer-g'] = '1';
    await ctx.proceed();
  }
}

@Bound()
class BoundWriter implements WriterInterceptor {
  async aroundWriteTo(ctx: WriterInterceptorContext): Promise<void> {
    ctx.headers['x-writer-b'] = '1';
    await ctx.proceed();
  }
}

@MapsError(Boom)
class BoomMapper implements ExceptionMapper<Boom> {
  toResponse(e: Boom, req: ContainerRequestContext): Response {
    log(req, `mapper:${e.message}`);
    const count = Number(req.getProperty('mapped') ?? 0) + 1;
    req.setProperty('mapped', count);
    return Response.status(500).entity({ mapped: e.message, count }).build();
  }
}

@MapsError(NotFoundError)
class NotFoundMapper implements ExceptionMapper<NotFoundError> {
  toResponse(_e: NotFoundError, req: ContainerRequestContext): Response {
    log(req, 'mapper:404');
    return Response.status(404).entity({ mapped: 'not-found' }).build();
  }
}

@Path('/r')
class R {
  @GET()
  @Bound()
  get(@QueryParam('n') n: number): unknown {
    if (n === 13) throw new Boom('method');
    return { n };
  }
}

const app = (): Application =>
  new Application({
    resources: [R],
    providers: [PreFilter, GlobalFilter, BoundFilter, GlobalResponse, BoundResponse, GlobalWriter, BoundWriter, BoomMapper, NotFoundMapper],
    logger: () => undefined,
  });

describe.each(TRANSPORTS)('which chains run (%s)', (transport) => {
  const send = serveForSuite(transport, () => app());

  it('normal request: pre, G+B post filters, method, G+B response filters, G+B writer interceptors', async () => {
    const r = await send('/r?n=1');
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ n: 1 });
    expect(r.headers['x-log']).toBe('pre,post-G,post-B,resp-B');
    expect(r.headers['x-writer-g']).toBe('1');
    expect(r.headers['x-writer-b']).toBe('1');
  });

  it('pre-matching abort: no post filters, no method, no mapper; global response chains only', async () => {
    const r = await send({ url: '/r', headers: { 'x-mode': 'pre-abort' } });
    expect(r.status).toBe(418);
    expect(r.json()).toEqual({ by: 'pre' });
    expect(r.headers['x-log']).toBe('pre');
    expect(r.headers['x-writer-g']).toBe('1');
    expect(r.headers['x-writer-b']).toBeUndefined();
  });

  it('post-matching abort: chain stops there; G+B response chains', async () => {
    const r = await send({ url: '/r', headers: { 'x-mode': 'post-abort' } });
    expect(r.status).toBe(403);
    expect(r.headers['x-log']).toBe('pre,post-G,resp-B');
    expect(r.headers['x-writer-b']).toBe('1');
  });

  it('pre-matching filter throws: mapped once, global response chains', async () => {
    const r = await send({ url: '/r', headers: { 'x-mode': 'pre-throw' } });
    expect(r.json()).toEqual({ mapped: 'pre', count: 1 });
    expect(r.headers['x-log']).toBe('pre,mapper:pre');
    expect(r.headers['x-writer-b']).toBeUndefined();
  });

  it('post-matching filter throws: mapped once, G+B response chains', async () => {
    const r = await send({ url: '/r', headers: { 'x-mode': 'post-throw' } });
    expect(r.json()).toEqual({ mapped: 'post', count: 1 });
    expect(r.headers['x-log']).toBe('pre,post-G,mapper:post,resp-B');
    expect(r.headers['x-writer-b']).toBe('1');
  });

  it('no match: no post filters, mapper once, global chains only', async () => {
    const r = await send('/nothing');
    expect(r.status).toBe(404);
    expect(r.json()).toEqual({ mapped: 'not-found' });
    expect(r.headers['x-log']).toBe('pre,mapper:404');
    expect(r.headers['x-writer-b']).toBeUndefined();
  });

  it('resource method throws: mapped once, G+B response chains', async () => {
    const r = await send('/r?n=13');
    expect(r.json()).toEqual({ mapped: 'method', count: 1 });
    expect(r.headers['x-log']).toBe('pre,post-G,post-B,mapper:method,resp-B');
  });

  it('response filter throws on an unmapped response: mapped once, then response filters run on the mapped response', async () => {
    const r = await send({ url: '/r?n=1', headers: { 'x-mode': 'resp-throw' } });
    expect(r.status).toBe(500);
    expect(r.json()).toEqual({ mapped: 'resp', count: 1 });
    expect(r.headers['x-log']).toBe('pre,post-G,post-B,resp-B,resp-G,mapper:resp,resp-B');
  });

  it('parameter conversion fails: no method, mapped once (400), G+B response chains', async () => {
    const r = await send('/r?n=abc');
    expect(r.status).toBe(400);
    expect(r.headers['x-log']).toBe('pre,post-G,post-B,resp-B');
    expect(r.headers['x-writer-b']).toBe('1');
  });
});
