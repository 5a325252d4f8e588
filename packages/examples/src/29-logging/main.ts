// Run: pnpm --filter @jaxrs-node/examples start logging
import { serve } from '../common/serve.js';
import { createApp } from './app.js';

await serve(createApp());
