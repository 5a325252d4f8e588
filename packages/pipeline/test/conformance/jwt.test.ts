/**
 * JwtAuthFilter in an application, in-process and over a loopback socket: the security context it
 * fills (principal, roles, claims) with @RolesAllowed unchanged, the RFC 6750 §3 challenges
 * (missing: no error code; invalid: invalid_token; roles lacking: 403 insufficient_scope), the
 * error body, 503 when the key set cannot be fetched, and the attacks end to end.
 */
import { createSecretKey } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Application,
  Context,
  FailedAuthLimiter,
  GET,
  JwtAuthFilter,
  NameBinding,
  Path,
  PermitAll,
  RolesAllowed,
  RolesAllowedFeature,
  SecurityContext,
  type JwtAuthOptions,
  type JwtPrincipal,
  type RolesAllowedFeatureOptions,
} from '../../src/index.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';
import { b64, keyFor, signJwt } from '../helpers/jwt-tokens.js';

@Path('/api')
class Reports {
  @GET('public') @PermitAll() open(@Context() sc: SecurityContext): unknown {
    return { who: sc.principal?.name ?? null };
  }
  @GET('me') @RolesAllowed('USER', 'ADMIN') me(@Context() sc: SecurityContext): unknown {
    const p = sc.principal as JwtPrincipal;
    return { name: p.name, scheme: sc.authenticationScheme, tenant: p.claims.tenant, admin: sc.isUserInRole('ADMIN') };
  }
  @GET('admin') @RolesAllowed('ADMIN') admin(): unknown {
    return { ok: true };
  }
}

const rsa = keyFor('RS256');
const es = keyFor('ES256');
const nowS = () => Math.floor(Date.now() / 1000);
const claims = (extra: object = {}) => ({
  sub: 'alice',
  iss: 'https://id.test',
  aud: 'reports',
  exp: nowS() + 300,
  roles: ['USER'],
  tenant: 't1',
  ...extra,
});
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The application most suites serve: Reports behind one JwtAuthFilter, @RolesAllowed enforced. */
const jwtApp = (options: JwtAuthOptions, roles: RolesAllowedFeatureOptions = {}): Application =>
  new Application({ resources: [Reports], providers: [new JwtAuthFilter(options), new RolesAllowedFeature(roles)] });

let keyServer: Server;
let jwksUrl = '';
let keysUp = true;
beforeAll(async () => {
  keyServer = createServer((_req, res) => {
    if (!keysUp) return void res.writeHead(503).end();
    res.writeHead(200, { 'content-type': 'application/jwk-set+json' });
    res.end(JSON.stringify({ keys: [{ ...es.verifying.export({ format: 'jwk' }), kid: 'es-1' }] }));
  });
  await new Promise<void>((r) => keyServer.listen(0, '127.0.0.1', r));
  jwksUrl = `http://127.0.0.1:${(keyServer.address() as AddressInfo).port}/jwks`;
});
afterAll(async () => {
  keyServer.closeAllConnections();
  await new Promise((r) => keyServer.close(r));
});

describe.each(TRANSPORTS)('JwtAuthFilter (%s)', (transport) => {
  const send = serveForSuite(transport, () =>
    jwtApp(
      {
        algorithms: ['RS256', 'ES256'],
        keys: [{ ...rsa.verifying.export({ format: 'jwk' }), kid: 'rsa-1' }],
        jwksUrl,
        issuer: 'https://id.test',
        audience: 'reports',
        realm: 'reports',
      },
      { challenge: 'Bearer realm="reports"' },
    ),
  );

  it('a valid token fills the security context: principal from sub, roles, every claim', async () => {
    const res = await send({ url: '/api/me', headers: bearer(signJwt('RS256', rsa.signing, claims(), { kid: 'rsa-1' })) });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ name: 'alice', scheme: 'Bearer', tenant: 't1', admin: false });
  });

  it('keys from the JWK Set URL verify too', async () => {
    const res = await send({
      url: '/api/me',
      headers: bearer(signJwt('ES256', es.signing, claims({ roles: ['ADMIN'] }), { kid: 'es-1' })),
    });
    expect(res.json()).toMatchObject({ name: 'alice', admin: true });
  });

  it('no token: anonymous; @RolesAllowed answers 401 with a challenge without error code (RFC 6750 §3.1)', async () => {
    expect((await send('/api/public')).json()).toEqual({ who: null });
    const res = await send('/api/me');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="reports"');
    // Another scheme is no bearer token either.
    expect((await send({ url: '/api/me', headers: { authorization: 'Basic YTpi' } })).headers['www-authenticate']).toBe(
      'Bearer realm="reports"',
    );
  });

  it.each([
    ['alg none', () => `${b64({ alg: 'none' })}.${b64(claims())}.`],
    [
      'HS256 signed with the RSA public key',
      () => signJwt('HS256', createSecretKey(Buffer.from(rsa.verifying.export({ format: 'pem', type: 'spki' }))), claims()),
    ],
    ['a kid with path characters', () => signJwt('RS256', rsa.signing, claims(), { kid: '../../etc/passwd' })],
    ['an expired token', () => signJwt('RS256', rsa.signing, claims({ exp: nowS() - 3600 }))],
    ['a token for another audience', () => signJwt('RS256', rsa.signing, claims({ aud: 'billing' }))],
    ['another issuer', () => signJwt('RS256', rsa.signing, claims({ iss: 'https://evil.test' }))],
    ['an oversized token', () => signJwt('RS256', rsa.signing, claims({ pad: 'x'.repeat(8192) }))],
    ['garbage', () => 'not-a-jwt'],
    ['an empty token', () => ''],
  ])('%s: 401 invalid_token, a body that names nothing', async (_name, make) => {
    const res = await send({ url: '/api/me', headers: bearer(make()) });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="reports", error="invalid_token"');
    expect(res.json()).toEqual({
      status: 401,
      error: 'Unauthorized',
      message: 'The access token is invalid or expired',
      code: 'PIPE_JWT_INVALID',
    });
    // Nothing about the keys, the expected issuer or audience, or which check failed.
    expect(res.text).not.toMatch(/rsa-1|es-1|id\.test|reports|audience|issuer|signature/);
  });

  it('a token without the role: 403 with insufficient_scope', async () => {
    const res = await send({ url: '/api/admin', headers: bearer(signJwt('RS256', rsa.signing, claims())) });
    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="reports", error="insufficient_scope"');
    expect(res.json()).toMatchObject({ status: 403, code: 'PIPE_FORBIDDEN' });
  });

  it('a principal or roles claim of the wrong type: 401 invalid_token', async () => {
    for (const c of [claims({ sub: 42 }), claims({ roles: 'ADMIN' }), claims({ sub: undefined })]) {
      const res = await send({ url: '/api/me', headers: bearer(signJwt('RS256', rsa.signing, c)) });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/error="invalid_token"/);
    }
  });
});

describe.each(TRANSPORTS)('JwtAuthFilter options (%s)', (transport) => {
  const send = serveForSuite(transport, () =>
    jwtApp({
      algorithms: ['ES256'],
      jwksUrl: jwksUrl.replace('/jwks', '/down'),
      jwks: { timeoutMs: 2000 },
      required: true,
      principalClaim: 'email',
      roles: { claim: 'scope', format: 'space-separated' },
    }),
  );

  it('required: a request without a token is 401 Bearer at once, with the error body', async () => {
    const res = await send('/api/public');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.json()).toMatchObject({ status: 401, code: 'PIPE_JWT_MISSING' });
  });

  it('a key set that cannot be fetched: 503 with Retry-After, not 401', async () => {
    keysUp = false;
    try {
      const res = await send({ url: '/api/me', headers: bearer(signJwt('ES256', es.signing, claims(), { kid: 'es-1' })) });
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toMatchObject({ status: 503, code: 'PIPE_JWT_KEYS_UNAVAILABLE' });
      expect(res.text).not.toContain('127.0.0.1');
    } finally {
      keysUp = true;
    }
  });
});

describe.each(TRANSPORTS)('JwtAuthFilter with scope and a custom principal claim (%s)', (transport) => {
  const send = serveForSuite(transport, () =>
    jwtApp({ algorithms: ['ES256'], jwksUrl, principalClaim: 'email', roles: { claim: 'scope', format: 'space-separated' } }),
  );

  it('reads the principal from email and the roles from a space-separated scope', async () => {
    const token = signJwt('ES256', es.signing, { email: 'ada@example.com', scope: 'read USER  ADMIN', exp: nowS() + 60 }, { kid: 'es-1' });
    expect((await send({ url: '/api/me', headers: bearer(token) })).json()).toMatchObject({ name: 'ada@example.com', admin: true });
  });
});

const Jwt = NameBinding('Jwt');
@Jwt()
class BoundJwtFilter extends JwtAuthFilter {}

@Path('/partners')
@Jwt()
class Partners {
  @GET() list(@Context() sc: SecurityContext): unknown {
    return { who: sc.principal?.name };
  }
}

@Path('/open')
class Open {
  @GET() get(): unknown {
    return { open: true };
  }
}

describe.each(TRANSPORTS)('JwtAuthFilter bound by name to some resources (%s)', (transport) => {
  const send = serveForSuite(
    transport,
    () =>
      new Application({
        resources: [Partners, Open],
        providers: [new BoundJwtFilter({ algorithms: ['RS256'], keys: [rsa.verifying], required: true })],
      }),
  );

  it('runs on the bound resource only', async () => {
    expect((await send('/partners')).status).toBe(401);
    expect((await send({ url: '/partners', headers: bearer(signJwt('RS256', rsa.signing, claims())) })).json()).toEqual({ who: 'alice' });
    expect((await send('/open')).json()).toEqual({ open: true });
  });
});

describe.each(TRANSPORTS)('JwtAuthFilter with a key set that hangs (%s)', (transport) => {
  let hanging: Server;
  let url = '';
  beforeAll(async () => {
    hanging = createServer(() => undefined);
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/jwks`;
  });
  afterAll(async () => {
    hanging.closeAllConnections();
    await new Promise((r) => hanging.close(r));
  });
  const send = serveForSuite(transport, () => jwtApp({ algorithms: ['ES256'], jwksUrl: url, jwks: { timeoutMs: 300 } }));

  it('the request gets 503 at the fetch deadline instead of waiting', async () => {
    const started = performance.now();
    const res = await send({ url: '/api/me', headers: bearer(signJwt('ES256', es.signing, claims(), { kid: 'es-1' })) });
    expect(res.status).toBe(503);
    expect(res.json()).toMatchObject({ code: 'PIPE_JWT_KEYS_UNAVAILABLE' });
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe.each(TRANSPORTS)('JwtAuthFilter with failed-authentication limits (%s)', (transport) => {
  const send = serveForSuite(transport, () =>
    jwtApp({
      algorithms: ['RS256'],
      keys: [{ ...rsa.verifying.export({ format: 'jwk' }), kid: 'rsa-1' }],
      failedAuth: new FailedAuthLimiter({ limit: 2, windowMs: 60_000 }),
    }),
  );

  it('counts tokens that do not verify per address and refuses the address with 429 before verifying once it is over', async () => {
    const good = bearer(signJwt('RS256', rsa.signing, claims(), { kid: 'rsa-1' }));
    expect((await send({ url: '/api/me', headers: good })).status).toBe(200);
    const forged = bearer(signJwt('RS256', keyFor('RS256', 1).signing, claims(), { kid: 'rsa-1' }));
    expect((await send({ url: '/api/me', headers: forged })).status).toBe(401);
    const second = await send({ url: '/api/me', headers: forged });
    expect([401, 429]).toContain(second.status);
    const refused = await send({ url: '/api/me', headers: good });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.json()).toMatchObject({ status: 429, code: 'PIPE_AUTH_FAILURES_LIMITED' });
  });
});
