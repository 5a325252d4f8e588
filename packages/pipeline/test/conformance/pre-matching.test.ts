// Processing rules §1: a @PreMatching filter may change method, URI and headers before matching;
// post-matching filters may not (JAX-RS 6.4: IllegalStateException → 500).
import { describe, expect, it } from 'vitest';
import {
  Application,
  Consumes,
  ContainerRequestContext,
  GET,
  HeaderParam,
  Path,
  POST,
  PreMatching,
  PUT,
  QueryParam,
  type ContainerRequestFilter,
} from '../../src/index.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

@PreMatching()
class MethodOverride implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    const override = ctx.getHeader('x-http-method-override');
    if (ctx.method === 'POST' && override !== undefined) ctx.setMethod(override);
  }
}

@PreMatching()
class VersionPrefix implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    if (ctx.path.startsWith('/v1/')) {
      ctx.setRequestUri(`${ctx.path.slice(3)}${ctx.rawQuery === '' ? '' : `?${ctx.rawQuery}`}`);
      ctx.setHeader('x-api-generation', 'v1');
    }
  }
}

class LateRewrite implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    if (ctx.getHeader('x-late') !== undefined) ctx.setMethod('DELETE');
  }
}

@Path('/items')
class Items {
  @GET() list(@QueryParam('q') q: string | undefined, @HeaderParam('x-api-generation') gen: string | undefined): unknown {
    return { method: 'GET', q: q ?? null, gen: gen ?? null };
  }
  @PUT() @Consumes('application/json') replace(body: unknown): unknown {
    return { method: 'PUT', body };
  }
  @POST() @Consumes('application/json') create(): unknown {
    return { method: 'POST' };
  }
}

describe.each(TRANSPORTS)('pre-matching rewrites (%s)', (transport) => {
  const send = serveForSuite(
    transport,
    () =>
      new Application({
        resources: [Items],
        providers: [MethodOverride, VersionPrefix, LateRewrite],
        logger: () => undefined,
      }),
  );

  it('a pre-matching filter changes the method before matching (X-HTTP-Method-Override)', async () => {
    const r = await send({ method: 'POST', url: '/items', headers: { 'x-http-method-override': 'PUT' }, body: { a: 1 } });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ method: 'PUT', body: { a: 1 } });
  });

  it('an overridden method in lower case, built at run time, still finds its resource method', async () => {
    // setMethod upper-cases into a fresh (not interned) string: matching compares contents.
    const r = await send({ method: 'POST', url: '/items', headers: { 'x-http-method-override': 'put' }, body: { a: 2 } });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ method: 'PUT', body: { a: 2 } });
  });

  it('a pre-matching filter changes the URI (query kept) and a header the resource then reads', async () => {
    const r = await send('/v1/items?q=x');
    expect(r.json()).toEqual({ method: 'GET', q: 'x', gen: 'v1' });
    expect((await send('/items')).json()).toEqual({ method: 'GET', q: null, gen: null });
  });

  it('a post-matching filter may not change the method: 500, nothing leaked', async () => {
    const r = await send({ url: '/items', headers: { 'x-late': '1' } });
    expect(r.status).toBe(500);
    expect(r.text).not.toContain('PreMatching');
  });
});
