import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BadGatewayError,
  BadRequestError,
  GatewayTimeoutError,
  ServiceUnavailableError,
  type WebApplicationError,
} from '@jaxrs-node/pipeline';
import { UpstreamCatalog } from '../../../src/domain/catalog/upstream.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const json =
  (body: string, extra: Record<string, string> = {}): Handler =>
  (_, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', ...extra });
    res.end(body);
  };

/** One misbehaviour per product id. */
const routes: Record<string, Handler> = {
  1: json('{"id":1,"name":"Widget","price":9.5,"secret":"internal","__proto__":{"admin":true}}'),
  2: (_, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":"not found"}');
  },
  3: (_, res) => {
    res.writeHead(503);
    res.end('down');
  },
  4: json('{"id":4,"name":'),
  5: (_, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html>{"id":5}</html>');
  },
  6: json(JSON.stringify({ id: 6, name: 'x'.repeat(300 * 1024) })),
  7: (_, res) => {
    // Chunked, no Content-Length: only counting catches it.
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = 'x'.repeat(16 * 1024);
    res.write('{"id":7,"name":"');
    for (let i = 0; i < 20; i++) res.write(chunk);
    res.end('"}');
  },
  8: () => {
    /* never answers: slow headers */
  },
  9: (_, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"id":9,'); /* then stalls */
  },
  10: (_, res) => {
    // Trickles one byte well inside the body timeout, forever: only the overall deadline stops it.
    res.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => res.write(' '), 50);
    res.on('close', () => clearInterval(timer));
  },
  11: json('{"id":11,"name":"   "}'),
  12: json('{"id":99,"name":"Other"}'),
  13: json('{"id":13,"name":"Neg","price":-1}'),
  14: json('[{"id":14,"name":"In an array"}]'),
  15: json('{"id":15,"name":"No price"}'),
  16: (_, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(Buffer.from([0x7b, 0xff, 0x7d]));
  },
  17: (_, res) => {
    res.writeHead(302, { location: '/products/1' });
    res.end();
  },
  18: (req) => {
    req.socket.destroy();
  },
  19: json('{"id":19,"name":"Str price","price":"9.50"}'),
  20: json('{"id":20,"name":"Big price","price":1e400}'),
};

let server: Server;
let catalog: UpstreamCatalog;

async function failure(id: number, client = catalog): Promise<WebApplicationError> {
  try {
    await client.get(id);
  } catch (err) {
    return err as WebApplicationError;
  }
  throw new Error(`expected product ${id} to fail`);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const handler = routes[/^\/base\/products\/(\d+)$/.exec(req.url ?? '')?.[1] ?? ''];
    if (handler === undefined) {
      res.writeHead(400);
      res.end();
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  catalog = new UpstreamCatalog(`http://127.0.0.1:${port}/base/`, {
    headersTimeoutMs: 300,
    bodyTimeoutMs: 300,
    totalTimeoutMs: 800,
    connectTimeoutMs: 500,
  });
});

afterAll(async () => {
  await catalog.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('UpstreamCatalog.get', () => {
  it('returns only the known, validated fields', async () => {
    const product = await catalog.get(1);
    expect(product).toEqual({ id: 1, name: 'Widget', price: 9.5 });
    expect(Object.keys(product!)).toEqual(['id', 'name', 'price']);
    expect(Object.getPrototypeOf(product)).toBe(Object.prototype);
    expect(await catalog.get(15)).toEqual({ id: 15, name: 'No price' });
  });

  it('returns undefined for a 404', async () => {
    expect(await catalog.get(2)).toBeUndefined();
  });

  it.each([
    [3, '5xx'],
    [4, 'truncated JSON'],
    [5, 'non-JSON content type'],
    [6, 'oversized body with Content-Length'],
    [7, 'oversized chunked body'],
    [11, 'blank name'],
    [12, 'another id'],
    [13, 'negative price'],
    [14, 'array'],
    [16, 'invalid UTF-8'],
    [17, 'redirect'],
    [18, 'connection dropped'],
    [19, 'string price'],
    [20, 'non-finite price'],
  ])('maps product %i (%s) to 502', async (id) => {
    const error = await failure(id);
    expect(error).toBeInstanceOf(BadGatewayError);
    expect(error.status).toBe(502);
    expect(error.expose).toBe(false);
  });

  it('maps slow headers to 504 within the headers timeout', async () => {
    const start = Date.now();
    const error = await failure(8);
    expect(error).toBeInstanceOf(GatewayTimeoutError);
    // 300 ms setting; well before the 800 ms overall deadline (undici's own timer is 1 s coarse).
    expect(Date.now() - start).toBeLessThan(700);
  });

  it('maps a stalled body to 504 within the body timeout', async () => {
    const error = await failure(9);
    expect(error).toBeInstanceOf(GatewayTimeoutError);
  });

  it('maps a trickling body to 504 at the overall deadline', async () => {
    const start = Date.now();
    const error = await failure(10);
    expect(error).toBeInstanceOf(GatewayTimeoutError);
    expect(Date.now() - start).toBeGreaterThanOrEqual(700);
    expect(Date.now() - start).toBeLessThan(2_500);
  });

  it('keeps working after misbehaving answers (sockets are not poisoned)', async () => {
    await failure(9);
    await failure(6);
    expect(await catalog.get(1)).toEqual({ id: 1, name: 'Widget', price: 9.5 });
  });

  it('maps a refused connection to 503', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const refused = new UpstreamCatalog(`http://127.0.0.1:${port}`, { connectTimeoutMs: 500 });
    try {
      const error = await failure(1, refused);
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    } finally {
      await refused.close();
    }
  });

  it('maps calls after close to 503', async () => {
    const { port } = server.address() as AddressInfo;
    const closing = new UpstreamCatalog(`http://127.0.0.1:${port}/base`);
    await closing.close();
    expect(await failure(1, closing)).toBeInstanceOf(ServiceUnavailableError);
  });

  it('refuses ids that are not positive safe integers with 400, without calling out', async () => {
    for (const id of [0, -1, 1.5, Number.NaN, 2 ** 53]) expect(await failure(id)).toBeInstanceOf(BadRequestError);
  });

  it('rejects unusable base URLs and options at construction', () => {
    expect(() => new UpstreamCatalog('ftp://example.com')).toThrow(TypeError);
    expect(() => new UpstreamCatalog('http://example.com/?q=1')).toThrow(TypeError);
    expect(() => new UpstreamCatalog('not a url')).toThrow(TypeError);
    expect(() => new UpstreamCatalog('not a url')).toThrow(expect.objectContaining({ code: 'ERR_INVALID_URL' }));
    expect(() => new UpstreamCatalog('http://127.0.0.1', { headersTimeoutMs: 0 })).toThrow(RangeError);
  });
});
