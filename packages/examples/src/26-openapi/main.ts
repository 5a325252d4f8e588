// Run: pnpm --filter @jaxrs-node/examples start openapi   (then open http://127.0.0.1:3000/docs)
import { serve } from '../common/serve.js';
import { createApp } from './app.js';

await serve(createApp());
