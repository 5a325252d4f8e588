/**
 * The document the service serves is good enough for the tools clients are generated with: the
 * built server is started on port 0 and its `/openapi.json` is linted by Redocly CLI's
 * recommended rules (0 errors), turned into TypeScript types by openapi-typescript, and a call
 * file using those types through openapi-fetch compiles under the repository's strict tsc. The
 * call file would not compile if ids were strings or a conditional header were missing: it
 * passes numbers for ids and `If-Match` / `If-None-Match` / `Idempotency-Key` / `X-API-Version`
 * headers (excess properties of an object literal are errors), and one `@ts-expect-error` line
 * proves a string id is refused.
 */
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, removeDir, startServer, type RunningServer } from '../helpers/server.js';
import { openapiTypescript, redoclyLint, typecheck, workDir } from './openapi-tools.js';

/** Calls every kind of operation a client makes, typed by the generated `paths`. */
const CALL_FILE = `import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';

type User = components['schemas']['User'];
const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:8080' });

export async function calls(): Promise<number[]> {
  const ids: number[] = [];
  const created = await client.POST('/api/users', {
    params: { header: { 'Idempotency-Key': 'create-ada-1', 'X-API-Version': '1' } },
    body: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', age: 36 },
  });
  if (created.data !== undefined) ids.push(created.data.id);
  const read = await client.GET('/api/users/{id}', { params: { path: { id: 1 }, header: { 'If-None-Match': '"v1"' } } });
  if (read.data !== undefined && 'firstName' in read.data) ids.push(read.data.id);
  await client.PUT('/api/users/{id}', {
    params: { path: { id: 1 }, header: { 'If-Match': '"v1"' } },
    body: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Byron' },
  });
  await client.PATCH('/api/users/{id}', { params: { path: { id: 1 }, header: { 'If-Match': '"v2"' } }, body: { age: null } });
  await client.DELETE('/api/users/{id}', { params: { path: { id: 1 }, header: { 'If-Match': '"v3"' } } });
  const search = await client.GET('/api/users/search', { params: { query: { email: 'ada' } } });
  const found: User[] = search.data ?? [];
  ids.push(...found.map((u) => u.id));
  const page = await client.GET('/api/users', { params: { query: { page: 0, size: 10, sort: 'id' } } });
  if (page.data !== undefined && !Array.isArray(page.data)) ids.push(...page.data.content.map((u: User) => u.id));
  const order = await client.POST('/api/users/{id}/orders', {
    params: { path: { id: 2 }, header: { 'Idempotency-Key': 'order-1' } },
    body: { items: [{ productId: 1, quantity: 2 }] },
  });
  if (order.data !== undefined) {
    const moved = await client.PUT('/api/users/{id}/orders/{orderId}/status', {
      params: { path: { id: 2, orderId: order.data.id } },
      body: { status: 'PROCESSING' },
    });
    if (moved.data !== undefined) ids.push(moved.data.id);
  }
  const job = await client.POST('/api/async/users', { params: { header: { 'Idempotency-Key': 'job-1' } }, body: [] });
  if (job.data !== undefined) ids.push(job.data.id, ...job.data.created);
  // @ts-expect-error ids are integers: a string id is refused
  await client.GET('/api/users/{id}', { params: { path: { id: '1' } } });
  return ids;
}
`;

describe('generated clients from the served document', { timeout: 60_000 }, () => {
  let server: RunningServer;
  let dir: string;
  let document: string;
  let served: string;

  beforeAll(async () => {
    server = await startServer();
    const res = await http(server.url, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    dir = workDir();
    document = join(dir, 'openapi.json');
    served = res.text;
    writeFileSync(document, served);
  });
  afterAll(async () => {
    await server?.stop();
    if (server !== undefined) removeDir(server.dataDir);
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('passes Redocly CLI lint with the recommended rules: 0 errors', async () => {
    const lint = await redoclyLint(document);
    expect(lint.totals, lint.stderr).toBeDefined();
    expect(lint.totals!.errors, lint.stdout).toBe(0);
    expect(lint.code, lint.stderr).toBe(0);
  });

  it('gives openapi-typescript types that a typed call file compiles against (numbers for ids, conditional headers)', async () => {
    const generated = await openapiTypescript(document, join(dir, 'schema.d.ts'));
    expect(generated.code, generated.stderr).toBe(0);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(dir, 'call.ts'), CALL_FILE);
    const compiled = await typecheck(dir, ['call.ts']);
    expect(compiled.stdout + compiled.stderr).toBe('');
    expect(compiled.code).toBe(0);

    // The check can fail: the same call file against a document whose ids are strings does not compile.
    const doc = JSON.parse(served) as {
      paths: Record<string, Record<string, { parameters?: Array<{ in: string; schema: Record<string, unknown> }> }>>;
    };
    for (const item of Object.values(doc.paths))
      for (const op of Object.values(item)) for (const p of op.parameters ?? []) if (p.in === 'path') p.schema = { type: 'string' };
    const stringIds = join(dir, 'string-ids.json');
    writeFileSync(stringIds, JSON.stringify(doc));
    expect((await openapiTypescript(stringIds, join(dir, 'schema.d.ts'))).code).toBe(0);
    const refused = await typecheck(dir, ['call.ts']);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toMatch(/call\.ts\(\d+,\d+\): error TS2578: Unused '@ts-expect-error' directive/);
  });
});
