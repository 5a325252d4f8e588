/**
 * JwtVerifier with an https JWK Set URL, against a key-set server on 127.0.0.1 with the test
 * certificate (test/fixtures/tls, its own CA): trusted through `jwks.ca`, refused (the key set is
 * unavailable) without it or with another CA, and a `ca` that cannot work refused by the
 * constructor. Then JwtAuthFilter in an application over a socket, its keys fetched over https.
 */
import 'reflect-metadata';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Application,
  Context,
  GET,
  JwtAuthFilter,
  JwtConfigurationError,
  JwtKeySetUnavailableError,
  JwtVerifier,
  Path,
  RolesAllowed,
  RolesAllowedFeature,
  SecurityContext,
} from '../../../src/index.js';
import { TEST_TLS } from '../../helpers/h2.js';
import { keyFor, signJwt } from '../../helpers/jwt-tokens.js';

const key = keyFor('ES256');
const claims = () => ({ sub: 'alice', roles: ['USER'], exp: Math.floor(Date.now() / 1000) + 300 });
const token = () => signJwt('ES256', key.signing, claims(), { kid: 'k1' });

let server: Server;
let hits = 0;
let jwksUrl = '';
beforeAll(async () => {
  server = createServer({ key: TEST_TLS.key, cert: TEST_TLS.cert }, (_req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'application/jwk-set+json' });
    res.end(JSON.stringify({ keys: [{ ...key.verifying.export({ format: 'jwk' }), kid: 'k1', use: 'sig' }] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  jwksUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function caught(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe('JWK Set over https', () => {
  it('trusts the private CA given as jwks.ca (PEM text or Buffer) and verifies with the fetched key', async () => {
    const before = hits;
    for (const ca of [TEST_TLS.cert, TEST_TLS.cert.toString(), [TEST_TLS.cert]]) {
      const v = new JwtVerifier({ algorithms: ['ES256'], jwksUrl, jwks: { ca } });
      expect((await v.verify(token())).sub).toBe('alice');
    }
    expect(hits - before).toBe(3);
  });

  it("without ca, Node's store does not trust the certificate: the key set is unavailable, nothing is fetched", async () => {
    const before = hits;
    const e = await caught(new JwtVerifier({ algorithms: ['ES256'], jwksUrl }).verify(token()));
    expect(e).toBeInstanceOf(JwtKeySetUnavailableError);
    expect(hits).toBe(before); // the TLS handshake failed: no request reached the server
  });

  it('a ca that is not the one that signed the certificate is refused the same way', async () => {
    // The first certificate of Node's own bundle: a real CA, not ours.
    const { rootCertificates } = await import('node:tls');
    const e = await caught(new JwtVerifier({ algorithms: ['ES256'], jwksUrl, jwks: { ca: rootCertificates[0]! } }).verify(token()));
    expect(e).toBeInstanceOf(JwtKeySetUnavailableError);
  });

  it('the constructor refuses a ca that cannot work, naming the option', () => {
    const refused = (ca: unknown, url: string, message: RegExp): void => {
      // `ca` as the caller gave it, wrong on purpose.
      const jwks = { ca } as { ca: string };
      expect(() => new JwtVerifier({ algorithms: ['ES256'], jwksUrl: url, jwks })).toThrow(JwtConfigurationError);
      expect(() => new JwtVerifier({ algorithms: ['ES256'], jwksUrl: url, jwks })).toThrow(message);
    };
    refused(TEST_TLS.cert, 'http://127.0.0.1:1/jwks', /jwks\.ca: the key set is fetched over http:, where no CA applies/);
    refused('not a certificate', jwksUrl, /jwks\.ca: no PEM certificate/);
    refused([], jwksUrl, /jwks\.ca: no certificate/);
    refused([TEST_TLS.cert, 42], jwksUrl, /jwks\.ca\[1\]: give PEM text/);
    const broken = TEST_TLS.cert.toString().replace(/\n[A-Za-z0-9+/]{20}/, '\nAAAAAAAAAAAAAAAAAAAA');
    refused(broken, jwksUrl, /jwks\.ca: certificate 1 does not parse/);
  });
});

@Path('/api')
class Me {
  @GET('me') @RolesAllowed('USER') me(@Context() sc: SecurityContext): unknown {
    return { name: sc.principal?.name };
  }
}

describe('JwtAuthFilter with an https key set, over a socket', () => {
  it('a token verifies against the keys fetched over https with jwks.ca', async () => {
    const app = new Application({
      resources: [Me],
      providers: [new JwtAuthFilter({ algorithms: ['ES256'], jwksUrl, jwks: { ca: TEST_TLS.cert } }), new RolesAllowedFeature()],
      logger: () => undefined,
    });
    const { port } = await app.listen(0, '127.0.0.1');
    try {
      const ok = await fetch(`http://127.0.0.1:${port}/api/me`, { headers: { authorization: `Bearer ${token()}` } });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ name: 'alice' });
      const none = await fetch(`http://127.0.0.1:${port}/api/me`);
      expect(none.status).toBe(401);
    } finally {
      await app.close();
    }
  });
});
