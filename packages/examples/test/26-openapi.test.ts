import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/26-openapi/app.js';
import { listen, send, type Running } from './helpers/http.js';

describe('26 OpenAPI, over a real socket', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp());
  });
  afterAll(() => server.close());

  it('serves a valid OpenAPI 3.1 document of the routes, with the constraints the server checks', async () => {
    const res = await send(server.url, '/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.json();
    expect(await new Validator().validate(doc)).toEqual({ valid: true });
    expect(Object.keys(doc.paths)).toEqual(['/notes', '/notes/{id}']);
    expect(doc.components.schemas.NewNote.properties.title).toEqual({ type: 'string', minLength: 1, pattern: '\\S', maxLength: 80 });
    expect(doc.paths['/notes/{id}'].delete.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/notes/{id}'].get.security).toEqual([]);
    expect(doc.paths['/notes/{id}'].get.summary).toBe('Get');
    expect(doc.tags).toEqual([{ name: 'notes', description: 'Short notes, each with a few tags' }]);
    expect(doc.servers).toEqual([{ url: '/' }]);
    expect(doc.paths['/notes'].post.responses['201'].headers.Location).toBeDefined();

    // The rule the document states is the one the server enforces.
    const bad = await send(server.url, '/notes', { method: 'POST', body: { title: ' ' } });
    expect(bad.status).toBe(400);
    expect(bad.json().errors).toEqual([{ field: 'body.title', message: 'must not be blank', value: ' ' }]);
    expect((await send(server.url, '/notes?limit=51')).status).toBe(400);
    expect(doc.paths['/notes'].get.parameters).toContainEqual({
      name: 'limit',
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
    });
  });

  it('answers a revalidation with 304', async () => {
    const first = await send(server.url, '/openapi.json');
    const again = await send(server.url, '/openapi.json', { headers: { 'if-none-match': first.headers.etag as string } });
    expect(again.status).toBe(304);
  });

  it('serves Swagger UI from swagger-ui-dist with a strict Content-Security-Policy', async () => {
    const page = await send(server.url, '/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.text).toContain('<script src="/docs/swagger-ui-bundle.js"></script>');
    expect(page.text).toContain('data-url="/openapi.json"');
    const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist'));
    const bundle = await send(server.url, '/docs/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(bundle.body.equals(readFileSync(join(dist, 'swagger-ui-bundle.js')))).toBe(true);
    expect((await send(server.url, '/docs/swagger-ui.css')).status).toBe(200);
    expect((await send(server.url, '/docs/init.js')).text).toContain('SwaggerUIBundle');
  });
});
