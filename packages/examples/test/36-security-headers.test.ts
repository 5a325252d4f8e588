import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/36-security-headers/app.js';
import { listen, send, type Running } from './helpers/http.js';

const API_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'cross-origin-resource-policy': 'same-site',
};

describe('36 security headers, over a real socket', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp());
  });
  afterAll(async () => {
    await server.close();
  });

  it.each([
    ['/api/users', 200],
    ['/nowhere', 404],
    ['/broken', 500],
  ])('%s (%i) carries every header, and no HSTS over plain HTTP', async (path, status) => {
    const r = await send(server.url, path);
    expect(r.status).toBe(status);
    expect(r.headers).toMatchObject(API_HEADERS);
    expect(r.headers['strict-transport-security']).toBeUndefined();
  });

  it("/embed's @SecurityHeaders replaces the frame policy and drops Referrer-Policy", async () => {
    const r = await send(server.url, '/embed');
    expect(r.headers).toMatchObject({ 'x-frame-options': 'SAMEORIGIN', 'content-security-policy': "frame-ancestors 'self'" });
    expect(r.headers['referrer-policy']).toBeUndefined();
    expect(r.headers['x-content-type-options']).toBe('nosniff');
  });
});

const openssl = ((): boolean => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!openssl)('36 security headers over TLS', () => {
  it('adds Strict-Transport-Security to a response sent over TLS', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'example-36-'));
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert];
    execFileSync('openssl', [...args, '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore', timeout: 20_000 });
    const app = createApp();
    const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, app.handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agent = new Agent({ connect: { rejectUnauthorized: false } });
    try {
      const { port } = server.address() as AddressInfo;
      const r = await request(`https://127.0.0.1:${port}/api/users`, { dispatcher: agent });
      await r.body.dump();
      expect(r.statusCode).toBe(200);
      expect(r.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    } finally {
      await agent.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
