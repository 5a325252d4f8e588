// Run: pnpm --filter @jaxrs-node/examples start observability
import { serve } from '../shared/serve.js';
import { createApp } from './app.js';

await serve(createApp());
