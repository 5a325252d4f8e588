// Run: pnpm --filter @jaxrs-node/examples start health   (then curl -i localhost:3000/health/ready)
import { serve } from '../common/serve.js';
import { createApp } from './app.js';

await serve(createApp());
