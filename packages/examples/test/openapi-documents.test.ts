/**
 * Every example application has a valid OpenAPI 3.1 document: `buildOpenApi` on each
 * `src/NN-name/app.ts` `createApp()`, validated against the official OpenAPI 3.1 schema.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildOpenApi, type Application } from '@jaxrs-node/pipeline';
import { clientOf } from '@jaxrs-node/pipeline/client';
import { describe, expect, it } from 'vitest';
import { PipelineMetrics } from '../src/14-observability/metrics.js';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');
const examples = readdirSync(src)
  .filter((d) => /^\d{2}-/.test(d))
  .sort();

/** Arguments for the few `createApp`s that need one. */
async function makeApp(dir: string): Promise<{ app: Application; dispose: () => void }> {
  const mod = (await import(pathToFileURL(join(src, dir, 'app.ts')).href)) as { createApp: (...args: unknown[]) => Application };
  if (dir === '27-client') {
    // Two applications: the shop (documented here, its client never called) and the catalogue.
    const m = mod as unknown as {
      createShopApp: (client: unknown) => Application;
      catalogueClient: (o: { baseUrl: string }) => { close(): Promise<void> };
    };
    const client = m.catalogueClient({ baseUrl: 'http://127.0.0.1:9' });
    return { app: m.createShopApp(client), dispose: () => void client.close() };
  }
  if (dir === '31-tracing') {
    // The shop (documented here, its inventory client never called) over a client to nowhere.
    const m = mod as unknown as {
      inventoryClient: (baseUrl: string) => object;
      createShopApp: (client: object) => Application;
    };
    const client = m.inventoryClient('http://127.0.0.1:9');
    return { app: m.createShopApp(client), dispose: () => void clientOf(client).close() };
  }
  if (dir === '14-observability') {
    const metrics = new PipelineMetrics();
    return { app: mod.createApp({ metrics }), dispose: () => metrics.close() };
  }
  return { app: mod.createApp(), dispose: () => undefined };
}

describe('the OpenAPI document of every example', () => {
  it('finds the examples', () => {
    expect(examples.length).toBeGreaterThanOrEqual(23);
  });

  it.each(examples)('%s', async (dir) => {
    const { app, dispose } = await makeApp(dir);
    try {
      const doc = buildOpenApi(app, { info: { title: dir, version: '1.0.0' } });
      expect(Object.keys(doc.paths).length, 'documents at least one path').toBeGreaterThan(0);
      const result = await new Validator().validate(JSON.parse(JSON.stringify(doc)) as Record<string, unknown>);
      expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
      expect(result.valid).toBe(true);
    } finally {
      dispose();
      await app.close(100);
    }
  });
});
