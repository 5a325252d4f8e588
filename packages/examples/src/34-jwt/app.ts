/**
 * Example 34, jwt: bearer JWTs with `JwtAuthFilter`, roles checked by `@RolesAllowed`.
 *
 *   GET /demo/token?sub=ada&roles=USER  → a token signed by this demo's own issuer key (EdDSA)
 *   GET /.well-known/jwks.json          → the issuer's public key as a JWK Set
 *   GET /api/me      Bearer <token>     → 200 {name, roles, claims} for a USER; 401 without a token
 *   GET /api/admin   Bearer <token>     → 200 for an ADMIN; 403 insufficient_scope for a USER
 *
 * A real deployment gets tokens from its identity provider and points `jwksUrl` at the provider's
 * key set; the issuer here only makes the example runnable on its own.
 */
import 'reflect-metadata';
import { generateKeyPairSync, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import { container as rootContainer, injectable } from 'tsyringe';
import {
  Application,
  Context,
  GET,
  JwtAuthFilter,
  Path,
  PermitAll,
  QueryParam,
  RolesAllowed,
  RolesAllowedFeature,
  SecurityContext,
  type JwtClaims,
  type JwtPrincipal,
} from '@jaxrs-node/pipeline';

const ISSUER = 'https://demo-issuer.example';
const AUDIENCE = 'example-34';

/** The demo issuer: an Ed25519 key pair made at start-up, and tokens signed with it. */
export class DemoIssuer {
  readonly publicJwk: JsonWebKey & { kid: string };
  readonly #privateKey: KeyObject;

  constructor() {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    this.#privateKey = privateKey;
    this.publicJwk = { ...publicKey.export({ format: 'jwk' }), kid: 'demo-1', alg: 'EdDSA', use: 'sig' };
  }

  /** A compact JWS (RFC 7515 §7.1) of the claims, valid for `ttlSeconds`. */
  issue(sub: string, roles: readonly string[], ttlSeconds = 300, now = Math.floor(Date.now() / 1000)): string {
    const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const claims: JwtClaims = { iss: ISSUER, aud: AUDIENCE, sub, roles: [...roles], iat: now, exp: now + ttlSeconds };
    const input = `${b64({ alg: 'EdDSA', kid: this.publicJwk.kid, typ: 'JWT' })}.${b64(claims)}`;
    return `${input}.${sign(null, Buffer.from(input), this.#privateKey).toString('base64url')}`;
  }
}

@injectable()
@Path('/')
export class DemoIssuerResource {
  constructor(private readonly issuer: DemoIssuer) {}

  @GET('demo/token') @PermitAll() token(@QueryParam('sub') sub?: string, @QueryParam('roles') roles?: string): { accessToken: string } {
    const list = (roles ?? 'USER').split(',').filter((r) => r !== '');
    return { accessToken: this.issuer.issue(sub ?? 'ada', list) };
  }

  @GET('.well-known/jwks.json') jwks(): { keys: object[] } {
    return { keys: [this.issuer.publicJwk] };
  }
}

@Path('/api')
export class AccountResource {
  /** Any caller with USER or ADMIN; the principal carries every claim of the token. */
  @GET('me') @RolesAllowed('USER', 'ADMIN') me(@Context() sc: SecurityContext): { name: string; admin: boolean; issuer: unknown } {
    const principal = sc.principal as JwtPrincipal;
    return { name: principal.name, admin: sc.isUserInRole('ADMIN'), issuer: principal.claims.iss };
  }

  @GET('admin') @RolesAllowed('ADMIN') admin(): { secret: string } {
    return { secret: 'admins only' };
  }
}

/** The application: the issuer's public key as a static key (a deployment would give `jwksUrl`). */
export function createApp(issuer = new DemoIssuer()): Application {
  // The resource gets the issuer from the application's container (see example 15).
  const container = rootContainer.createChildContainer();
  container.registerInstance(DemoIssuer, issuer);
  return new Application({
    resources: [DemoIssuerResource, AccountResource],
    container,
    providers: [
      new JwtAuthFilter({ algorithms: ['EdDSA'], keys: [issuer.publicJwk], issuer: ISSUER, audience: AUDIENCE, realm: 'example' }),
      new RolesAllowedFeature({ challenge: 'Bearer realm="example"' }),
    ],
  });
}
