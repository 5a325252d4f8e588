// Processing rules §7 and §3: an authentication filter sets the SecurityContext; RolesAllowedFeature
// (a DynamicFeature) enforces RolesAllowed / PermitAll / DenyAll: 401 + WWW-Authenticate without
// a caller, 403 without the role; the method's annotation replaces the class's.
import { describe, expect, it } from 'vitest';
import {
  Application,
  Context,
  ContainerRequestContext,
  DELETE,
  DenyAll,
  GET,
  NotAuthorizedError,
  Path,
  PermitAll,
  POST,
  Priorities,
  Priority,
  RolesAllowed,
  RolesAllowedFeature,
  SecurityContext,
  type ContainerRequestFilter,
} from '../../src/index.js';
import { serveForSuite, TRANSPORTS, type Send } from '../helpers/transports.js';

/** `Authorization: Bearer <name>:<ROLE,ROLE>`; a malformed token is a 401 of its own. */
@Priority(Priorities.AUTHENTICATION)
class BearerAuthFilter implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    const h = ctx.getHeader('authorization');
    if (h === undefined) return;
    const m = /^Bearer ([a-z]+):([A-Z,]*)$/.exec(h);
    if (m === null) throw new NotAuthorizedError('Bearer realm="api", error="invalid_token"', 'Invalid token');
    ctx.securityContext = SecurityContext.of(
      { name: m[1]! },
      m[2]!.split(',').filter((r) => r !== ''),
      'Bearer',
    );
  }
}

let methodCalls = 0;
const hit = (what: string): unknown => {
  methodCalls++;
  return { ok: what };
};

@Path('/admin')
class AdminResource {
  @GET('report')
  @RolesAllowed('ADMIN')
  report(@Context() sc: SecurityContext): unknown {
    methodCalls++;
    return { user: sc.principal?.name, scheme: sc.authenticationScheme, admin: sc.isUserInRole('ADMIN') };
  }

  @GET('either') @RolesAllowed('ADMIN', 'OPS') either(): unknown {
    return hit('either');
  }
  @DELETE('all') @DenyAll() purge(): unknown {
    return hit('purge');
  }
  @GET('open') open(): unknown {
    return hit('open');
  }

  @POST('import')
  @RolesAllowed('ADMIN')
  import(body: { rows: number }): unknown {
    return { rows: body.rows };
  }
}

@Path('/staff')
@RolesAllowed('ADMIN')
class StaffResource {
  @GET() list(): unknown {
    return hit('list');
  }
  @GET('ping') @PermitAll() ping(): unknown {
    return hit('ping');
  }
  @GET('users') @RolesAllowed('USER') users(): unknown {
    return hit('users');
  }
  @DELETE() @DenyAll() wipe(): unknown {
    return hit('wipe');
  }
}

@Path('/vault')
@DenyAll()
class VaultResource {
  @GET() get(): unknown {
    return hit('vault');
  }
  @GET('lobby') @PermitAll() lobby(): unknown {
    return hit('lobby');
  }
}

@RolesAllowed('ADMIN')
class SecuredBase {}

@Path('/sub')
class SubResource extends SecuredBase {
  @GET() get(): unknown {
    return hit('sub');
  }
}

const app = (): Application =>
  new Application({
    resources: [AdminResource, StaffResource, VaultResource, SubResource],
    providers: [
      BearerAuthFilter,
      new RolesAllowedFeature({ challenge: (req) => (req.path.startsWith('/staff') ? 'Basic realm="staff"' : 'Bearer realm="api"') }),
    ],
    logger: () => undefined,
  });

const as = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
const ADMIN = as('alice:ADMIN');
const USER = as('bob:USER');
const OPS = as('olga:OPS');

describe.each(TRANSPORTS)('security (%s)', (transport) => {
  const send = serveForSuite(transport, () => app());

  const get = (url: string, headers: Record<string, string> = {}, method = 'GET'): ReturnType<Send> => send({ method, url, headers });

  it('RolesAllowed: 401 with WWW-Authenticate when nobody is authenticated', async () => {
    const before = methodCalls;
    const r = await get('/admin/report');
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toBe('Bearer realm="api"');
    expect(r.json()).toMatchObject({ status: 401, code: 'PIPE_NOT_AUTHENTICATED' });
    expect(methodCalls).toBe(before);
  });

  it('RolesAllowed: 403 when authenticated without the role (no challenge, no role names leaked)', async () => {
    const r = await get('/admin/report', USER);
    expect(r.status).toBe(403);
    expect(r.headers['www-authenticate']).toBeUndefined();
    expect(r.json()).toMatchObject({ status: 403, code: 'PIPE_FORBIDDEN' });
    expect(r.text).not.toContain('ADMIN');
  });

  it('RolesAllowed: 200 with the role; the resource sees the SecurityContext set by the filter', async () => {
    const r = await get('/admin/report', ADMIN);
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ user: 'alice', scheme: 'Bearer', admin: true });
  });

  it('RolesAllowed with several roles admits any one of them', async () => {
    expect((await get('/admin/either', OPS)).status).toBe(200);
    expect((await get('/admin/either', ADMIN)).status).toBe(200);
    expect((await get('/admin/either', USER)).status).toBe(403);
    expect((await get('/admin/either', as('nobody:'))).status).toBe(403);
  });

  it('the authentication filter runs first: a bad token is its own 401', async () => {
    const r = await get('/admin/report', { authorization: 'Bearer !!!' });
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_token"');
  });

  it('authorization happens before the entity is read', async () => {
    const headers = { 'content-type': 'application/json' };
    const r = await send({ method: 'POST', url: '/admin/import', headers, body: '{not json' });
    expect(r.status).toBe(401);
    const authed = await send({ method: 'POST', url: '/admin/import', headers: { ...headers, ...ADMIN }, body: '{"rows":3}' });
    expect(authed.json()).toEqual({ rows: 3 });
  });

  it('DenyAll → 403 for everyone, even an admin', async () => {
    for (const headers of [{}, ADMIN]) {
      const r = await get('/admin/all', headers, 'DELETE');
      expect(r.status).toBe(403);
      expect(r.json().code).toBe('PIPE_FORBIDDEN');
    }
  });

  it('a method without any annotation is open', async () => {
    expect((await get('/admin/open')).json()).toEqual({ ok: 'open' });
  });

  it('class-level RolesAllowed covers methods without their own annotation (custom challenge)', async () => {
    const r = await get('/staff');
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toBe('Basic realm="staff"');
    expect((await get('/staff', USER)).status).toBe(403);
    expect((await get('/staff', ADMIN)).json()).toEqual({ ok: 'list' });
  });

  it('method-level PermitAll overrides class-level RolesAllowed', async () => {
    const r = await get('/staff/ping');
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ ok: 'ping' });
  });

  it('method-level RolesAllowed replaces (does not add to) the class-level one', async () => {
    expect((await get('/staff/users', USER)).status).toBe(200);
    expect((await get('/staff/users', ADMIN)).status).toBe(403);
    expect((await get('/staff/users')).status).toBe(401);
  });

  it('method-level DenyAll inside a RolesAllowed class → 403 even with the class role', async () => {
    expect((await get('/staff', ADMIN, 'DELETE')).status).toBe(403);
  });

  it('class-level DenyAll → 403; method-level PermitAll opens one method', async () => {
    expect((await get('/vault')).status).toBe(403);
    expect((await get('/vault', ADMIN)).status).toBe(403);
    expect((await get('/vault/lobby')).json()).toEqual({ ok: 'lobby' });
  });

  it('a superclass RolesAllowed covers a subclass that declares none (fail closed)', async () => {
    expect((await get('/sub')).status).toBe(401);
    expect((await get('/sub', ADMIN)).json()).toEqual({ ok: 'sub' });
  });
});
