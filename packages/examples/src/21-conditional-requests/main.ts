// Run: pnpm --filter @jaxrs-node/examples start conditional-requests
import { serve } from '../common/serve.js';
import { createApp } from './app.js';

await serve(createApp());
