// README "Dependency injection": resources and providers come from the user's tsyringe container,
// with constructor injection by token (@inject) and by class (design:paramtypes).
import 'reflect-metadata'; // before tsyringe, which needs the Reflect polyfill at import time
import { container as rootContainer, inject, injectable, type DependencyContainer } from 'tsyringe';
import { describe, expect, it } from 'vitest';
import {
  Application,
  ContainerRequestContext,
  GET,
  MapsError,
  Path,
  PathParam,
  RequestScoped,
  Response,
  type Constructor,
  type ContainerRequestFilter,
  type ContainerResponseContext,
  type ContainerResponseFilter,
  type ExceptionMapper,
  type WriterInterceptor,
  type WriterInterceptorContext,
} from '../../src/index.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

const CONFIG = Symbol('Config');
interface Config {
  greeting: string;
}

/** A class-typed dependency: resolved from `design:paramtypes`, so it proves metadata is emitted. */
@injectable()
class Greeter {
  readonly instance = Symbol('greeter');
  constructor(@inject(CONFIG) readonly config: Config) {}
  greet(name: string): string {
    return `${this.config.greeting}, ${name}`;
  }
}

/** Counts requests; registered as a singleton, shared by every consumer. */
class Audit {
  readonly seen: string[] = [];
}

class Missing extends Error {}

@injectable()
@Path('/hello')
class HelloResource {
  constructor(
    readonly greeter: Greeter,
    readonly audit: Audit,
  ) {}
  @GET('{name}') hello(@PathParam('name') name: string): unknown {
    if (name === 'nobody') throw new Missing(name);
    return { text: this.greeter.greet(name), seen: this.audit.seen.length };
  }
}

@injectable()
@RequestScoped()
@Path('/per-request')
class PerRequestResource {
  static instances = 0;
  constructor(readonly greeter: Greeter) {
    PerRequestResource.instances++;
  }
  @GET() get(): unknown {
    return { text: this.greeter.greet('again') };
  }
}

@injectable()
class AuditFilter implements ContainerRequestFilter {
  constructor(readonly audit: Audit) {}
  filterRequest(ctx: ContainerRequestContext): void {
    this.audit.seen.push(ctx.path);
  }
}

@injectable()
class GreetingHeader implements ContainerResponseFilter {
  constructor(@inject(CONFIG) readonly config: Config) {}
  filterResponse(_req: ContainerRequestContext, res: ContainerResponseContext): void {
    res.setHeader('x-greeting', this.config.greeting);
  }
}

@injectable()
class StampInterceptor implements WriterInterceptor {
  constructor(readonly greeter: Greeter) {}
  aroundWriteTo(ctx: WriterInterceptorContext): Promise<void> {
    ctx.headers['x-stamp'] = this.greeter.greet('writer');
    return ctx.proceed();
  }
}

@injectable()
@MapsError(Missing)
class MissingMapper implements ExceptionMapper<Missing> {
  constructor(readonly greeter: Greeter) {}
  toResponse(e: Missing): Response {
    return Response.status(404)
      .entity({ text: this.greeter.greet(`no ${e.message}`) })
      .build();
  }
}

const PROVIDERS = [AuditFilter, GreetingHeader, StampInterceptor, MissingMapper];
const RESOURCES = [HelloResource, PerRequestResource];

function userContainer(): { c: DependencyContainer; config: Config; audit: Audit } {
  const c = rootContainer.createChildContainer();
  const config: Config = { greeting: 'Hello' };
  const audit = new Audit();
  c.registerInstance(CONFIG, config);
  c.registerInstance(Audit, audit);
  c.registerSingleton(Greeter);
  return { c, config, audit };
}

describe('decorator metadata under vitest 4', () => {
  it('one test resolves every registered class from the container, with its dependencies injected', () => {
    const { c, config, audit } = userContainer();
    const greeter = c.resolve(Greeter);
    expect(greeter.config).toBe(config);
    expect(c.resolve(Greeter)).toBe(greeter); // registered singleton
    // design:paramtypes is what lets tsyringe inject class-typed parameters without @inject.
    expect(Reflect.getMetadata('design:paramtypes', HelloResource)).toEqual([Greeter, Audit]);
    expect(Reflect.getMetadata('design:paramtypes', HelloResource.prototype, 'hello')).toEqual([String]);
    const expectations: [Constructor<object>, (o: never) => void][] = [
      [
        HelloResource,
        (o: HelloResource) => {
          expect(o.greeter).toBe(greeter);
          expect(o.audit).toBe(audit);
        },
      ],
      [PerRequestResource, (o: PerRequestResource) => expect(o.greeter).toBe(greeter)],
      [AuditFilter, (o: AuditFilter) => expect(o.audit).toBe(audit)],
      [GreetingHeader, (o: GreetingHeader) => expect(o.config).toBe(config)],
      [StampInterceptor, (o: StampInterceptor) => expect(o.greeter).toBe(greeter)],
      [MissingMapper, (o: MissingMapper) => expect(o.greeter).toBe(greeter)],
    ];
    expect(expectations.map(([cls]) => cls)).toEqual([...RESOURCES, ...PROVIDERS]);
    for (const [cls, check] of expectations) check(c.resolve(cls) as never);
  });
});

describe.each(TRANSPORTS)('a user-supplied container (%s)', (transport) => {
  let audit: Audit;
  const send = serveForSuite(transport, () => {
    const u = userContainer();
    audit = u.audit;
    return new Application({ container: u.c, resources: RESOURCES, providers: PROVIDERS, logger: () => undefined });
  });

  it('resources receive the registered singletons', async () => {
    const before = audit.seen.length;
    const r = await send('/hello/ada');
    expect(r.json()).toEqual({ text: 'Hello, ada', seen: before + 1 });
    expect(audit.seen.at(-1)).toBe('/hello/ada'); // the filter got the very same Audit instance
  });

  it('filters, writer interceptors and mappers receive them too', async () => {
    const r = await send('/hello/bob');
    expect(r.headers['x-greeting']).toBe('Hello');
    expect(r.headers['x-stamp']).toBe('Hello, writer');
    const m = await send('/hello/nobody');
    expect([m.status, m.json()]).toEqual([404, { text: 'Hello, no nobody' }]);
  });

  it('a request-scoped resource is resolved per request, still with the singleton dependencies', async () => {
    const before = PerRequestResource.instances;
    for (let i = 0; i < 3; i++) expect((await send('/per-request')).json()).toEqual({ text: 'Hello, again' });
    expect(PerRequestResource.instances - before).toBe(3);
  });
});

describe('the default container', () => {
  it('is a child of the root container: root registrations are visible, the app does not write to the root', async () => {
    rootContainer.registerInstance(CONFIG, { greeting: 'Hi' });
    try {
      const app = new Application({ resources: [PerRequestResource] });
      expect((await app.inject('/per-request')).json()).toEqual({ text: 'Hi, again' });
      expect(rootContainer.isRegistered(Greeter)).toBe(false);
    } finally {
      rootContainer.clearInstances();
      rootContainer.reset();
    }
  });
});

/** Needs a constructor argument tsyringe cannot build (no `@injectable()` on the class). */
class Unbuildable {
  constructor(readonly greeter: Greeter) {}
}
@RequestScoped()
@Path('/unbuildable')
class UnbuildableResource {
  constructor(readonly dep: Unbuildable) {}
  @GET() get(): string {
    return 'never';
  }
}

@Path('/unbuildable-singleton')
class UnbuildableSingleton {
  constructor(readonly dep: Unbuildable) {}
  @GET() get(): string {
    return 'never';
  }
}

describe('a per-request resource that cannot be resolved (README, "Dependency injection")', () => {
  it('build() succeeds; each request answers 500 and the cause goes to the logger', async () => {
    const logged: unknown[] = [];
    const app = new Application({
      container: rootContainer.createChildContainer(),
      resources: [UnbuildableResource],
      logger: (e) => logged.push(e),
    });
    expect(() => app.build()).not.toThrow();
    for (let i = 1; i <= 2; i++) {
      const r = await app.inject('/unbuildable');
      expect(r.status).toBe(500);
      expect(r.json()).toEqual({ status: 500, error: 'Internal Server Error', code: 'HTTP_500' });
      expect(logged).toHaveLength(i);
      expect(String((logged[i - 1] as Error).message)).toMatch(
        /^UnbuildableResource \(registered as a per-request resource\) could not be built by the container: .*Likely fixes: decorate it with @injectable\(\)/,
      );
    }
  });

  it('the same dependency in a singleton resource fails at build()', () => {
    const app = new Application({ container: rootContainer.createChildContainer(), resources: [UnbuildableSingleton] });
    expect(() => app.build()).toThrow(/\[PIPELINE_DI_FAILED\] UnbuildableSingleton \(registered as a resource\) could not be built/);
  });
});
