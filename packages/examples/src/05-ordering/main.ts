// Run: pnpm --filter @jaxrs-node/examples start ordering
import { serve } from '../shared/serve.js';
import { createApp } from './app.js';

await serve(createApp());
