import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ForbiddenError, NotAuthorizedError, WebApplicationError } from '../../../src/core/http/errors.js';
import { classMeta, methodMeta } from '../../../src/core/model/metadata.js';
import type { Constructor, ContainerRequestFilter, FeatureContext } from '../../../src/core/context/contracts.js';
import { ContainerRequestContext } from '../../../src/core/context/request-context.js';
import { ResourceInfo } from '../../../src/core/context/resource-info.js';
import { SecurityContext } from '../../../src/core/context/security-context.js';
import type { NameBindingDecorator } from '../../../src/decorators/binding.js';
import {
  DenyAll,
  DenyAllFilter,
  PermitAll,
  RolesAllowed,
  RolesAllowedFeature,
  RolesAllowedFilter,
} from '../../../src/features/security/index.js';

/** A FeatureContext that records what the feature registers. */
function recorder(): FeatureContext & { registered: { provider: object; priority: number | undefined }[] } {
  const registered: { provider: object; priority: number | undefined }[] = [];
  const ctx = {
    registered,
    register(provider: Constructor | object, options?: { priority?: number }) {
      registered.push({ provider, priority: options?.priority });
      return ctx;
    },
  };
  return ctx;
}

/** What the application does at start-up: class bindings, then method bindings on top (method wins). */
function infoFor(resourceClass: Constructor, methodName: string): ResourceInfo {
  const bindings = new Map<NameBindingDecorator, unknown[]>(classMeta(resourceClass).bindings);
  for (const [k, v] of methodMeta(resourceClass, methodName).bindings) bindings.set(k, v);
  return new ResourceInfo(resourceClass, methodName, 'GET', '/x', bindings);
}

function requestAs(security?: SecurityContext): ContainerRequestContext {
  const fakeReq = { headers: {}, socket: {} } as unknown as IncomingMessage;
  const fakeRes = {} as unknown as ServerResponse;
  const ctx = new ContainerRequestContext(fakeReq, fakeRes, 'GET', '/x', '', false);
  if (security !== undefined) ctx.securityContext = security;
  return ctx;
}

const anonymous = requestAs;
const userWith = (...roles: string[]) => requestAs(SecurityContext.of({ name: 'alice' }, roles, 'Bearer'));

/** Runs configure for one method and returns the single registered filter (or undefined). */
function filterFor(info: ResourceInfo, feature = new RolesAllowedFeature()): ContainerRequestFilter | undefined {
  const rec = recorder();
  feature.configure(info, rec);
  expect(rec.registered.length).toBeLessThanOrEqual(1);
  const entry = rec.registered[0];
  if (entry === undefined) return undefined;
  expect(entry.priority).toBe(2000);
  return entry.provider as ContainerRequestFilter;
}

/** Runs the filter and returns the HTTP status it throws, or 'pass'. */
function outcome(filter: ContainerRequestFilter, ctx: ContainerRequestContext): number | 'pass' {
  try {
    const r = filter.filterRequest(ctx);
    expect(r).toBeUndefined(); // synchronous: no promise on the hot path
    expect(ctx.abortResponse).toBeUndefined();
    return 'pass';
  } catch (e) {
    if (!(e instanceof WebApplicationError)) throw e;
    return e.status;
  }
}

@RolesAllowed('ADMIN')
class AdminResource {
  list() {
    return [];
  }
  @PermitAll() health() {
    return 'ok';
  }
  @RolesAllowed('USER', 'AUDITOR') mine() {
    return [];
  }
  @DenyAll() purge() {
    return undefined;
  }
}

class OpenResource {
  plain() {
    return 1;
  }
  @RolesAllowed('USER') guarded() {
    return 2;
  }
  @RolesAllowed() nobody() {
    return 3;
  }
}

@DenyAll()
class LockedResource {
  hidden() {
    return 1;
  }
  @RolesAllowed('ADMIN') adminOnly() {
    return 2;
  }
  @PermitAll() open() {
    return 3;
  }
}

@PermitAll()
class PublicResource {
  read() {
    return 1;
  }
}

class ChildOfAdmin extends AdminResource {
  extra() {
    return 4;
  }
}

describe('RolesAllowed, PermitAll, DenyAll bindings', () => {
  it('carry their arguments, readable through resourceInfo.getBinding', () => {
    expect(infoFor(AdminResource, 'list').getBinding(RolesAllowed)).toEqual(['ADMIN']);
    expect(infoFor(AdminResource, 'mine').getBinding(RolesAllowed)).toEqual(['USER', 'AUDITOR']);
    expect(infoFor(AdminResource, 'purge').hasBinding(DenyAll)).toBe(true);
    expect(infoFor(OpenResource, 'plain').getBinding(RolesAllowed)).toBeUndefined();
  });
});

describe('RolesAllowedFeature with RolesAllowed', () => {
  it('answers 401 with WWW-Authenticate when nobody is authenticated', () => {
    const filter = filterFor(infoFor(AdminResource, 'list'))!;
    expect(filter).toBeInstanceOf(RolesAllowedFilter);
    try {
      (filter as RolesAllowedFilter).filterRequest(anonymous());
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(NotAuthorizedError);
      const err = e as NotAuthorizedError;
      expect(err.status).toBe(401);
      expect(err.headers['www-authenticate']).toBe('Bearer realm="api"');
      expect(err.code).toBe('PIPE_NOT_AUTHENTICATED');
    }
  });

  it('answers 403 when the caller is authenticated but lacks every role', () => {
    const filter = filterFor(infoFor(AdminResource, 'list'))!;
    expect(outcome(filter, userWith('USER'))).toBe(403);
    expect(outcome(filter, userWith())).toBe(403);
    expect(() => filter.filterRequest(userWith('USER'))).toThrow(ForbiddenError);
  });

  it('lets a caller with one of the roles pass', () => {
    expect(outcome(filterFor(infoFor(AdminResource, 'list'))!, userWith('USER', 'ADMIN'))).toBe('pass');
    const mine = filterFor(infoFor(AdminResource, 'mine'))!;
    expect(outcome(mine, userWith('AUDITOR'))).toBe('pass');
    expect(outcome(mine, userWith('USER'))).toBe('pass');
  });

  it('applies a method-level RolesAllowed on an unannotated class', () => {
    const filter = filterFor(infoFor(OpenResource, 'guarded'))!;
    expect(outcome(filter, anonymous())).toBe(401);
    expect(outcome(filter, userWith('ADMIN'))).toBe(403);
    expect(outcome(filter, userWith('USER'))).toBe('pass');
  });

  it('treats an empty role list as "no authenticated caller", still 401 first', () => {
    const filter = filterFor(infoFor(OpenResource, 'nobody'))!;
    expect(outcome(filter, anonymous())).toBe(401);
    expect(outcome(filter, userWith('ADMIN'))).toBe(403);
  });
});

describe('method level beats class level (JSR-250)', () => {
  it('method RolesAllowed replaces class RolesAllowed', () => {
    const filter = filterFor(infoFor(AdminResource, 'mine'))!;
    expect(outcome(filter, userWith('ADMIN'))).toBe(403);
    expect(outcome(filter, userWith('USER'))).toBe('pass');
  });

  it('method PermitAll overrides class RolesAllowed: no filter at all', () => {
    expect(filterFor(infoFor(AdminResource, 'health'))).toBeUndefined();
  });

  it('method RolesAllowed and PermitAll override class DenyAll', () => {
    const filter = filterFor(infoFor(LockedResource, 'adminOnly'))!;
    expect(outcome(filter, userWith('ADMIN'))).toBe('pass');
    expect(filterFor(infoFor(LockedResource, 'open'))).toBeUndefined();
  });

  it('a subclass without annotations keeps the class-level RolesAllowed of its base', () => {
    const filter = filterFor(infoFor(ChildOfAdmin, 'extra'))!;
    expect(outcome(filter, anonymous())).toBe(401);
    expect(outcome(filter, userWith('ADMIN'))).toBe('pass');
  });
});

describe('DenyAll and PermitAll', () => {
  it('DenyAll on a method answers 403 to everyone, authenticated or not', () => {
    const filter = filterFor(infoFor(AdminResource, 'purge'))!;
    expect(filter).toBeInstanceOf(DenyAllFilter);
    expect(outcome(filter, anonymous())).toBe(403);
    expect(outcome(filter, userWith('ADMIN'))).toBe(403);
  });

  it('DenyAll on a class covers its unannotated methods', () => {
    expect(outcome(filterFor(infoFor(LockedResource, 'hidden'))!, userWith('ADMIN'))).toBe(403);
  });

  it('PermitAll on a class and no annotation register nothing', () => {
    expect(filterFor(infoFor(PublicResource, 'read'))).toBeUndefined();
    expect(filterFor(infoFor(OpenResource, 'plain'))).toBeUndefined();
  });
});

describe('hand-built ResourceInfo (no decorator metadata)', () => {
  class Bare {
    get() {
      return 1;
    }
  }
  const info = (bindings: Map<NameBindingDecorator, unknown[]>) => new ResourceInfo(Bare, 'get', 'GET', '/bare', bindings);

  it('falls back to the merged bindings map', () => {
    const filter = filterFor(info(new Map([[RolesAllowed as unknown as NameBindingDecorator, ['OPS']]])))!;
    expect(outcome(filter, anonymous())).toBe(401);
    expect(outcome(filter, userWith('OPS'))).toBe('pass');
    expect(filterFor(info(new Map([[DenyAll as NameBindingDecorator, []]])))).toBeInstanceOf(DenyAllFilter);
    expect(filterFor(info(new Map()))).toBeUndefined();
  });

  it('rejects non-string roles at start-up', () => {
    const bad = info(new Map([[RolesAllowed as unknown as NameBindingDecorator, ['OPS', 7]]]));
    expect(() => new RolesAllowedFeature().configure(bad, recorder())).toThrow(/Bare\.get.*non-empty strings/);
  });
});

describe('challenge option', () => {
  it('uses a fixed custom challenge', () => {
    const filter = filterFor(infoFor(AdminResource, 'list'), new RolesAllowedFeature({ challenge: 'Basic realm="admin"' }))!;
    expect(() => filter.filterRequest(anonymous())).toThrow(
      expect.objectContaining({
        status: 401,
        headers: { 'www-authenticate': 'Basic realm="admin"' },
      }),
    );
  });

  it('computes the challenge per request', () => {
    const feature = new RolesAllowedFeature({
      challenge: (req) => (req.getHeader('x-client') === 'cli' ? 'Basic realm="api"' : 'Bearer realm="api"'),
    });
    const filter = filterFor(infoFor(AdminResource, 'list'), feature)!;
    const cli = new ContainerRequestContext(
      { headers: { 'x-client': 'cli' } } as unknown as IncomingMessage,
      {} as ServerResponse,
      'GET',
      '/x',
      '',
      false,
    );
    expect(() => filter.filterRequest(cli)).toThrow(expect.objectContaining({ headers: { 'www-authenticate': 'Basic realm="api"' } }));
    expect(() => filter.filterRequest(anonymous())).toThrow(
      expect.objectContaining({ headers: { 'www-authenticate': 'Bearer realm="api"' } }),
    );
  });

  it('refuses challenges that would split the response header', () => {
    expect(() => new RolesAllowedFeature({ challenge: 'Bearer\r\nSet-Cookie: x=1' })).toThrow(TypeError);
    expect(() => new RolesAllowedFeature({ challenge: '' })).toThrow(TypeError);
    const filter = filterFor(infoFor(AdminResource, 'list'), new RolesAllowedFeature({ challenge: () => 'x\ny' }))!;
    // A programming error, surfaced as a plain Error (→ 500), never as a broken 401.
    expect(() => filter.filterRequest(anonymous())).toThrow(TypeError);
  });
});
