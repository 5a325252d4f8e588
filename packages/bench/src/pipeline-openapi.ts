/**
 * `pipeline-filters` with the opt-in features that add routes of their own but must cost nothing
 * on other routes: `OpenApiFeature` (the document built at start-up, served at /openapi.json and
 * /docs) and `SseFeature`. Compared with `pipeline-filters` by `instructions` to show that the
 * benchmark route does not pay for them (`BENCH_EXTRA=servers.features.json`).
 */
import { Application, OpenApiFeature, SseFeature } from '@jaxrs-node/pipeline';
import { announce, exitOnSignal, portFromEnv } from './common.js';
import { RejectFilter, TimingFilter } from './filters.js';
import { UserResource } from './resource.js';

const app = new Application({
  resources: [UserResource],
  providers: [RejectFilter, TimingFilter, new OpenApiFeature({ info: { title: 'bench', version: '1' } }), new SseFeature()],
});
const { port } = await app.listen(portFromEnv(), '127.0.0.1');
announce(port);
exitOnSignal(() => void app.close(200));
