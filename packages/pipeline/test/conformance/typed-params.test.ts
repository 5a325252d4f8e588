/**
 * Integer parameters (`{ type: Int }`): decimal integers within the safe range only; `1.5`, `1e9`
 * as an exponent and values past 2^53 - 1 are 400 naming the parameter, for every source and for
 * arrays; a bad `@DefaultValue` fails start-up. Plain `number` parameters refuse non-finite values.
 * Over both transports.
 */
import { describe, expect, it } from 'vitest';
import { Application, DefaultValue, GET, HeaderParam, Int, Path, PathParam, QueryParam } from '../../src/index.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

@Path('/int')
class Ints {
  @GET('{id}') get(
    @PathParam('id', { type: Int }) id: number,
    @QueryParam('page', { type: Int }) @DefaultValue('0') page: number,
    @HeaderParam('x-count', { type: Int }) count: number | undefined,
    @QueryParam('ids', { elementType: Int }) ids: number[],
    @QueryParam('ratio') @DefaultValue('1') ratio: number,
  ) {
    return { id, page, count: count ?? null, ids, ratio };
  }
}

describe.each(TRANSPORTS)('Int parameters (%s)', (transport) => {
  const send = serveForSuite(transport, () => new Application({ resources: [Ints], logger: () => undefined }));

  it('accepts decimal integers, signed, up to the safe range', async () => {
    const r = await send({ url: '/int/9007199254740991?page=-3&ids=1&ids=2', headers: { 'x-count': '7' } });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ id: Number.MAX_SAFE_INTEGER, page: -3, count: 7, ids: [1, 2], ratio: 1 });
  });

  it.each([
    ['/int/1.5', 'path.id'],
    ['/int/1e9', 'path.id'],
    ['/int/9007199254740992', 'path.id'],
    ['/int/1?page=0x10', 'query.page'],
    ['/int/1?page=99999999999999999999', 'query.page'],
    ['/int/1?ids=1&ids=2.5', 'query.ids'],
    ['/int/1?ratio=1e400', 'query.ratio'],
  ])('%s is 400 naming %s', async (url, name) => {
    const r = await send({ url });
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ code: 'PIPE_PARAM_CONVERSION', errors: [{ field: name }] });
  });

  it('a header that is not an integer is 400 too', async () => {
    const r = await send({ url: '/int/1', headers: { 'x-count': '3.0' } });
    expect(r.status).toBe(400);
  });
});

describe('Int @DefaultValue', () => {
  it('a default that is not an integer fails start-up naming the parameter', () => {
    @Path('/bad')
    class BadDefault {
      @GET() get(@QueryParam('n', { type: Int }) @DefaultValue('2.5') n: number): number {
        return n;
      }
    }
    expect(() => new Application({ resources: [BadDefault] }).build()).toThrow(/'2\.5' is not an integer/);
  });
});
