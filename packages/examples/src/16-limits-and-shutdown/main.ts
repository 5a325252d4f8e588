// Run: pnpm --filter @jaxrs-node/examples start limits-and-shutdown   (Ctrl-C closes gracefully)
import { serve } from '../common/serve.js';
import { createApp } from './app.js';

await serve(createApp());
