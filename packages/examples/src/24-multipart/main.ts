// Run: pnpm --filter @jaxrs-node/examples start multipart
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '../common/serve.js';
import { createApp } from './app.js';

const dir = await mkdtemp(join(tmpdir(), 'example-uploads-'));
console.log(`uploads go to ${dir}`);
await serve(createApp(dir));
