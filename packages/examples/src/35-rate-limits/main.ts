// Run: pnpm --filter @jaxrs-node/examples start rate-limits   (then curl -i localhost:3000/books)
import { serve } from '../common/serve.js';
import { createApp } from './app.js';

await serve(createApp());
