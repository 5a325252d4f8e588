/**
 * The OpenAPI document says in which formats errors are written: with `errorFormat: 'problem'`
 * only `application/problem+json` (RFC 9457), with `'negotiate'` beside the error body, with the
 * default `'json'` only the error body. Every answer is checked against the document it serves,
 * in-process and over a socket.
 */
import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { ApiResponse, Application, BadRequestError, GET, Min, OpenApiFeature, Path, PathParam, Produces } from '../../src/index.js';
import { openApiProblems, schemaChecker } from '../helpers/openapi-schema.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

@Path('/items')
class Items {
  @GET('{id}') @Produces('application/json') get(@PathParam('id') @Min(1) id: number): { id: number } {
    return { id };
  }
  @GET('refused') @ApiResponse(422, { type: { $ref: '#/components/schemas/Error' }, description: 'Refused' }) refused(): never {
    throw new BadRequestError('never accepted');
  }
}

type Format = 'json' | 'problem' | 'negotiate';
const app = (errorFormat: Format): Application =>
  new Application({
    resources: [Items],
    errorFormat,
    providers: [new OpenApiFeature({ info: { title: 'Items', version: '1' }, docsPath: false })],
  });

type Content = Record<string, { schema: { $ref?: string } }>;
type Doc = {
  components: { schemas: Record<string, unknown>; responses: Record<string, { content: Content }> };
  paths: Record<string, any>;
};

describe.each(TRANSPORTS)('OpenAPI: the error formats of errorFormat (%s)', (transport) => {
  const expected: Record<Format, string[]> = {
    json: ['application/json'],
    problem: ['application/problem+json'],
    negotiate: ['application/json', 'application/problem+json'],
  };
  for (const format of ['json', 'problem', 'negotiate'] as const) {
    const send = serveForSuite(transport, () => app(format));

    it(`'${format}': shared and declared error responses list ${expected[format].join(' and ')}, and answers match them`, async () => {
      const doc = (await send('/openapi.json')).json<Doc>();
      expect(await openApiProblems(doc)).toEqual([]);
      const badRequest = doc.components.responses.BadRequest!.content;
      expect(Object.keys(badRequest)).toEqual(expected[format]);
      const declared = doc.paths['/items/refused'].get.responses['422'].content as Content;
      expect(Object.keys(declared)).toEqual(expected[format]);
      if (format === 'json') expect(doc.components.schemas.ProblemDetails).toBeUndefined();
      else expect(badRequest['application/problem+json']!.schema).toEqual({ $ref: '#/components/schemas/ProblemDetails' });

      const check = schemaChecker(doc);
      for (const accept of ['application/json', 'application/problem+json, application/json;q=0.5']) {
        const r = await send({ url: '/items/0', headers: { accept } });
        expect(r.status).toBe(400);
        const type = String(r.headers['content-type']).split(';')[0]!;
        expect(Object.keys(badRequest), `${format} answered ${type} to ${accept}`).toContain(type);
        expect(check(badRequest[type]!.schema, r.json()), `${format}: the ${type} body matches its schema`).toBe(true);
      }
    });
  }
});
