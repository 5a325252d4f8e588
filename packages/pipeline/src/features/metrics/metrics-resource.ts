import type { Constructor } from '../../core/context/contracts.js';
import { Response } from '../../core/http/response.js';
import { GET, Path } from '../../decorators/resource.js';
import { ApiHidden } from '../openapi/decorators.js';
import { PROMETHEUS_CONTENT_TYPE, type MetricsRegistry } from './registry.js';

/** What can be scraped: a {@link MetricsRegistry}, or anything else that renders the text format 0.0.4. */
export type MetricsSource = Pick<MetricsRegistry, 'expose'>;

/**
 * A resource class serving `registry` in the Prometheus text format 0.0.4 at `path` (default
 * `/metrics`, below the application's base path): `GET` answers 200 with
 * `Content-Type: text/plain; version=0.0.4; charset=utf-8` and `Cache-Control: no-store`, the
 * series as they are at that moment. Put it in the application's `resources`; it is left out of
 * the OpenAPI document. To keep metrics off the public port, use {@link serveMetrics} instead.
 * @example
 * const registry = new MetricsRegistry();
 * new Application({ resources: [Users, metricsResource(registry)], providers: [new HttpMetricsFeature({ meter: registry })] });
 */
export function metricsResource(registry: MetricsSource, path = '/metrics'): Constructor {
  if (typeof registry !== 'object' || registry === null || typeof registry.expose !== 'function') {
    throw new TypeError('metricsResource: the first argument must be a MetricsRegistry (an object with expose())');
  }
  @ApiHidden()
  @Path(path)
  class MetricsResource {
    @GET() scrape(): Response {
      return Response.ok(Buffer.from(registry.expose())).type(PROMETHEUS_CONTENT_TYPE).header('cache-control', 'no-store').build();
    }
  }
  return MetricsResource;
}
