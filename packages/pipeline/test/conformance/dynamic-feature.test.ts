// Processing rules §3: DynamicFeature.configure(resourceInfo, context) runs once per resource method
// at start-up; what it registers applies to that method only and joins the same sorted chains
// (ties: global, then name-bound, then dynamic).
import { describe, expect, it } from 'vitest';
import {
  Application,
  Context,
  ContainerRequestContext,
  DELETE,
  GET,
  NameBinding,
  Path,
  PathParam,
  POST,
  Priority,
  Response,
  ResourceInfo,
  type ContainerRequestFilter,
  type ContainerResponseContext,
  type ContainerResponseFilter,
  type DynamicFeature,
  type FeatureContext,
  type WriterInterceptor,
  type WriterInterceptorContext,
} from '../../src/index.js';
import { serveForSuite, TRANSPORTS, type Send } from '../helpers/transports.js';

const Tagged = NameBinding<[string, number]>('Tagged');
const Audited = NameBinding('Audited');

const trail = (ctx: ContainerRequestContext, step: string): void => {
  const list = (ctx.getProperty('trail') as string[] | undefined) ?? [];
  list.push(step);
  ctx.setProperty('trail', list);
};

/** One class, many instances: priorities come from the registration (they beat @Priority). */
class StepFilter implements ContainerRequestFilter {
  constructor(readonly label: string) {}
  filterRequest(ctx: ContainerRequestContext): void {
    trail(ctx, this.label);
    if (ctx.getHeader('x-abort-at') === this.label) ctx.abortWith(Response.status(409).entity({ abortedAt: this.label }));
  }
}

@Audited()
class AuditedFilter extends StepFilter {
  constructor() {
    super('bound-5000');
  }
}

class GlobalResponseFilter implements ContainerResponseFilter {
  filterResponse(req: ContainerRequestContext): void {
    trail(req, 'g-resp-5000');
  }
}

@Priority(6000)
class DynamicResponseFilter implements ContainerResponseFilter {
  filterResponse(req: ContainerRequestContext, res: ContainerResponseContext): void {
    trail(req, 'dyn-resp-6000');
    res.setHeader('x-admin', 'true');
  }
}

class DynamicWriter implements WriterInterceptor {
  async aroundWriteTo(ctx: WriterInterceptorContext): Promise<void> {
    trail(ctx.request, 'dyn-writer-1');
    await ctx.proceed();
  }
}

/** Global, last writer interceptor: publishes the whole trail. */
class TrailWriter implements WriterInterceptor {
  async aroundWriteTo(ctx: WriterInterceptorContext): Promise<void> {
    ctx.headers['x-trail'] = ((ctx.request.getProperty('trail') as string[] | undefined) ?? []).join(',');
    await ctx.proceed();
  }
}

interface Seen {
  httpMethod: string;
  path: string;
  methodName: string;
  resource: string;
  tagged: unknown;
  audited: boolean;
}

/** Filters for every method whose name starts with `admin`; records what it was shown. */
class AdminFeature implements DynamicFeature {
  readonly seen: Seen[] = [];
  configure(info: ResourceInfo, context: FeatureContext): void {
    this.seen.push({
      httpMethod: info.httpMethod,
      path: info.path,
      methodName: info.methodName,
      resource: info.resourceClass.name,
      tagged: info.getBinding(Tagged) ?? null,
      audited: info.hasBinding(Audited),
    });
    if (!info.methodName.startsWith('admin')) return;
    context
      .register(new StepFilter('dyn-2500'), { priority: 2500 })
      .register(new StepFilter('dyn-5000'))
      .register(DynamicResponseFilter)
      .register(new DynamicWriter(), { priority: 1 });
  }
}

@Path('/users')
@Tagged('class', 0)
class UserResource {
  @GET()
  list(@Context() ctx: ContainerRequestContext): unknown {
    trail(ctx, 'method');
    return ['ada'];
  }

  @GET('{id}')
  @Tagged('users', 2)
  adminGet(@PathParam('id') id: string, @Context() ctx: ContainerRequestContext): unknown {
    trail(ctx, 'method');
    return { id };
  }

  @DELETE('{id}')
  adminDelete(@Context() ctx: ContainerRequestContext): unknown {
    trail(ctx, 'method');
    return { deleted: true };
  }

  @POST()
  @Audited()
  adminCreate(body: { name: string }, @Context() ctx: ContainerRequestContext): unknown {
    trail(ctx, 'method');
    return body;
  }
}

@Path('/ping')
class PingResource {
  @GET() ping(@Context() ctx: ContainerRequestContext): unknown {
    trail(ctx, 'method');
    return { pong: true };
  }
}

const build = (feature: AdminFeature): Application =>
  new Application({
    resources: [UserResource, PingResource],
    providers: [feature, AuditedFilter, GlobalResponseFilter, TrailWriter],
    logger: () => undefined,
  })
    .register(new StepFilter('g-9000'), { priority: 9000 })
    .register(new StepFilter('g-5000'))
    .register(new StepFilter('g-3000'), { priority: 3000 })
    .register(new StepFilter('g-1000'), { priority: 1000 });

const PLAIN = ['g-1000', 'g-3000', 'g-5000', 'g-9000', 'method', 'g-resp-5000'];
const ADMIN = ['g-1000', 'dyn-2500', 'g-3000', 'g-5000', 'dyn-5000', 'g-9000', 'method', 'dyn-resp-6000', 'g-resp-5000', 'dyn-writer-1'];

describe.each(TRANSPORTS)('DynamicFeature (%s)', (transport) => {
  const feature = new AdminFeature();
  const send = serveForSuite(transport, () => build(feature));

  const trailOf = (r: Awaited<ReturnType<Send>>): string[] => String(r.headers['x-trail']).split(',');

  it('configure() ran once per resource method at start-up and saw httpMethod, path, methodName and bindings with args', () => {
    expect(feature.seen).toHaveLength(5);
    expect(feature.seen).toEqual(
      expect.arrayContaining([
        { httpMethod: 'GET', path: '/users', methodName: 'list', resource: 'UserResource', tagged: ['class', 0], audited: false },
        { httpMethod: 'GET', path: '/users/{id}', methodName: 'adminGet', resource: 'UserResource', tagged: ['users', 2], audited: false },
        {
          httpMethod: 'DELETE',
          path: '/users/{id}',
          methodName: 'adminDelete',
          resource: 'UserResource',
          tagged: ['class', 0],
          audited: false,
        },
        { httpMethod: 'POST', path: '/users', methodName: 'adminCreate', resource: 'UserResource', tagged: ['class', 0], audited: true },
        { httpMethod: 'GET', path: '/ping', methodName: 'ping', resource: 'PingResource', tagged: null, audited: false },
      ]),
    );
  });

  it('methods that do not match the rule get only the global chains', async () => {
    const r = await send('/users');
    expect(r.status).toBe(200);
    expect(trailOf(r)).toEqual(PLAIN);
    expect(r.headers['x-admin']).toBeUndefined();
    expect(trailOf(await send('/ping'))).toEqual(PLAIN);
  });

  it('matching methods get the dynamic filters, ordered by priority among the global ones (ties: global first)', async () => {
    const r = await send('/users/7');
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ id: '7' });
    expect(r.headers['x-admin']).toBe('true');
    expect(trailOf(r)).toEqual(ADMIN);
    expect(trailOf(await send({ method: 'DELETE', url: '/users/7' }))).toEqual(ADMIN);
  });

  it('equal priorities: global, then name-bound, then dynamic', async () => {
    const r = await send({ method: 'POST', url: '/users', body: { name: 'grace' } });
    expect(r.status).toBe(200);
    expect(trailOf(r)).toEqual([
      'g-1000',
      'dyn-2500',
      'g-3000',
      'g-5000',
      'bound-5000',
      'dyn-5000',
      'g-9000',
      'method',
      'dyn-resp-6000',
      'g-resp-5000',
      'dyn-writer-1',
    ]);
  });

  it('a post-matching abort still runs the dynamic response filters and writer interceptors (G+B)', async () => {
    const r = await send({ url: '/users/7', headers: { 'x-abort-at': 'g-3000' } });
    expect(r.status).toBe(409);
    expect(trailOf(r)).toEqual(['g-1000', 'dyn-2500', 'g-3000', 'dyn-resp-6000', 'g-resp-5000', 'dyn-writer-1']);
  });

  it('a request that matches nothing never sees dynamic providers', async () => {
    const r = await send('/users/7/nothing');
    expect(r.status).toBe(404);
    expect(r.headers['x-admin']).toBeUndefined();
    expect(trailOf(r)).toEqual(['g-resp-5000']);
  });

  it('configure() is not called again per request', () => {
    expect(feature.seen).toHaveLength(5);
  });
});
