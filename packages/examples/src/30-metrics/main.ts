// Run: METRICS_PORT=9464 pnpm --filter @jaxrs-node/examples start metrics
//      curl -s localhost:3000/api/orders/1; curl -s localhost:9464/metrics   (or localhost:3000/api/metrics)
import { MetricsRegistry, serveMetrics } from '@jaxrs-node/pipeline';
import { serve } from '../common/serve.js';
import { createApp } from './app.js';

const registry = new MetricsRegistry();
// The same registry on a listener of its own, off the public port (METRICS_PORT; 0 picks a free one).
const metricsPort = process.env.METRICS_PORT;
if (metricsPort !== undefined && metricsPort !== '') {
  const port = Number(metricsPort);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new RangeError(`METRICS_PORT must be 0-65535, got ${JSON.stringify(metricsPort)}`);
  const metrics = await serveMetrics(registry, { port });
  console.log(`metrics on http://127.0.0.1:${metrics.port}/metrics`);
}
await serve(createApp(registry));
