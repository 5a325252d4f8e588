// Run: WORKERS=2 pnpm --filter @jaxrs-node/examples start every-core   (Ctrl-C drains every worker)
import { serveOnCores } from '@jaxrs-node/pipeline';
import { portFromEnv } from '../common/serve.js';
import { createApp, workersFromEnv } from './app.js';

// The supervisor prints the line once, after every worker listens; workers print nothing.
await serveOnCores(createApp, {
  workers: workersFromEnv(),
  port: portFromEnv(),
  host: '127.0.0.1',
  printReady: (ready) => `listening on ${ready.url}`,
});
