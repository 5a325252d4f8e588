/** The `@jaxrs-node/pipeline` Application serving {@link UserResource}, default options. */
import { Application } from '@jaxrs-node/pipeline';
import { announce, exitOnSignal, portFromEnv } from './common.js';
import { UserResource } from './resource.js';

const app = new Application({ resources: [UserResource] });
const { port } = await app.listen(portFromEnv(), '127.0.0.1');
announce(port);
exitOnSignal(() => void app.close(200));
