import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, DemoIssuer } from '../src/34-jwt/app.js';
import { listen, send, type Running } from './helpers/http.js';

describe('34 jwt: JwtAuthFilter fills the security context, @RolesAllowed decides', () => {
  const issuer = new DemoIssuer();
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp(issuer));
  });
  afterAll(() => server.close());

  const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

  it('a USER token from the demo issuer reaches /api/me; the principal is the sub', async () => {
    const { accessToken } = (await send(server.url, '/demo/token?sub=ada&roles=USER')).json<{ accessToken: string }>();
    const r = await send(server.url, '/api/me', bearer(accessToken));
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ name: 'ada', admin: false, issuer: 'https://demo-issuer.example' });
  });

  it('without a token: 401 with the Bearer challenge and no error code', async () => {
    const r = await send(server.url, '/api/me');
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toBe('Bearer realm="example"');
  });

  it('a USER on the ADMIN method: 403 insufficient_scope; an ADMIN passes', async () => {
    const user = await send(server.url, '/api/admin', bearer(issuer.issue('ada', ['USER'])));
    expect(user.status).toBe(403);
    expect(user.headers['www-authenticate']).toBe('Bearer realm="example", error="insufficient_scope"');
    expect((await send(server.url, '/api/admin', bearer(issuer.issue('grace', ['ADMIN'])))).json()).toEqual({ secret: 'admins only' });
  });

  it('an expired token, or one of another issuer key: 401 invalid_token', async () => {
    const expired = issuer.issue('ada', ['USER'], 60, Math.floor(Date.now() / 1000) - 3600);
    const foreign = new DemoIssuer().issue('ada', ['USER']);
    for (const token of [expired, foreign, 'garbage']) {
      const r = await send(server.url, '/api/me', bearer(token));
      expect(r.status).toBe(401);
      expect(r.headers['www-authenticate']).toBe('Bearer realm="example", error="invalid_token"');
      expect(r.json()).toMatchObject({ code: 'PIPE_JWT_INVALID', message: 'The access token is invalid or expired' });
    }
  });

  it('publishes the public key as a JWK Set; in-process the same answers', async () => {
    const jwks = (await send(server.url, '/.well-known/jwks.json')).json<{ keys: { kty: string; crv: string; d?: string }[] }>();
    expect(jwks.keys).toEqual([expect.objectContaining({ kty: 'OKP', crv: 'Ed25519', kid: 'demo-1' })]);
    expect(jwks.keys[0]!.d).toBeUndefined();
    const app = createApp(issuer);
    expect(
      (await app.inject({ url: '/api/me', headers: { authorization: `Bearer ${issuer.issue('ada', ['USER'])}` } })).json(),
    ).toMatchObject({ name: 'ada' });
  });
});
