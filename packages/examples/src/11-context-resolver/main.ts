// Run: pnpm --filter @jaxrs-node/examples start context-resolver
import { serve } from '../shared/serve.js';
import { createApp } from './app.js';

await serve(createApp());
