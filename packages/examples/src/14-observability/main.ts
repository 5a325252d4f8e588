// Run: pnpm --filter @jaxrs-node/examples start observability
import { serve } from '../common/serve.js';
import { createApp, PipelineMetrics } from './app.js';

// One subscriber for the life of the process, printing an access line per request.
await serve(createApp({ metrics: new PipelineMetrics({ accessLog: console.log }) }));
