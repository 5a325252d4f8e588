/**
 * The pipeline with the same two pieces of work as `bare-filters` and `fastify-hooks`: one
 * synchronous ContainerRequestFilter (refuse a request carrying a header, remember the start
 * time as a property) and one ContainerResponseFilter (add `x-response-time`).
 */
import { Application } from '@jaxrs-node/pipeline';
import { announce, exitOnSignal, portFromEnv } from './common.js';
import { RejectFilter, TimingFilter } from './filters.js';
import { UserResource } from './resource.js';

const app = new Application({ resources: [UserResource], providers: [RejectFilter, TimingFilter] });
const { port } = await app.listen(portFromEnv(), '127.0.0.1');
announce(port);
exitOnSignal(() => void app.close(200));
