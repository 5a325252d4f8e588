/**
 * The OpenAPI 3.1 document (OpenApiFeature, buildOpenApi): valid against the official schema, in
 * step with the routes the application serves (the drift test), served with an ETag over both
 * transports, and the docs page's 404 hint without swagger-ui-dist.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Application, buildOpenApi, GET, IsInt, NotNull, OpenApiFeature, Path, type OpenApiDocument } from '../../src/index.js';
import { Audited, OPENAPI_OPTIONS, richApp } from '../fixtures/openapi/rich-app.js';
import { openApiProblems } from '../helpers/openapi-schema.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

type Operation = { operationId: string; parameters?: Array<{ name: string; in: string; schema: Record<string, unknown> }> };
const operations = (doc: OpenApiDocument): Array<[string, string, Operation]> =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([m, op]): [string, string, Operation] => [m, path, op as Operation]),
  );

/** An empty directory: nothing can be resolved from it. */
const nowhere = mkdtempSync(join(tmpdir(), 'openapi-no-ui-'));

/** A directory whose node_modules holds a stand-in swagger-ui-dist (the two files the page loads). */
function fakeSwaggerUi(): string {
  const root = mkdtempSync(join(tmpdir(), 'openapi-ui-'));
  const dir = join(root, 'node_modules', 'swagger-ui-dist');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'swagger-ui-dist', version: '0.0.0', main: 'index.js' }));
  writeFileSync(join(dir, 'index.js'), 'module.exports = {};\n');
  writeFileSync(join(dir, 'swagger-ui.css'), 'body { margin: 0 }\n');
  writeFileSync(join(dir, 'swagger-ui-bundle.js'), 'window.SwaggerUIBundle = function () {};\n');
  return root;
}

describe('the generated document', () => {
  const doc = buildOpenApi(richApp({}, undefined), OPENAPI_OPTIONS);

  it('is a valid OpenAPI 3.1 document whose schemas are valid JSON Schema 2020-12', async () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(await openApiProblems(doc)).toEqual([]);
    // The check itself rejects what it should.
    expect(await openApiProblems({ ...doc, info: undefined })).not.toEqual([]);
    expect(await openApiProblems({ ...doc, components: { schemas: { Bad: { type: 'nope' } } } })).not.toEqual([]);
  });

  it('documents parameters with their converted types, defaults and constraints', () => {
    const list = doc.paths['/orders']!.get as Operation;
    expect(list.parameters).toEqual([
      { name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 } },
      { name: 'size', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
      { name: 'x-tenant', in: 'header', required: false, schema: { type: 'string', maxLength: 16 } },
      { name: 'status', in: 'query', required: false, schema: { type: 'array', items: { type: 'string' } }, style: 'form', explode: true },
    ]);
    const search = doc.paths['/orders/search']!.get as Operation;
    expect(search.parameters).toContainEqual({
      name: 'q',
      in: 'query',
      required: true,
      schema: { type: 'string', minLength: 1, pattern: '\\S', maxLength: 50 },
    });
    expect(search.parameters).toContainEqual({
      name: 'from',
      in: 'query',
      required: false,
      schema: { type: 'string', format: 'date-time' },
    });
    expect(search.parameters).toContainEqual({ name: 'exact', in: 'query', required: false, schema: { type: 'boolean', default: false } });
    // The locator's typed path parameter is documented on the sub-resource's operations.
    const line = doc.paths['/orders/{id}/lines/{n}']!.get as Operation;
    expect(line.parameters?.map((p) => [p.name, p.schema.type])).toEqual([
      ['n', 'integer'],
      ['id', 'integer'],
    ]);
  });

  it('documents bodies, statuses, security and the error body once', () => {
    const create = doc.paths['/orders']!.post as Record<string, any>;
    expect(create.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateOrder' } } },
    });
    expect(Object.keys(create.responses).sort()).toEqual(['201', '400', '413', '415', '500']);
    expect(create.responses['201'].headers.Location).toEqual({ description: 'the new order', schema: { type: 'string' } });
    const replace = doc.paths['/orders/{id}']!.put as Record<string, any>;
    expect(replace.security).toEqual([{ bearer: [] }]);
    expect(replace.requestBody.required).toBe(false);
    expect(Object.keys(replace.responses)).toEqual(expect.arrayContaining(['401', '403', '404']));
    // PermitAll on the method beats the class's... no RolesAllowed here, and the search is public:
    // said explicitly, since the document declares security schemes (OpenAPI 3.1 §4.8.10.2).
    expect((doc.paths['/orders/search']!.get as Record<string, unknown>).security).toEqual([]);
    const form = doc.paths['/forms']!.post as Record<string, any>;
    expect(form.security).toEqual([{ apiKey: [] }]);
    expect(Object.keys(form.responses).sort()).toEqual(['200', '400', '401', '406', '413', '415', '500', '503']);
    expect(form.requestBody.content['application/x-www-form-urlencoded'].schema.required).toEqual(['name']);
    expect(doc.components.responses).toMatchObject({
      BadRequest: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    });
    expect(doc.components.securitySchemes).toEqual(OPENAPI_OPTIONS.securitySchemes);
    const ids = operations(doc).map(([, , op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('adds what the options say: filters, schemas, per-operation documentation and an error class', () => {
    class Problem {
      @NotNull() title!: string;
      @NotNull() @IsInt() status!: number;
    }
    const documented = buildOpenApi(richApp({}, undefined), {
      ...OPENAPI_OPTIONS,
      errorSchema: Problem,
      errorMediaType: 'application/problem+json',
      schemas: { Money: { type: 'string', pattern: '^\\d+\\.\\d{2}$' } },
      filters: [
        { responses: { 503: { description: 'Shutting down' } } },
        { binding: Audited, headers: { 'X-Audit': 'The audit id' }, responses: { 429: { description: 'Too many' } } },
      ],
      operations: {
        'Orders.get': { summary: 'One order', tags: ['reading'], responses: { 200: { type: { $ref: '#/components/schemas/Money' } } } },
      },
    });
    const search = documented.paths['/orders/search']!.get as Record<string, any>;
    expect(search.responses['200'].headers['X-Audit']).toEqual({ description: 'The audit id', schema: { type: 'string' } });
    expect(search.responses['429']).toEqual({ description: 'Too many', headers: expect.any(Object) });
    expect((documented.paths['/orders']!.get as Record<string, any>).responses['429']).toBeUndefined();
    expect((documented.paths['/forms']!.post as Record<string, any>).responses['503']).toBeDefined();
    const get = documented.paths['/orders/{id}']!.get as Record<string, any>;
    expect(get).toMatchObject({ summary: 'One order', tags: ['reading'] });
    expect(get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Money' });
    expect(documented.components.schemas).toHaveProperty('Problem');
    expect((documented.components.responses as Record<string, any>).NotFound.content).toEqual({
      'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
    });
  });

  it('leaves out hidden methods and the automatic HEAD and OPTIONS unless asked', () => {
    expect(doc.paths['/orders/debug']).toBeUndefined();
    expect(operations(doc).some(([m]) => m === 'head' || m === 'options')).toBe(false);
    const all = buildOpenApi(richApp({}, undefined), { ...OPENAPI_OPTIONS, automaticMethods: true });
    expect(Object.keys(all.paths['/orders']!).sort()).toEqual(['get', 'head', 'options', 'post']);
  });

  it('puts the base path in the default server, or prefixes every path with it when servers are given', () => {
    expect(doc.servers).toEqual([{ url: '/' }]);
    const based = buildOpenApi(richApp({ basePath: '/api' }, undefined), OPENAPI_OPTIONS);
    expect(based.servers).toEqual([{ url: '/api' }]);
    expect(Object.keys(based.paths).sort()).toEqual(Object.keys(doc.paths).sort());
    const servers = [{ url: 'https://orders.example.com' }];
    const public_ = buildOpenApi(richApp({ basePath: '/api' }, undefined), { ...OPENAPI_OPTIONS, servers });
    expect(public_.servers).toEqual(servers);
    expect(Object.keys(public_.paths).sort()).toEqual(
      Object.keys(doc.paths)
        .map((p) => `/api${p}`)
        .sort(),
    );
  });

  it('refuses an application that is already built, and bad options, naming the fix', () => {
    const app = richApp({}, undefined).build();
    expect(() => buildOpenApi(app, OPENAPI_OPTIONS)).toThrow(/already built/);
    expect(() => new OpenApiFeature({ info: { title: 'x' } } as never)).toThrow(/info needs a title and a version/);
    expect(() => new OpenApiFeature({ ...OPENAPI_OPTIONS, path: 'openapi.json' })).toThrow(/option path/);
    expect(() => new OpenApiFeature({ ...OPENAPI_OPTIONS, security: [{ schemes: ['basic'] }] })).toThrow(/'basic'/);
    expect(() => new OpenApiFeature({ ...OPENAPI_OPTIONS, extra: 1 } as never)).toThrow(/unknown option extra/);
    const feature = new OpenApiFeature(OPENAPI_OPTIONS);
    richApp({}, feature).build();
    expect(() => richApp({}, feature).build()).toThrow(/one OpenApiFeature per Application/);
  });
});

/** A concrete path for a documented template: a value each parameter's schema allows. */
function concrete(path: string, op: Operation): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const p = op.parameters?.find((q) => q.in === 'path' && q.name === name);
    return p?.schema.type === 'integer' ? '7' : 'x';
  });
}

describe.each(TRANSPORTS)('OpenApiFeature (%s)', (transport) => {
  let app!: Application;
  const send = serveForSuite(transport, () => (app = richApp({}, new OpenApiFeature({ ...OPENAPI_OPTIONS, resolveFrom: nowhere }))));

  it('serves the document: the same as buildOpenApi, with an ETag and 304 on If-None-Match', async () => {
    const res = await send('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual(JSON.parse(JSON.stringify(buildOpenApi(richApp({}, undefined), OPENAPI_OPTIONS))));
    const tag = res.headers.etag as string;
    expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await send({ url: '/openapi.json', headers: { 'if-none-match': tag } });
    expect(again.status).toBe(304);
    expect(again.headers.etag).toBe(tag);
    expect(again.body.length).toBe(0);
    expect((await send({ url: '/openapi.json', method: 'HEAD' })).headers.etag).toBe(tag);
  });

  it('drift: every route of the application is documented with exactly its methods', async () => {
    const doc = (await send('/openapi.json')).json<OpenApiDocument>();
    // Every root route the router has (app.routes), but the feature's own and the hidden one.
    const served = app.routes
      .map((r) => /^(\S+) (.+) -> (\S+)$/.exec(r)!)
      .filter(([, , , target]) => !/^(OpenApiDocumentResource|SwaggerUiResource)\./.test(target!) && target !== 'Orders.debug')
      .map(([, method, path]) => `${method!.toLowerCase()} ${path!.replace(/\{(\w+)[^}]*\}/g, '{$1}')}`)
      .sort();
    const documented = operations(doc).map(([m, p]) => `${m} ${p}`);
    expect(documented).toEqual(expect.arrayContaining(served));
    // Each documented path (sub-resources too) answers exactly its documented methods (+ HEAD, OPTIONS).
    for (const [path, item] of Object.entries(doc.paths)) {
      const methods = Object.keys(item).map((m) => m.toUpperCase());
      const allow = (await send({ method: 'OPTIONS', url: concrete(path, Object.values(item)[0] as Operation) })).headers.allow as string;
      const expected = new Set([...methods, 'OPTIONS', ...(methods.includes('GET') ? ['HEAD'] : [])]);
      expect(new Set(allow.split(', ')), path).toEqual(expected);
    }
  });

  it('answers the docs path with a 404 that says how to get Swagger UI', async () => {
    const res = await send({ url: '/docs', headers: { accept: 'text/html' } });
    expect(res.status).toBe(404);
    expect(res.json()).toMatchObject({ code: 'OPENAPI_DOCS_UNAVAILABLE', message: expect.stringContaining('npm install swagger-ui-dist') });
    expect((await send('/docs/swagger-ui-bundle.js')).status).toBe(404);
  });
});

describe.each(TRANSPORTS)('OpenApiFeature with a base path and swagger-ui-dist installed (%s)', (transport) => {
  @Path('/ping')
  class Ping {
    @GET() ping(): string {
      return 'pong';
    }
  }
  const send = serveForSuite(
    transport,
    () =>
      new Application({
        basePath: '/api',
        resources: [Ping],
        providers: [
          new OpenApiFeature({
            info: { title: 'Ping <API>', version: '1' },
            path: '/spec.json',
            docsPath: '/ui',
            resolveFrom: fakeSwaggerUi(),
          }),
        ],
      }),
  );

  it('serves the document under the base path, its server the base path', async () => {
    expect((await send('/spec.json')).status).toBe(404);
    const doc = (await send('/api/spec.json')).json<OpenApiDocument>();
    expect(doc.servers).toEqual([{ url: '/api' }]);
    expect(Object.keys(doc.paths)).toEqual(['/ping']);
  });

  it('serves the page with a strict Content-Security-Policy and its files from the package', async () => {
    const page = await send('/api/ui');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = page.headers['content-security-policy'] as string;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.text).toContain('data-url="/api/spec.json"');
    expect(page.text).toContain('<title>Ping &lt;API></title>');
    expect(page.text).not.toMatch(/<script>[^<]/); // no inline script
    for (const file of ['swagger-ui.css', 'swagger-ui-bundle.js', 'init.js']) {
      const res = await send(`/api/ui/${file}`);
      expect(res.status, file).toBe(200);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers.etag).toBeDefined();
    }
    expect((await send('/api/ui/swagger-ui-bundle.js')).text).toContain('window.SwaggerUIBundle');
  });
});
