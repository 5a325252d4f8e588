// Processing rules §4: exception mapper choice, null → 204, mapper failures, carried responses, 405 Allow.
import { describe, expect, it } from 'vitest';
import {
  Application,
  BadRequestError,
  GET,
  MapsError,
  Path,
  POST,
  Priority,
  QueryParam,
  Response,
  WebApplicationError,
  type ContainerRequestContext,
  type ExceptionMapper,
} from '../../src/index.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

class DomainError extends Error {}
class NotFoundDomain extends DomainError {}
class DeepNotFound extends NotFoundDomain {}
class Unmapped extends Error {}
class MapperExplodes extends Error {}
class NullMapped extends Error {}

@MapsError(DomainError)
class DomainMapper implements ExceptionMapper<DomainError> {
  toResponse(e: DomainError): Response {
    return Response.status(422).entity({ mapper: 'domain', msg: e.message }).build();
  }
}
@MapsError(NotFoundDomain)
@Priority(10)
class NotFoundMapperLow implements ExceptionMapper<NotFoundDomain> {
  toResponse(): Response {
    return Response.status(404).entity({ mapper: 'nf-10' }).build();
  }
}
@MapsError(NotFoundDomain)
@Priority(20)
class NotFoundMapperHigh implements ExceptionMapper<NotFoundDomain> {
  toResponse(): Response {
    return Response.status(404).entity({ mapper: 'nf-20' }).build();
  }
}
@MapsError(MapperExplodes)
class ExplodingMapper implements ExceptionMapper<MapperExplodes> {
  toResponse(): Response {
    throw new Error('mapper failed with a secret');
  }
}
@MapsError(NullMapped)
class NullMapper implements ExceptionMapper<NullMapped> {
  toResponse(): null {
    return null;
  }
}
@MapsError(WebApplicationError)
class WebAppMapper implements ExceptionMapper<WebApplicationError> {
  toResponse(e: WebApplicationError, req: ContainerRequestContext): Response {
    return Response.status(e.status).entity({ mapper: 'webapp', status: e.status, path: req.path }).build();
  }
}

@Path('/m')
class M {
  @GET()
  get(@QueryParam('e') e: string): unknown {
    switch (e) {
      case 'domain':
        throw new DomainError('d');
      case 'deep':
        throw new DeepNotFound('x');
      case 'unmapped':
        throw new Unmapped('secret detail');
      case 'explode':
        throw new MapperExplodes();
      case 'null':
        throw new NullMapped();
      case 'carried':
        throw new WebApplicationError(409, 'c', { response: Response.status(409).entity({ carried: true }).build() });
      case 'bad':
        throw new BadRequestError('bad input');
      case 'string':
        throw 'a string'; // eslint-disable-line no-throw-literal
      default:
        return { ok: true };
    }
  }
  @POST() post(): string {
    return 'posted';
  }
}

const build = (mappers = true): Application =>
  new Application({
    resources: [M],
    providers: mappers ? [DomainMapper, NotFoundMapperHigh, NotFoundMapperLow, ExplodingMapper, NullMapper, WebAppMapper] : [],
    logger: () => undefined,
  });

describe.each(TRANSPORTS)('exception mappers (%s)', (transport) => {
  const send = serveForSuite(transport, () => build());

  it('uses the mapper of the error type itself', async () => {
    const r = await send('/m?e=domain');
    expect(r.status).toBe(422);
    expect(r.json()).toEqual({ mapper: 'domain', msg: 'd' });
  });
  it('walks the prototype chain to the NEAREST mapped type, then picks the lowest priority', async () => {
    const r = await send('/m?e=deep');
    expect(r.json()).toEqual({ mapper: 'nf-10' });
  });
  it('a mapper returning null gives 204', async () => {
    const r = await send('/m?e=null');
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
  });
  it('a mapper that throws gives a plain 500 without leaking', async () => {
    const r = await send('/m?e=explode');
    expect(r.status).toBe(500);
    expect(r.text).not.toContain('secret');
  });
  it('an HTTP error carrying a response is used as is', async () => {
    const r = await send('/m?e=carried');
    expect(r.status).toBe(409);
    expect(r.json()).toEqual({ carried: true });
  });
  it('runtime errors (404, 405) go to a user mapper for the base type, and 405 keeps Allow', async () => {
    const nf = await send('/nowhere');
    expect(nf.json()).toEqual({ mapper: 'webapp', status: 404, path: '/nowhere' });
    const na = await send({ method: 'DELETE', url: '/m' });
    expect(na.status).toBe(405);
    expect(na.json()).toMatchObject({ mapper: 'webapp', status: 405 });
    expect(na.headers.allow).toBe('GET, HEAD, OPTIONS, POST');
  });
});

describe.each(TRANSPORTS)('default mapper (%s)', (transport) => {
  const send = serveForSuite(transport, () => build(false));

  it('HTTP errors keep their status and show 4xx messages', async () => {
    const r = await send('/m?e=bad');
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ status: 400, error: 'Bad Request', message: 'bad input' });
  });
  it('anything else is a 500 that never leaks message or stack', async () => {
    for (const e of ['unmapped', 'string']) {
      const r = await send(`/m?e=${e}`);
      expect(r.status).toBe(500);
      expect(r.json()).toEqual({ status: 500, error: 'Internal Server Error', code: 'HTTP_500' });
    }
  });
  it('405 carries Allow', async () => {
    const r = await send({ method: 'PUT', url: '/m' });
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('GET, HEAD, OPTIONS, POST');
  });
});
