/**
 * `pipeline` plus what an operated service turns on (issue 24): `RequestIdFeature` (X-Request-Id
 * generated with randomUUID and echoed), `LoggingFeature` writing one access line per request
 * through `jsonLogger` into `/dev/null` (an `fs.WriteStream`, as `fastify-pino` writes), and
 * `HttpMetricsFeature` recording OpenTelemetry's HTTP server metrics into a `MetricsRegistry`.
 */
import { Application, HttpMetricsFeature, jsonLogger, LoggingFeature, MetricsRegistry, RequestIdFeature } from '@jaxrs-node/pipeline';
import { announce, exitOnSignal, portFromEnv } from './common.js';
import { UserResource } from './resource.js';

const log = jsonLogger({ level: 'info', destination: '/dev/null' });
const registry = new MetricsRegistry();
const app = new Application({
  resources: [UserResource],
  log,
  providers: [new RequestIdFeature(), new LoggingFeature({ logger: log }), new HttpMetricsFeature({ meter: registry })],
});
const { port } = await app.listen(portFromEnv(), '127.0.0.1');
announce(port);
exitOnSignal(() => void app.close(200));
