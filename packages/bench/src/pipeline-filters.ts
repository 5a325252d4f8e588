/**
 * The pipeline with the same two pieces of work as `bare-filters` and `fastify-hooks`: one
 * synchronous ContainerRequestFilter (refuse a request carrying a header, leave a value as a
 * request property) and one ContainerResponseFilter (send it as a header), per `BENCH_FILTERS`.
 */
import { Application } from '@jaxrs-node/pipeline';
import { announce, exitOnSignal, portFromEnv } from './common.js';
import { RejectFilter, TimingFilter } from './filters.js';
import { UserResource } from './resource.js';

const app = new Application({ resources: [UserResource], providers: [RejectFilter, TimingFilter] });
const { port } = await app.listen(portFromEnv(), '127.0.0.1');
announce(port);
exitOnSignal(() => void app.close(200));
