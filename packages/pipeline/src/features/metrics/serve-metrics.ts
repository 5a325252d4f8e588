import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricsSource } from './metrics-resource.js';
import { PROMETHEUS_CONTENT_TYPE } from './registry.js';

/** Options of {@link serveMetrics}. */
export interface ServeMetricsOptions {
  /** TCP port; `0` picks a free one (read it from the result). */
  readonly port: number;
  /** Interface to listen on. Default `127.0.0.1`: give `0.0.0.0` (or `::`) for a scraper on another host. */
  readonly host?: string;
  /** The scrape path. Default `/metrics`. */
  readonly path?: string;
}

/** A running metrics listener. */
export interface MetricsServer {
  readonly server: Server;
  /** The port it listens on (the chosen one when `port` was 0). */
  readonly port: number;
  /** Stops listening and closes every connection (scrapers keep theirs alive). */
  close(): Promise<void>;
}

/**
 * A separate `node:http` listener for the metrics, so they never share the application's public
 * port: `GET` (and `HEAD`) of `path` answers the Prometheus text format 0.0.4; another method on
 * `path` is 405 with `Allow: GET, HEAD`; any other path is 404. Resolves once it listens; rejects
 * when the port cannot be had (in use, not permitted).
 * @example
 * const metrics = await serveMetrics(registry, { port: 9464, host: '0.0.0.0' });
 * // ... at shutdown:
 * await metrics.close();
 */
export async function serveMetrics(registry: MetricsSource, options: ServeMetricsOptions): Promise<MetricsServer> {
  if (typeof registry !== 'object' || registry === null || typeof registry.expose !== 'function') {
    throw new TypeError('serveMetrics: the first argument must be a MetricsRegistry (an object with expose())');
  }
  const { port, host = '127.0.0.1', path = '/metrics' } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TypeError(`serveMetrics: option port must be an integer from 0 to 65535, got ${String(port)}`);
  }
  if (typeof path !== 'string' || !path.startsWith('/'))
    throw new TypeError(`serveMetrics: option path must start with '/', got ${String(path)}`);
  const server = createServer((req, res) => answer(registry, path, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err === undefined ? resolve() : reject(err)));
        server.closeAllConnections();
      }),
  };
}

function answer(registry: MetricsSource, path: string, req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  if ((q < 0 ? url : url.slice(0, q)) !== path) {
    plain(res, 404, `Not Found: the metrics are at ${path}\n`);
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    plain(res, 405, `Method Not Allowed: ${path} answers GET and HEAD\n`);
    return;
  }
  let body: string;
  try {
    body = registry.expose();
  } catch (e) {
    plain(res, 500, `Internal Server Error: the metrics could not be rendered (${(e as Error)?.message ?? String(e)})\n`);
    return;
  }
  res.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}
