/**
 * `pipeline` with `HttpMetricsFeature` recording into a `MetricsRegistry` (duration, active
 * requests and body sizes by route template), served at /metrics by `metricsResource`. Compared
 * with `pipeline` by `instructions` to measure what the metrics cost per request
 * (`BENCH_EXTRA=servers.features.json BENCH_ONLY=pipeline,pipeline-metrics`).
 */
import { Application, HttpMetricsFeature, metricsResource, MetricsRegistry } from '@jaxrs-node/pipeline';
import { announce, exitOnSignal, portFromEnv } from './common.js';
import { UserResource } from './resource.js';

const registry = new MetricsRegistry();
const app = new Application({
  resources: [UserResource, metricsResource(registry)],
  providers: [new HttpMetricsFeature({ meter: registry })],
});
const { port } = await app.listen(portFromEnv(), '127.0.0.1');
announce(port);
exitOnSignal(() => void app.close(200));
