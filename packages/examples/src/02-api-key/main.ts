// Run: pnpm --filter @jaxrs-node/examples start api-key   (API_KEYS=k1,k2 to choose the keys)
import { serve } from '../common/serve.js';
import { createApp } from './app.js';

await serve(createApp());
