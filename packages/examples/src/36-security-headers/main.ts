// Run: pnpm --filter @jaxrs-node/examples start security-headers   (then curl -i localhost:3000/api/users)
import { serve } from '../common/serve.js';
import { createApp } from './app.js';

await serve(createApp());
