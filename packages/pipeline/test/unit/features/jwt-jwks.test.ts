/**
 * JwtVerifier with a JWK Set URL, against a key-set server on 127.0.0.1: caching by max-age,
 * rotation (an unknown kid refetches, at most once per cool-down, one fetch for concurrent
 * requests), a server that hangs, one that sends 50 MB, one that is down, redirects and bad documents.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { JwtKeySetUnavailableError, JwtVerificationError, JwtVerifier, type JwksOptions } from '../../../src/index.js';
import { keyFor, signJwt, type TestKey } from '../../helpers/jwt-tokens.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A server on a free loopback port; `hits` counts requests. */
async function keyServer(handler: Handler): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`, hits: () => hits };
}

const jwk = (k: TestKey, kid: string) => ({ ...k.verifying.export({ format: 'jwk' }), kid, use: 'sig' });
const serveKeys =
  (keys: () => object[], cacheControl?: string): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/jwk-set+json', ...(cacheControl ? { 'cache-control': cacheControl } : {}) });
    res.end(JSON.stringify({ keys: keys() }));
  };

let now = 1_800_000_000_000;
const clock = () => now;
const claims = () => ({ sub: 'alice', exp: now / 1000 + 300 });
const verifier = (url: string, jwks: JwksOptions = {}) => new JwtVerifier({ algorithms: ['RS256', 'ES256'], jwksUrl: url, jwks, clock });

async function caught(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe('JWK Set over http on loopback', () => {
  const k1 = keyFor('RS256');
  const k2 = keyFor('ES256');

  it('fetches once, caches for max-age within the bounds, then refetches', async () => {
    const srv = await keyServer(
      serveKeys(
        () => [jwk(k1, 'k1'), { kty: 'oct', k: 'c2VjcmV0', kid: 's' }, { kty: 'RSA', kid: 'enc', use: 'enc', n: 'AQAB', e: 'AQAB' }],
        'public, max-age=120',
      ),
    );
    const v = verifier(srv.url);
    for (let i = 0; i < 3; i++) expect((await v.verify(signJwt('RS256', k1.signing, claims(), { kid: 'k1' }))).sub).toBe('alice');
    expect(srv.hits()).toBe(1);
    now += 119_000;
    await v.verify(signJwt('RS256', k1.signing, claims(), { kid: 'k1' }));
    expect(srv.hits()).toBe(1);
    now += 2_000;
    await v.verify(signJwt('RS256', k1.signing, claims(), { kid: 'k1' }));
    expect(srv.hits()).toBe(2);
    // A secret in a key set is never used: an HS256 token naming it finds no key.
    const e = await caught(
      new JwtVerifier({ algorithms: ['HS256'], jwksUrl: srv.url, clock }).verify(signJwt('RS256', k1.signing, claims(), { kid: 's' })),
    );
    expect(e).toBeInstanceOf(JwtVerificationError);
  });

  it('max-age below minCacheSeconds is raised to it', async () => {
    const srv = await keyServer(serveKeys(() => [jwk(k1, 'k1')], 'max-age=0'));
    const v = verifier(srv.url, { minCacheSeconds: 60, cooldownSeconds: 0 });
    await v.verify(signJwt('RS256', k1.signing, claims(), { kid: 'k1' }));
    now += 59_000;
    await v.verify(signJwt('RS256', k1.signing, claims(), { kid: 'k1' }));
    expect(srv.hits()).toBe(1);
  });

  it('rotation: an unknown kid refetches, at most once per cool-down, and concurrent requests share one fetch', async () => {
    const k3 = keyFor('ES256', 1);
    let published = [jwk(k1, 'k1')];
    const srv = await keyServer(serveKeys(() => published, 'max-age=3600'));
    const v = verifier(srv.url, { cooldownSeconds: 30 });
    await v.verify(signJwt('RS256', k1.signing, claims(), { kid: 'k1' }));
    expect(srv.hits()).toBe(1);
    // The issuer rotates k2 in right after our fetch: its first token refetches at once (a scheduled fetch starts no cool-down).
    published = [jwk(k1, 'k1'), jwk(k2, 'k2')];
    expect((await v.verify(signJwt('ES256', k2.signing, claims(), { kid: 'k2' }))).sub).toBe('alice');
    expect(srv.hits()).toBe(2);
    // A flood of made-up kids within the cool-down: no fetch.
    for (let i = 0; i < 20; i++)
      expect(await caught(v.verify(signJwt('RS256', k1.signing, claims(), { kid: `forged-${i}` })))).toMatchObject({ failure: 'no-key' });
    expect(srv.hits()).toBe(2);
    // After it, ten concurrent requests with a new kid: one fetch, all verified.
    now += 30_000;
    published = [jwk(k1, 'k1'), jwk(k2, 'k2'), jwk(k3, 'k3')];
    const k3token = signJwt('ES256', k3.signing, claims(), { kid: 'k3' });
    const results = await Promise.all(Array.from({ length: 10 }, () => v.verify(k3token)));
    expect(results.every((c) => c.sub === 'alice')).toBe(true);
    expect(srv.hits()).toBe(3);
    for (let i = 0; i < 20; i++) await caught(v.verify(signJwt('RS256', k1.signing, claims(), { kid: `forged-${i}` })));
    expect(srv.hits()).toBe(3);
    now += 31_000;
    for (let i = 0; i < 20; i++) await caught(v.verify(signJwt('RS256', k1.signing, claims(), { kid: `forged-${i}` })));
    expect(srv.hits()).toBe(4);
    // k1 retired: its tokens stop verifying once the set is refetched.
    published = [jwk(k2, 'k2')];
    now += 3_600_000;
    expect(await caught(v.verify(signJwt('RS256', k1.signing, claims(), { kid: 'k1' })))).toMatchObject({ failure: 'no-key' });
  });

  it('a server that never answers: the fetch fails at the deadline, JwtKeySetUnavailableError, nothing hangs', async () => {
    const srv = await keyServer(() => undefined);
    const v = verifier(srv.url, { timeoutMs: 200 });
    const started = performance.now();
    const e = await caught(v.verify(signJwt('RS256', k1.signing, claims(), { kid: 'k1' })));
    expect(e).toBeInstanceOf(JwtKeySetUnavailableError);
    expect(String((e as Error).cause)).toMatch(/within 200 ms/);
    expect(performance.now() - started).toBeLessThan(3000);
    // Within the cool-down, later requests fail at once without another connection.
    expect(await caught(v.verify(signJwt('RS256', k1.signing, claims(), { kid: 'k1' })))).toBeInstanceOf(JwtKeySetUnavailableError);
    expect(srv.hits()).toBe(1);
  });

  it('a server that sends 50 MB: cut at maxBytes', async () => {
    let sent = 0;
    const srv = await keyServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const push = (): void => {
        while (sent < 50 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', push);
            return;
          }
        }
        res.end();
      };
      res.on('error', () => undefined);
      push();
    });
    const e = await caught(verifier(srv.url).verify(signJwt('RS256', k1.signing, claims(), { kid: 'k1' })));
    expect(e).toBeInstanceOf(JwtKeySetUnavailableError);
    expect(String((e as Error).cause)).toMatch(/above 262144 bytes/);
    expect(sent).toBeLessThan(50 * 1024 * 1024);
  });

  it('a Content-Length above maxBytes is refused before the body is read', async () => {
    const srv = await keyServer((_req, res) => {
      res.writeHead(200, { 'content-length': String(50 * 1024 * 1024) });
      res.write('{');
    });
    const e = await caught(verifier(srv.url).verify(signJwt('RS256', k1.signing, claims(), { kid: 'k1' })));
    expect(String((e as Error).cause)).toMatch(/Content-Length 52428800 is above/);
  });

  it('a redirect, an error status or a document that is no key set: unavailable; a later good answer recovers', async () => {
    let mode: 'redirect' | '500' | 'garbage' | 'ok' = 'redirect';
    const srv = await keyServer((req, res) => {
      if (mode === 'redirect') res.writeHead(302, { location: 'http://127.0.0.1:1/jwks' }).end();
      else if (mode === '500') res.writeHead(500).end();
      else if (mode === 'garbage') res.writeHead(200).end('{"keys": 42}');
      else serveKeys(() => [jwk(k1, 'k1')])(req, res);
    });
    const v = verifier(srv.url, { cooldownSeconds: 1 });
    const token = signJwt('RS256', k1.signing, claims(), { kid: 'k1' });
    for (const m of ['redirect', '500', 'garbage'] as const) {
      mode = m;
      expect(await caught(v.verify(token))).toBeInstanceOf(JwtKeySetUnavailableError);
      now += 1_000;
    }
    mode = 'ok';
    expect((await v.verify(token)).sub).toBe('alice');
  });

  it('a refetch that fails keeps the keys it had (stale-if-error)', async () => {
    let up = true;
    const srv = await keyServer((req, res) => (up ? serveKeys(() => [jwk(k1, 'k1')], 'max-age=60')(req, res) : res.writeHead(503).end()));
    const v = verifier(srv.url);
    const token = () => signJwt('RS256', k1.signing, claims(), { kid: 'k1' });
    await v.verify(token());
    up = false;
    now += 61_000;
    expect((await v.verify(token())).sub).toBe('alice');
    expect(srv.hits()).toBe(2);
  });

  it('a key server that is down: unavailable', async () => {
    const srv = await keyServer(() => undefined);
    const url = srv.url;
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
    expect(await caught(verifier(url).verify(signJwt('RS256', k1.signing, claims())))).toBeInstanceOf(JwtKeySetUnavailableError);
  });
});
