// Run: pnpm --filter @jaxrs-node/examples start client
import { serve } from '../common/serve.js';
import { catalogueClient, createCatalogueApp, createShopApp } from './app.js';

// The catalogue on a free port of its own; the shop on PORT, calling it.
const catalogue = createCatalogueApp();
const { port } = await catalogue.listen(0, '127.0.0.1');
await serve(createShopApp(catalogueClient({ baseUrl: `http://127.0.0.1:${port}` })));
