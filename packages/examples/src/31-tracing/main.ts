// Run: pnpm --filter @jaxrs-node/examples start tracing
import { ConsoleSpanExporter } from '@opentelemetry/sdk-trace-base';
import { serve } from '../common/serve.js';
import { createInventoryApp, createShopApp, inventoryClient, startTracing } from './app.js';

// Every finished span is printed; the inventory on a free port of its own, the shop on PORT.
startTracing(new ConsoleSpanExporter());
const inventory = createInventoryApp();
const { port } = await inventory.listen(0, '127.0.0.1');
await serve(createShopApp(inventoryClient(`http://127.0.0.1:${port}`)));
