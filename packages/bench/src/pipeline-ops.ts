/**
 * `pipeline` plus what an operated service turns on (issue 24): `RequestIdFeature` (X-Request-Id
 * generated with randomUUID and echoed) and `LoggingFeature` writing one access line per request
 * through `jsonLogger` into `/dev/null` (an `fs.WriteStream`, as `fastify-pino` writes).
 */
import { Application, jsonLogger, LoggingFeature, RequestIdFeature } from '@jaxrs-node/pipeline';
import { announce, exitOnSignal, portFromEnv } from './common.js';
import { UserResource } from './resource.js';

const log = jsonLogger({ level: 'info', destination: '/dev/null' });
const app = new Application({ resources: [UserResource], log, providers: [new RequestIdFeature(), new LoggingFeature({ logger: log })] });
const { port } = await app.listen(portFromEnv(), '127.0.0.1');
announce(port);
exitOnSignal(() => void app.close(200));
