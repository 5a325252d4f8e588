// README "Application": every ApplicationOptions field, registration rules and the entry points
// (`routes`, `handler`). In-process unless the option concerns the socket.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import {
  Application,
  BadRequestError,
  ContainerRequestContext,
  GET,
  MapsError,
  NameBinding,
  Path,
  Provider,
  RequestScoped,
  Response,
  Singleton,
  type ContainerResponseContext,
  type ContainerResponseFilter,
  type ExceptionMapper,
  type MediaType,
  type MessageBodyWriter,
  type TypeToken,
  type WebApplicationError,
} from '../../src/index.js';

const Audited = NameBinding('Audited');
class Oops extends Error {}

@Path('/opts')
class Opts {
  @GET() get(): unknown {
    return { ok: true };
  }
  @GET('fail') fail(): never {
    throw new Error('db password is hunter2');
  }
  @GET('bad') bad(): never {
    throw new BadRequestError('nope');
  }
  @GET('oops') oops(): never {
    throw new Oops('x');
  }
  @GET('audited') @Audited() audited(): unknown {
    return { audited: true };
  }
}

let created = 0;
@Path('/default-scope')
class DefaultScope {
  readonly id = ++created;
  @GET() get(): unknown {
    return { id: this.id };
  }
}
@RequestScoped()
@Path('/per-request')
class PerRequest {
  readonly id = ++created;
  @GET() get(): unknown {
    return { id: this.id };
  }
}
@Singleton()
@Path('/shared')
class Shared {
  readonly id = ++created;
  @GET() get(): unknown {
    return { id: this.id };
  }
}

@Provider()
class Discovered implements ContainerResponseFilter {
  filterResponse(_req: ContainerRequestContext, res: ContainerResponseContext): void {
    res.addHeader('x-discovered', '1');
  }
}
@Audited()
class AuditFilter implements ContainerResponseFilter {
  filterResponse(_req: ContainerRequestContext, res: ContainerResponseContext): void {
    res.setHeader('x-audited', '1');
  }
}
class NakedMapper implements ExceptionMapper<Error> {
  toResponse(e: Error): Response {
    return Response.status(418).entity({ naked: e.constructor.name }).build();
  }
}
@MapsError(BadRequestError)
class DecoratedMapper implements ExceptionMapper<Error> {
  toResponse(): Response {
    return Response.status(400).entity({ decorated: true }).build();
  }
}
/** A user writer for any object as JSON (what `builtinProviders: false` leaves to the user). */
class ObjectWriter implements MessageBodyWriter {
  readonly produces = ['application/json'];
  isWriteable(_type: TypeToken, mt: MediaType): boolean {
    return mt.essence === 'application/json';
  }
  writeTo(entity: unknown): string {
    return JSON.stringify({ custom: entity });
  }
}
/** Writes strings only; objects have no writer at all. */
class StringWriter implements MessageBodyWriter {
  readonly produces = ['text/plain'];
  isWriteable(type: TypeToken, mt: MediaType): boolean {
    return type === String && mt.type === 'text';
  }
  writeTo(entity: unknown): string {
    return String(entity);
  }
}

const quiet = (): void => undefined;

describe('builtinProviders: false', () => {
  it('an object entity without any writer is a 500 whose cause (PIPE_NO_WRITER) is logged', async () => {
    const logged: unknown[] = [];
    const app = new Application({ resources: [Opts], builtinProviders: false, logger: (e) => logged.push(e) });
    const r = await app.inject('/opts');
    expect(r.status).toBe(500);
    expect(logged.map((e) => (e as WebApplicationError).code)).toContain('PIPE_NO_WRITER');
  });

  it('no writer for the entity type at all is 500 PIPE_NO_WRITER whatever the Accept, never 406', async () => {
    const app = new Application({
      resources: [Opts],
      providers: [StringWriter],
      builtinProviders: false,
      logger: quiet,
      errorBody: (e) => `${e.status} ${e.code}`,
    });
    for (const accept of ['*/*', 'application/json', 'text/plain']) {
      const r = await app.inject({ url: '/opts', headers: { accept } });
      expect([accept, r.status, r.text()]).toEqual([accept, 500, '500 PIPE_NO_WRITER']);
    }
  });

  it('a registered user writer serves the entity', async () => {
    const app = new Application({ resources: [Opts], providers: [ObjectWriter], builtinProviders: false, logger: quiet });
    const r = await app.inject('/opts');
    expect([r.status, r.json()]).toEqual([200, { custom: { ok: true } }]);
  });
});

describe('discoverProviders', () => {
  it('true registers @Provider() classes (once, even when also registered explicitly); false and the default do not', async () => {
    const on = new Application({ resources: [Opts], discoverProviders: true });
    expect((await on.inject('/opts')).headers['x-discovered']).toBe('1');
    const both = new Application({ resources: [Opts], providers: [Discovered], discoverProviders: true });
    expect((await both.inject('/opts')).headers['x-discovered']).toBe('1');
    for (const discoverProviders of [false, undefined]) {
      const off = new Application({ resources: [Opts], discoverProviders });
      expect((await off.inject('/opts')).headers['x-discovered']).toBeUndefined();
    }
  });
});

describe('resource lifecycle', () => {
  const ids = async (app: Application, url: string): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < 3; i++) out.push((await app.inject(url)).json<{ id: number }>().id);
    return out;
  };
  const distinct = (xs: number[]): number => new Set(xs).size;

  it('default: one singleton instance per application, reused by every request', async () => {
    const app = new Application({ resources: [DefaultScope, PerRequest, Shared] });
    expect(distinct(await ids(app, '/default-scope'))).toBe(1);
    expect(distinct(await ids(app, '/per-request'))).toBe(3); // @RequestScoped() wins over the default
    expect(distinct(await ids(app, '/shared'))).toBe(1);
  });

  it("resourceScope: 'request' creates an instance per request; @Singleton() still wins", async () => {
    const app = new Application({ resources: [DefaultScope, Shared], resourceScope: 'request' });
    expect(distinct(await ids(app, '/default-scope'))).toBe(3);
    expect(distinct(await ids(app, '/shared'))).toBe(1);
  });
});

describe('errorBody and logger', () => {
  it('a custom errorBody shapes every mapped HTTP error and sees the request', async () => {
    const app = new Application({
      resources: [Opts],
      logger: quiet,
      errorBody: (e, req) => ({ problem: e.code, status: e.status, at: req.path }),
    });
    expect((await app.inject('/none')).json()).toEqual({ problem: 'PIPE_NO_MATCH', status: 404, at: '/none' });
    expect((await app.inject('/opts/fail')).json()).toEqual({ problem: 'HTTP_500', status: 500, at: '/opts/fail' });
  });

  it('a custom logger receives 5xx causes with the request; the client never sees the message', async () => {
    const calls: [unknown, ContainerRequestContext | undefined][] = [];
    const app = new Application({ resources: [Opts], logger: (e, req) => calls.push([e, req]) });
    const r = await app.inject('/opts/fail');
    expect(r.status).toBe(500);
    expect(r.text()).not.toContain('hunter2');
    expect(calls).toHaveLength(1);
    expect((calls[0]![0] as Error).message).toBe('db password is hunter2');
    expect(calls[0]![1]?.path).toBe('/opts/fail');
    expect((await app.inject('/opts/bad')).status).toBe(400);
    expect(calls).toHaveLength(1); // 4xx are not logged
  });
});

describe('bindings (application-level binding decorators, jersey#1967)', () => {
  @Audited()
  class AuditedApp extends Application {}

  it('without them a bound provider applies only where the binding is present', async () => {
    const app = new Application({ resources: [Opts], providers: [AuditFilter] });
    expect((await app.inject('/opts')).headers['x-audited']).toBeUndefined();
    expect((await app.inject('/opts/audited')).headers['x-audited']).toBe('1');
  });

  it('bindings: [Audited] (or the decorator on an Application subclass) makes it global, 404s included', async () => {
    for (const app of [
      new Application({ resources: [Opts], providers: [AuditFilter], bindings: [Audited] }),
      new AuditedApp({ resources: [Opts], providers: [AuditFilter] }),
    ]) {
      expect((await app.inject('/opts')).headers['x-audited']).toBe('1');
      expect((await app.inject('/none')).headers['x-audited']).toBe('1');
    }
  });
});

describe('registration', () => {
  it('register() after build() throws', async () => {
    const app = new Application({ resources: [Opts] }).build();
    expect(() => app.register(AuditFilter)).toThrow(/register\(\) after build\(\)/);
    const viaInject = new Application({ resources: [Opts] });
    await viaInject.inject('/opts');
    expect(() => viaInject.register(AuditFilter)).toThrow(/after build/);
  });

  it('an ExceptionMapper without @MapsError fails build() naming the class and the fix', () => {
    const app = new Application({ resources: [Opts], providers: [NakedMapper] });
    expect(() => app.build()).toThrow(
      /\[PIPELINE_MAPPER_WITHOUT_TYPE\] ExceptionMapper NakedMapper does not say which errors it maps: add @MapsError\(ErrorType\)/,
    );
  });

  it('register(Mapper, { errorType }) maps that type; an explicit errorType beats @MapsError', async () => {
    const app = new Application({ resources: [Opts], logger: quiet })
      .register(NakedMapper, { errorType: Oops })
      .register(DecoratedMapper, { errorType: Oops, priority: 1 });
    const r = await app.inject('/opts/oops');
    expect([r.status, r.json()]).toEqual([400, { decorated: true }]);
    expect((await app.inject('/opts/bad')).status).toBe(400); // DecoratedMapper no longer maps BadRequestError...
    expect((await app.inject('/opts/bad')).json()).toMatchObject({ message: 'nope' }); // ...the default mapper does
  });

  it('app.routes lists every resource method', () => {
    const app = new Application({ resources: [Opts, Shared] });
    expect(app.routes).toEqual([
      'GET /opts -> Opts.get',
      'GET /opts/fail -> Opts.fail',
      'GET /opts/bad -> Opts.bad',
      'GET /opts/oops -> Opts.oops',
      'GET /opts/audited -> Opts.audited',
      'GET /shared -> Shared.get',
    ]);
  });
});

describe('app.handler on your own node:http server', () => {
  it('serves requests, and answers 503 once the application is closing', async () => {
    const app = new Application({ resources: [Opts] });
    const server = createServer(app.handler);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/opts`;
    try {
      const r = await request(url);
      expect([r.statusCode, await r.body.json()]).toEqual([200, { ok: true }]);
      await app.close();
      const closing = await request(url);
      expect([closing.statusCode, closing.headers.connection]).toEqual([503, 'close']);
      await closing.body.dump();
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
