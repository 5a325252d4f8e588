/** `pipeline` plus `RequestContextFeature` alone: what the request context (AsyncLocalStorage) costs per request (issue 24). */
import { Application, RequestContextFeature } from '@jaxrs-node/pipeline';
import { announce, exitOnSignal, portFromEnv } from './common.js';
import { UserResource } from './resource.js';

const app = new Application({ resources: [UserResource], providers: [new RequestContextFeature()] });
const { port } = await app.listen(portFromEnv(), '127.0.0.1');
announce(port);
exitOnSignal(() => void app.close(200));
