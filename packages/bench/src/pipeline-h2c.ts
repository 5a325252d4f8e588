/** The pipeline serving {@link UserResource} over h2c (`listen(port, host, { http2: true })`), default options. */
import { Application } from '@jaxrs-node/pipeline';
import { announce, exitOnSignal, portFromEnv } from './common.js';
import { UserResource } from './resource.js';

const app = new Application({ resources: [UserResource] });
const { port } = await app.listen(portFromEnv(), '127.0.0.1', { http2: true });
announce(port);
exitOnSignal(() => void app.close(200));
