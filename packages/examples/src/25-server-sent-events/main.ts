// Run: pnpm --filter @jaxrs-node/examples start server-sent-events
import { serve } from '../common/serve.js';
import { createApp } from './app.js';

await serve(createApp());
