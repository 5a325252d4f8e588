/**
 * The OpenAPI document exact enough for generated clients (issue 22): converter-typed parameters
 * (`@ApiSchema`) with their constraints, declared request headers (`requestHeaders` on an
 * operation and on a filter), error bodies in the media type they are really written in,
 * multipart bodies from their `@FormParam` parts, `security: []` on public operations, default
 * summaries, servers and tag descriptions. The error media type is checked against the answers
 * the application really gives, over both transports.
 */
import { describe, expect, it } from 'vitest';
import {
  ApiOperation,
  ApiResponse,
  ApiSchema,
  Application,
  BeanParam,
  Consumes,
  Context,
  Entity,
  FormParam,
  GET,
  HeaderParam,
  Int,
  Max,
  Min,
  NameBinding,
  NotFoundError,
  OpenApiFeature,
  Path,
  PathParam,
  Pattern,
  POST,
  Produces,
  PUT,
  QueryParam,
  Response,
  Size,
  ContainerRequestContext,
  type ContainerRequestFilter,
  type OpenApiDocument,
  type OpenApiOptions,
} from '../../src/index.js';
import { EntityPart, MultipartFeature } from '../../src/features/multipart/index.js';
import { openApiProblems } from '../helpers/openapi-schema.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

/** A path id: a canonical positive integer, converted by `fromString`; the document cannot see that without `@ApiSchema`. */
@ApiSchema({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER })
class ItemId {
  static fromString(raw: string): number {
    if (!/^[1-9]\d{0,15}$/.test(raw)) throw new RangeError('must be a positive integer');
    return Number(raw);
  }
}

class Filters {
  @QueryParam('code') @Pattern(/[A-Z]{3}/) code?: string;
  @QueryParam('limit', { type: Int }) @Min(1) @Max(20) limit?: number;
  @QueryParam('ratio', { type: Number }) @Max(1) ratio?: number;
  @QueryParam('since') since?: Date;
  @QueryParam('name') @Size({ min: 2, max: 10 }) name?: string;
}

const Versioned = NameBinding('Versioned');

@Versioned()
class VersionFilter implements ContainerRequestFilter {
  filterRequest(_ctx: ContainerRequestContext): void {}
}

@Path('/items')
class ItemResource {
  @GET()
  list(@BeanParam() filters: Filters, @QueryParam('deleted') deleted?: boolean): string[] {
    return [String(filters.code), String(deleted)];
  }

  @GET('{id}')
  @Produces('application/json')
  getItem(@PathParam('id', { type: ItemId }) @Max(999) id: number, @Context() ctx: ContainerRequestContext): Response {
    return ctx.evaluatePreconditions({ tag: { value: String(id), weak: false } as never }) ?? Response.ok({ id }).build();
  }

  @PUT('{id}')
  @Consumes('application/json')
  @Produces('application/json')
  @ApiOperation({
    summary: 'Replace an item',
    requestHeaders: {
      'If-Match': { description: 'The entity tag read', required: true },
      'X-Trace': { description: 'Tracing token', schema: { maxLength: 32 } },
    },
  })
  replaceItem(@PathParam('id', { type: ItemId }) id: number, body: { name: string }, @HeaderParam('x-trace') trace?: string): unknown {
    return { id, ...body, trace };
  }

  @GET('{id}/label')
  @Produces('text/plain')
  @Versioned()
  label(@PathParam('id', { type: ItemId }) id: number): string {
    if (id > 10) throw new NotFoundError(`no item ${id}`);
    return `item ${id}`;
  }

  @GET('{id}/events')
  @Produces('text/event-stream')
  @ApiResponse(200, { type: { type: 'string' } })
  @ApiResponse(404, { type: { $ref: '#/components/schemas/Error' }, description: 'No such item' })
  events(@PathParam('id', { type: ItemId }) id: number): string {
    throw new NotFoundError(`no item ${id}`);
  }

  @GET('{id}/vendor')
  @Produces('application/vnd.items+json')
  @ApiResponse(200, { type: { type: 'object' } })
  @ApiResponse(409, { type: { $ref: '#/components/schemas/Error' } })
  vendor(@PathParam('id', { type: ItemId }) id: number): unknown {
    return { id };
  }

  @POST('{id}/notes')
  @Consumes('application/json')
  @ApiOperation({ requestBody: { type: { type: 'array', items: { type: 'string' } }, description: 'Notes to add' } })
  addNotes(@PathParam('id', { type: ItemId }) id: number, @Entity(Object) body: unknown): unknown {
    return { id, body };
  }

  @POST('{id}/photo')
  @Consumes('multipart/form-data')
  @Produces('application/json')
  async uploadPhoto(
    @PathParam('id', { type: ItemId }) id: number,
    @FormParam('file') file: EntityPart,
    @FormParam('description') @Size({ max: 100 }) description?: string,
  ): Promise<unknown> {
    return { id, size: (await file.buffer()).length, description };
  }
}

const OPTIONS: OpenApiOptions = {
  info: { title: 'Items', version: '1.0.0' },
  tags: { ItemResource: 'Items and their photos', unused: 'Not used by any operation' },
  securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
  filters: [
    { requestHeaders: { 'X-API-Version': { description: 'The API version asked for', schema: { type: 'string', enum: ['1'] } } } },
    {
      binding: Versioned,
      requestHeaders: { 'X-Tenant': 'The tenant' },
      responses: { 429: { type: { $ref: '#/components/schemas/Error' }, description: 'Over the limit' } },
    },
  ],
};

const createApp = (feature?: OpenApiFeature): Application =>
  new Application({ resources: [ItemResource], providers: [VersionFilter, new MultipartFeature(), ...(feature ? [feature] : [])] });

type Op = Record<string, any>;
const op = (doc: OpenApiDocument, path: string, method: string): Op => (doc.paths[path] as Record<string, Op>)[method]!;

describe('an exact document', () => {
  const doc = JSON.parse(JSON.stringify(buildDoc())) as OpenApiDocument;
  function buildDoc(): OpenApiDocument {
    const feature = new OpenApiFeature({ ...OPTIONS, path: false, docsPath: false });
    createApp(feature).build();
    return feature.document();
  }

  it('is valid OpenAPI 3.1', async () => {
    expect(await openApiProblems(doc)).toEqual([]);
  });

  it('types parameters from their converters and constraints, plain and in a @BeanParam', () => {
    const get = op(doc, '/items/{id}', 'get');
    expect(get.parameters[0]).toEqual({
      name: 'id',
      in: 'path',
      required: true,
      schema: { type: 'integer', minimum: 1, maximum: 999 },
    });
    const params = op(doc, '/items', 'get').parameters as Op[];
    const byName = Object.fromEntries(params.map((p) => [p.name, p.schema]));
    expect(byName).toMatchObject({
      code: { type: 'string', pattern: '^(?:[A-Z]{3})$' },
      limit: { type: 'integer', minimum: 1, maximum: 20 },
      ratio: { type: 'number', maximum: 1 },
      since: { type: 'string', format: 'date-time' },
      name: { type: 'string', minLength: 2, maxLength: 10 },
      deleted: { type: 'boolean' },
    });
  });

  it('documents declared request headers: an operation’s and a filter’s, merged with a @HeaderParam of that name', () => {
    const put = op(doc, '/items/{id}', 'put').parameters as Op[];
    expect(put).toContainEqual({
      name: 'If-Match',
      in: 'header',
      required: true,
      description: 'The entity tag read',
      schema: { type: 'string' },
    });
    // The @HeaderParam('x-trace') keeps its place and converted schema, and takes the declared spelling,
    // description and schema constraints (names are case-insensitive).
    expect(put.filter((p) => p.name.toLowerCase() === 'x-trace')).toEqual([
      { name: 'X-Trace', in: 'header', required: false, description: 'Tracing token', schema: { type: 'string', maxLength: 32 } },
    ]);
    // The global filter's header is on every operation; the bound filter's only where it is bound.
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, o] of Object.entries(item as Record<string, Op>)) {
        const names = ((o.parameters ?? []) as Op[]).map((p) => p.name);
        expect(names, `${method} ${path}`).toContain('X-API-Version');
        expect(names.includes('X-Tenant'), `${method} ${path}`).toBe(path === '/items/{id}/label');
      }
    }
    expect((op(doc, '/items', 'get').parameters as Op[]).find((p) => p.name === 'X-API-Version')).toEqual({
      name: 'X-API-Version',
      in: 'header',
      required: false,
      description: 'The API version asked for',
      schema: { type: 'string', enum: ['1'] },
    });
  });

  it('documents error bodies in the media type they are written in, not the success type', () => {
    expect(Object.keys(op(doc, '/items/{id}/label', 'get').responses['200'].content)).toEqual(['text/plain']);
    expect(Object.keys(op(doc, '/items/{id}/label', 'get').responses['429'].content)).toEqual(['application/json']);
    expect(Object.keys(op(doc, '/items/{id}/events', 'get').responses['404'].content)).toEqual(['application/json']);
    // A JSON writer writes the error in the route's own +json type (RFC 6839 §3.1) when Accept picks it;
    // one raised before matching (a pre-matching filter) is in the error media type.
    expect(Object.keys(op(doc, '/items/{id}/vendor', 'get').responses['409'].content)).toEqual([
      'application/vnd.items+json',
      'application/json',
    ]);
  });

  it('documents a multipart body from its @FormParam parts, with their encodings', () => {
    const body = op(doc, '/items/{id}/photo', 'post').requestBody;
    expect(body).toEqual({
      required: false,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            properties: {
              file: { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' },
              description: { type: 'string', maxLength: 100 },
            },
          },
          encoding: { file: { contentType: 'application/octet-stream' }, description: { contentType: 'text/plain' } },
        },
      },
    });
  });

  it('documents a request body declared by hand over the one of an untyped entity', () => {
    expect(op(doc, '/items/{id}/notes', 'post').requestBody).toEqual({
      description: 'Notes to add',
      required: true,
      content: { 'application/json': { schema: { type: 'array', items: { type: 'string' } } } },
    });
  });

  it('says security: [] on public operations, gives summaries, a server and described tags', () => {
    expect(op(doc, '/items', 'get').security).toEqual([]);
    expect(op(doc, '/items/{id}', 'get').summary).toBe('Get item');
    expect(op(doc, '/items/{id}', 'put').summary).toBe('Replace an item');
    expect(op(doc, '/items/{id}/photo', 'post').summary).toBe('Upload photo');
    expect(doc.servers).toEqual([{ url: '/' }]);
    expect(doc.tags).toEqual([{ name: 'ItemResource', description: 'Items and their photos' }]);
  });

  it('leaves security out when the document declares none', () => {
    const feature = new OpenApiFeature({ info: OPTIONS.info, path: false, docsPath: false });
    createApp(feature).build();
    expect(op(feature.document(), '/items', 'get').security).toBeUndefined();
  });

  it('refuses bad options and decorators, naming the fix', () => {
    expect(() => new OpenApiFeature({ ...OPTIONS, tags: { a: 1 as never } })).toThrow(/tags\['a'\] must be the tag's description/);
    expect(() => new OpenApiFeature({ ...OPTIONS, servers: [{ url: '' }] })).toThrow(/servers\[0\] needs a url/);
    expect(() => ApiSchema(null as never)).toThrow(/@ApiSchema\(schema\)/);
  });
});

describe.each(TRANSPORTS)('the documented error media type is the one answered (%s)', (transport) => {
  const send = serveForSuite(transport, () => createApp());

  it('a text/plain operation answers its 404 in JSON', async () => {
    const ok = await send('/items/3/label');
    expect(ok.status).toBe(200);
    expect(ok.headers['content-type']).toMatch(/^text\/plain/);
    const missing = await send('/items/11/label');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/json/);
    expect(missing.json<{ status: number }>().status).toBe(404);
  });

  it('an event-stream operation answers its 404 in JSON', async () => {
    const missing = await send({ url: '/items/5/events', headers: { accept: 'text/event-stream' } });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/json/);
  });

  it('a converter-typed id refuses what its schema refuses', async () => {
    expect((await send('/items/0/label')).status).toBe(400);
    expect((await send('/items/abc/label')).status).toBe(400);
  });
});
