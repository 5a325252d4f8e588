// Run: pnpm --filter @jaxrs-node/examples start dynamic-feature
import { serve } from '../common/serve.js';
import { createAppWithFeature } from './app.js';

const { app, feature } = createAppWithFeature();
app.build(); // DynamicFeatures run here, once per resource method
console.log(`deprecated: ${feature.deprecatedMethods.join(', ')}`);
await serve(app);
