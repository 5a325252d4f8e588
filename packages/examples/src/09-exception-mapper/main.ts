// Run: pnpm --filter @jaxrs-node/examples start exception-mapper
import { serve } from '../common/serve.js';
import { createApp } from './app.js';

await serve(createApp());
