// GzipFeature over both transports: Accept-Encoding negotiation (RFC 9110 §12.5.3) through the
// writer's one-entry cache, and the limits of a gzip request body (README "Application",
// "Compressed bodies"; Fastify's body-limit contract): compressed bytes keep the raw-body contract under
// limits.bodyLimit, decoded bytes stop at maxDecodedBytes.
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Application, Entity, GET, GzipFeature, Path, POST, Produces } from '../../src/index.js';
import { rawRoundTrip, splitResponse } from '../helpers/raw-socket.js';
import { countingSource, repeated, type CountingSource } from '../helpers/streams.js';
import { start, TRANSPORTS, type Send, type TestResponse, type Transport } from '../helpers/transports.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);
const LIMIT = 16 * 1024;
const MAX_DECODED = 256 * 1024;
const users = Array.from({ length: 200 }, (_, i) => ({ id: i + 1, email: `user${i}@example.com` }));
let methodCalls = 0;

@Path('/gz')
class GzResource {
  @GET() @Produces('application/json') list(): unknown {
    return users;
  }

  @POST()
  @Produces('application/json')
  create(@Entity() body: Record<string, unknown>): unknown {
    methodCalls++;
    return { keys: Object.keys(body).length };
  }
}

const build = (): Application =>
  new Application({
    resources: [GzResource],
    providers: [new GzipFeature({ maxDecodedBytes: MAX_DECODED })],
    limits: { bodyLimit: LIMIT },
    logger: () => undefined,
  });

/** Empty gzip members, endlessly (gzip allows concatenated members; bounded, never ended); counts what was pulled. */
const endlessMembers = (member: Buffer): CountingSource => countingSource(repeated(member, 1_000_000), false);

async function decoded(r: TestResponse): Promise<unknown> {
  const bytes = r.headers['content-encoding'] === 'gzip' ? await gunzipAsync(r.body) : r.body;
  return JSON.parse(bytes.toString('utf8'));
}

describe.each(TRANSPORTS)('GzipFeature (%s)', (transport: Transport) => {
  let app: Application;
  let send: Send;
  let stop: () => Promise<void>;
  let port = 0;
  beforeAll(async () => {
    app = build();
    ({ send, stop } = await start(app, transport));
    if (transport === 'socket') port = (app.server!.address() as AddressInfo).port;
  });
  afterAll(() => stop());
  beforeEach(() => {
    methodCalls = 0;
  });

  describe('Accept-Encoding (RFC 9110 §12.5.3)', () => {
    // Repeated header lines are sent as such (undici) or as an array (inject).
    it.each<[string | string[], boolean]>([
      ['gzip', true],
      ['gzip;q=0', false],
      ['GZIP;Q=0', false],
      ['*;q=0', false],
      ['*;Q=0, identity', false],
      ['*', true],
      ['identity', false],
      ['Identity;q=0, X-GZIP', true],
      ['gzip;q=0.5, identity', false],
      [['gzip;q=0', 'br'], false],
      [['br', 'GZip'], true],
      [['identity', '*;q=0'], false],
      [['*;q=0', 'gzip'], true],
    ])('%j -> compressed: %s, Vary either way, the same JSON', async (acceptEncoding, compressed) => {
      const headers = { 'accept-encoding': acceptEncoding } as unknown as Record<string, string>;
      const r = await send({ url: '/gz', headers });
      expect(r.status).toBe(200);
      expect(r.headers['content-encoding']).toBe(compressed ? 'gzip' : undefined);
      expect(r.headers.vary).toBe('Accept-Encoding');
      expect(await decoded(r)).toEqual(users);
    });

    it('each response follows its own request: alternating values never get a stale answer', async () => {
      const sequence: [string, boolean][] = [
        ['gzip', true],
        ['gzip', true],
        ['gzip;q=0', false],
        ['gzip', true],
        ['*;q=0', false],
        ['*;q=0', false],
        ['*', true],
        ['identity', false],
        ['GZIP', true],
        ['GZIP;Q=0', false],
      ];
      const seen: [string, boolean][] = [];
      for (const [value] of sequence) {
        const r = await send({ url: '/gz', headers: { 'accept-encoding': value } });
        seen.push([value, r.headers['content-encoding'] === 'gzip']);
      }
      expect(seen).toEqual(sequence);
    });
  });

  describe('gzip request bodies', () => {
    const gzHeaders = (length: number): Record<string, string> => ({
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      'content-length': String(length),
    });

    it('a declared Content-Length over bodyLimit: 413 with the raw-body error before any byte is read', async () => {
      const rawTooLarge = await send({
        method: 'POST',
        url: '/gz',
        headers: { 'content-type': 'application/json' },
        body: ' '.repeat(LIMIT + 1),
      });
      expect(rawTooLarge.status).toBe(413);
      const headers = gzHeaders(LIMIT + 1);
      if (transport === 'in-process') {
        const source = endlessMembers(await gzipAsync(Buffer.alloc(0)));
        const r = await app.inject({ method: 'POST', url: '/gz', headers, body: source });
        expect(r.status).toBe(413);
        expect(r.json()).toEqual(rawTooLarge.json());
        expect(source.pulled()).toBe(0);
      } else {
        // Not one body byte is sent: the answer can only come from the declared length.
        const head = `POST /gz HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join('')}\r\n`;
        // The server must close the connection itself: the request says nothing about it.
        const response = await rawRoundTrip(port, head);
        expect(response).toMatch(/^HTTP\/1\.1 413 /);
        expect(response).toMatch(/\r\nconnection: close\r\n/i);
        expect(JSON.parse(splitResponse(response).body)).toEqual(rawTooLarge.json());
      }
      expect(methodCalls).toBe(0);
    });

    it('a declared Content-Length of exactly bodyLimit is read, and decodes past bodyLimit up to maxDecodedBytes', async () => {
      const json = await gzipAsync(`{"a":1,"b":"${'x'.repeat(LIMIT * 4)}"}`);
      // A second member of stored (level 0) spaces, sized so the body is exactly LIMIT bytes:
      // trailing whitespace is valid JSON, and a stored member is its content plus 23 bytes.
      const spaces = await gzipAsync(Buffer.alloc(LIMIT - json.length - 23, 0x20), { level: 0 });
      const body = Buffer.concat([json, spaces]);
      expect(body.length).toBe(LIMIT);
      const r = await send({ method: 'POST', url: '/gz', headers: gzHeaders(body.length), body });
      expect(r.status).toBe(200);
      expect(r.json()).toEqual({ keys: 2 });
      expect(methodCalls).toBe(1);
    });

    it('a gzip bomb: 413 while inflating, at maxDecodedBytes', async () => {
      const bomb = await gzipAsync(Buffer.alloc(10 * MAX_DECODED, 0x20));
      expect(bomb.length).toBeLessThan(LIMIT);
      const r = await send({ method: 'POST', url: '/gz', headers: gzHeaders(bomb.length), body: bomb });
      expect(r.status).toBe(413);
      expect(r.json()).toMatchObject({ status: 413, code: 'PIPE_BODY_TOO_LARGE' });
      expect(r.text).toContain(String(MAX_DECODED));
      expect(methodCalls).toBe(0);
    });
  });
});
