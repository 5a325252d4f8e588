/**
 * SecurityHeadersFeature over both transports: the API defaults on a 200, a 404 (no route), a 500
 * and a 405; a route's own @SecurityHeaders (replaced values, `false`, off); a header the
 * resource set is kept; and Strict-Transport-Security only on a request that came over TLS (an
 * https server with `app.handler` and a key made by openssl at test time; skipped without openssl).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { Application, GET, Path, Produces, Response, SecurityHeaders, SecurityHeadersFeature } from '../../src/index.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

const DEFAULTS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'cross-origin-resource-policy': 'same-origin',
};

@Path('/h')
class Pages {
  @GET() @Path('/ok') @Produces('application/json') ok(): object {
    return { ok: true };
  }
  @GET() @Path('/boom') @Produces('application/json') boom(): object {
    throw new Error('boom');
  }
  @GET() @Path('/page') @Produces('text/html') page(): Response {
    return Response.ok('<p>hi</p>').header('Content-Security-Policy', "default-src 'self'").build();
  }
  @GET()
  @Path('/embed')
  @SecurityHeaders({ frameOptions: 'SAMEORIGIN', contentSecurityPolicy: "frame-ancestors 'self'", referrerPolicy: false })
  @Produces('text/plain')
  embed(): string {
    return 'embed';
  }
  @GET() @Path('/raw') @SecurityHeaders(false) @Produces('text/plain') raw(): string {
    return 'raw';
  }
}

describe.each(TRANSPORTS)('SecurityHeadersFeature (%s)', (transport) => {
  const send = serveForSuite(
    transport,
    () => new Application({ resources: [Pages], providers: [new SecurityHeadersFeature()], logger: () => undefined }),
  );

  it.each([
    ['/h/ok', 200],
    ['/nowhere', 404],
    ['/h/boom', 500],
  ])('sets the defaults on %s (%i), and no HSTS over plain HTTP', async (url, status) => {
    const res = await send(url);
    expect(res.status).toBe(status);
    expect(res.headers).toMatchObject(DEFAULTS);
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });

  it('sets them on a 405 too', async () => {
    const res = await send({ method: 'DELETE', url: '/h/ok' });
    expect(res.status).toBe(405);
    expect(res.headers).toMatchObject(DEFAULTS);
  });

  it("keeps a page's own Content-Security-Policy", async () => {
    const res = await send('/h/page');
    expect(res.headers['content-security-policy']).toBe("default-src 'self'");
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  it("applies a route's @SecurityHeaders over the application's, and @SecurityHeaders(false) turns them off", async () => {
    const embed = await send('/h/embed');
    expect(embed.headers).toMatchObject({
      'x-frame-options': 'SAMEORIGIN',
      'content-security-policy': "frame-ancestors 'self'",
      'x-content-type-options': 'nosniff',
    });
    expect(embed.headers['referrer-policy']).toBeUndefined();
    const raw = await send('/h/raw');
    for (const name of Object.keys(DEFAULTS)) expect(raw.headers[name]).toBeUndefined();
  });
});

describe('SecurityHeadersFeature options', () => {
  it('takes application values and false, and refuses unknown options and unsafe values', async () => {
    const app = new Application({
      resources: [Pages],
      providers: [new SecurityHeadersFeature({ crossOriginResourcePolicy: 'cross-origin', contentSecurityPolicy: false })],
    });
    const res = await app.inject('/h/ok');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.headers['content-security-policy']).toBeUndefined();
    expect(() => new SecurityHeadersFeature({ xssFilter: true } as never)).toThrow(/unknown option xssFilter/);
    expect(() => new SecurityHeadersFeature({ referrerPolicy: 'a\r\nset-cookie: x' })).toThrow(/non-empty header value/);
  });

  it('refuses a bad @SecurityHeaders at build()', () => {
    @Path('/bad')
    class Bad {
      @GET() @SecurityHeaders({ frameOptions: '' as never }) get(): string {
        return '';
      }
    }
    expect(() => new Application({ resources: [Bad], providers: [new SecurityHeadersFeature()] }).build()).toThrow(
      /Bad\.get: option frameOptions/,
    );
  });
});

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!hasOpenssl())('SecurityHeadersFeature over TLS', () => {
  it('adds Strict-Transport-Security only when the request came over TLS', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sec-headers-'));
    try {
      const key = join(dir, 'key.pem');
      const cert = join(dir, 'cert.pem');
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-keyout',
          key,
          '-out',
          cert,
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
        ],
        {
          stdio: 'ignore',
          timeout: 20_000,
        },
      );
      const app = new Application({ resources: [Pages], providers: [new SecurityHeadersFeature()] });
      const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, app.handler);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const agent = new Agent({ connect: { rejectUnauthorized: false }, headersTimeout: 5000, bodyTimeout: 5000 });
      try {
        const { port } = server.address() as AddressInfo;
        for (const [url, status] of [
          ['/h/ok', 200],
          ['/nowhere', 404],
        ] as const) {
          const res = await request(`https://127.0.0.1:${port}${url}`, { dispatcher: agent });
          await res.body.dump();
          expect(res.statusCode).toBe(status);
          expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
          expect(res.headers['x-content-type-options']).toBe('nosniff');
        }
        const raw = await request(`https://127.0.0.1:${port}/h/raw`, { dispatcher: agent });
        await raw.body.dump();
        expect(raw.headers['strict-transport-security']).toBeUndefined();
      } finally {
        await agent.close();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
