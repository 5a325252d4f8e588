// Processing rules §1 and §3: the order of stages and providers, priorities, ties, binding, DynamicFeature.
import { describe, expect, it } from 'vitest';
import {
  Application,
  ContainerRequestContext,
  GET,
  NameBinding,
  Path,
  POST,
  PreMatching,
  Priority,
  Priorities,
  ResourceInfo,
  type ContainerRequestFilter,
  type ContainerResponseContext,
  type ContainerResponseFilter,
  type DynamicFeature,
  type FeatureContext,
  type ReaderInterceptor,
  type ReaderInterceptorContext,
  type WriterInterceptor,
  type WriterInterceptorContext,
} from '../../src/index.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

const push = (ctx: ContainerRequestContext, s: string): void => {
  const l = (ctx.getProperty('order') as string[] | undefined) ?? [];
  l.push(s);
  ctx.setProperty('order', l);
};

const Logged = NameBinding('Logged');
const Audited = NameBinding('Audited');
const AppWide = NameBinding('AppWide');
const RolesAllowed = NameBinding<string[]>('RolesAllowed');

function reqFilter(name: string): new () => ContainerRequestFilter {
  return class implements ContainerRequestFilter {
    filterRequest(ctx: ContainerRequestContext): void {
      push(ctx, name);
    }
  };
}
function respFilter(name: string): new () => ContainerResponseFilter {
  return class implements ContainerResponseFilter {
    filterResponse(req: ContainerRequestContext, res: ContainerResponseContext): void {
      push(req, name);
      res.setHeader('x-order', (req.getProperty('order') as string[]).join(','));
    }
  };
}

@Priority(Number.MAX_SAFE_INTEGER)
class Max extends reqFilter('max') {}
@Priority(-Number.MAX_SAFE_INTEGER)
class Min extends reqFilter('min') {}
@Priority(Priorities.AUTHENTICATION)
class Authn extends reqFilter('authn') {}
@Priority(Priorities.AUTHORIZATION)
class Authz extends reqFilter('authz') {}
class UserA extends reqFilter('userA') {}
class UserB extends reqFilter('userB') {}
@Logged()
class BoundTie extends reqFilter('bound-tie') {}
@Logged()
@Audited()
class BothBound extends reqFilter('both') {}
@AppWide()
class AppBound extends reqFilter('app-bound') {}
@PreMatching()
@Logged()
@Priority(1)
class PreBound extends reqFilter('pre-ignores-binding') {}
@Priority(Priorities.AUTHENTICATION)
class Overridden extends reqFilter('overridden') {}
class ReadsRoles implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    push(ctx, `roles=${(ctx.resourceInfo?.getBinding(RolesAllowed) ?? []).join('|')}`);
  }
}
@RolesAllowed()
class RoleBound extends ReadsRoles {}

@Priority(Number.MAX_SAFE_INTEGER)
class RespMax extends respFilter('resp-max') {}
@Priority(Priorities.HEADER_DECORATOR)
class RespHeader extends respFilter('resp-header') {}
@Priority(-Number.MAX_SAFE_INTEGER)
class RespMin extends respFilter('resp-min') {}

class DynamicOnPost implements DynamicFeature {
  configure(info: ResourceInfo, ctx: FeatureContext): void {
    if (info.httpMethod === 'POST') ctx.register(new (reqFilter(`dynamic:${info.methodName}`))(), { priority: Priorities.USER });
  }
}

@Priority(Priorities.ENTITY_CODER)
class ReadA implements ReaderInterceptor {
  async aroundReadFrom(ctx: ReaderInterceptorContext): Promise<unknown> {
    push(ctx.request, 'read-4000');
    return ctx.proceed();
  }
}
class ReadB implements ReaderInterceptor {
  async aroundReadFrom(ctx: ReaderInterceptorContext): Promise<unknown> {
    push(ctx.request, 'read-5000');
    return ctx.proceed();
  }
}
class WriteB implements WriterInterceptor {
  async aroundWriteTo(ctx: WriterInterceptorContext): Promise<void> {
    push(ctx.request, 'write-5000');
    ctx.headers['x-final-order'] = (ctx.request.getProperty('order') as string[]).join(',');
    await ctx.proceed();
  }
}
@Priority(Priorities.ENTITY_CODER)
class WriteA implements WriterInterceptor {
  async aroundWriteTo(ctx: WriterInterceptorContext): Promise<void> {
    push(ctx.request, 'write-4000');
    await ctx.proceed();
  }
}

@Path('/o')
@Logged()
class OrderResource {
  @GET()
  get(@ContextReq() ctx: ContainerRequestContext): unknown {
    push(ctx, 'method');
    return { ok: true };
  }

  @POST()
  @Audited()
  @RolesAllowed('ADMIN', 'OPS')
  post(body: { x: number }, @ContextReq() ctx: ContainerRequestContext): unknown {
    push(ctx, `method:${body.x}`);
    return { ok: true };
  }
}

@Path('/plain')
class Plain {
  @GET() get(): string {
    return 'plain';
  }
}

import { Context as ContextReq } from '../../src/index.js';

const build = (): Application =>
  new Application({
    resources: [OrderResource, Plain],
    providers: [
      Max,
      Min,
      Authz,
      Authn,
      UserA,
      UserB,
      BoundTie,
      BothBound,
      AppBound,
      PreBound,
      RoleBound,
      RespMax,
      RespHeader,
      RespMin,
      DynamicOnPost,
      ReadB,
      ReadA,
      WriteB,
      WriteA,
    ],
    bindings: [AppWide],
  }).register(Overridden, { priority: 3500 });

/**
 * The global request filters every request meets first, ascending: the pre-matching one, then by
 * priority, the USER tie in registration order (`app-bound` is global: its binding is on the
 * application). `max` is global too but comes after a resource's bound filters, so each test
 * lists it in its place.
 */
const GLOBAL_REQUEST_FILTERS = ['pre-ignores-binding', 'min', 'authn', 'authz', 'overridden', 'userA', 'userB', 'app-bound'];
/** After the method: response filters descending, then writer interceptors ascending. */
const RESPONSE_CHAIN = ['resp-max', 'resp-header', 'resp-min', 'write-4000', 'write-5000'];

describe.each(TRANSPORTS)('order and priorities (%s)', (transport) => {
  const send = serveForSuite(transport, () => build());

  it('request filters ascend (extreme values included, explicit priority beats @Priority), ties: global before bound, then registration order; response filters descend', async () => {
    const r = await send('/o');
    expect(r.status).toBe(200);
    expect(String(r.headers['x-final-order']).split(',')).toEqual([
      ...GLOBAL_REQUEST_FILTERS,
      'bound-tie',
      'max',
      'method',
      ...RESPONSE_CHAIN,
    ]);
  });

  it('AND binding, binding arguments and DynamicFeature on the POST method only; reader interceptors ascend', async () => {
    const r = await send({ method: 'POST', url: '/o', body: { x: 7 } });
    expect(r.status).toBe(200);
    expect(String(r.headers['x-final-order']).split(',')).toEqual([
      ...GLOBAL_REQUEST_FILTERS,
      'bound-tie',
      'both',
      'roles=ADMIN|OPS',
      'dynamic:post',
      'max',
      'read-4000',
      'read-5000',
      'method:7',
      ...RESPONSE_CHAIN,
    ]);
  });

  it('an unbound resource gets only global providers (pre-matching ignores its binding)', async () => {
    const r = await send('/plain');
    expect(r.text).toBe('plain');
    expect(String(r.headers['x-final-order']).split(',')).toEqual([...GLOBAL_REQUEST_FILTERS, 'max', ...RESPONSE_CHAIN]);
  });
});
