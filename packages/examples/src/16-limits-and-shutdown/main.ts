// Run: pnpm --filter @jaxrs-node/examples start limits-and-shutdown   (Ctrl-C closes gracefully)
import { serve } from '../shared/serve.js';
import { createApp } from './app.js';

await serve(createApp());
