// Run: pnpm --filter @jaxrs-node/examples start hello   (PORT=8080 to change the port)
import { serve } from '../common/serve.js';
import { createApp } from './app.js';

await serve(createApp());
