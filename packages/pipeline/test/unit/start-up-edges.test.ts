/**
 * Misconfigurations that built fine and failed only on requests (each case below answered every
 * request with the same error before build() refused it): a media type a method declares that no
 * registered reader or writer handles for its declared types. Each refusal names the class, the
 * method and the fix; the same application without the mistake serves the route.
 */
import 'reflect-metadata';
import { container as rootContainer, inject, injectable } from 'tsyringe';
import { describe, expect, it } from 'vitest';
import {
  Application,
  Consumes,
  DenyAll,
  Entity,
  FormParam,
  GET,
  HeaderParam,
  QueryParam,
  BeanParam,
  RateLimit,
  ModelValidationError,
  OpenApiFeature,
  Path,
  POST,
  Produces,
  PermitAll,
  RateLimitFeature,
  Response,
  RolesAllowed,
  RolesAllowedFeature,
  type ContainerRequestContext,
  type ContainerRequestFilter,
  type Constructor,
  type MessageBodyWriter,
  type ModelProblemCode,
  type TypeToken,
} from '../../src/index.js';
import type { MediaType } from '../../src/core/http/media-type.js';

class User {
  id = 1;
}

const quiet = (): void => undefined;

/** The problems build() threw, as [code, message]. */
function problemsOf(resources: Constructor[], providers: object[] = []): Array<[ModelProblemCode, string]> {
  try {
    new Application({ resources, providers, logger: quiet }).build();
  } catch (e) {
    expect(e).toBeInstanceOf(ModelValidationError);
    return (e as ModelValidationError).problems.map((p) => [p.code, p.message]);
  }
  throw new Error('build() accepted the application');
}

/** Writes a User as XML (enough for the test: one element). */
class UserXmlWriter implements MessageBodyWriter<User> {
  readonly produces = ['application/xml'];
  isWriteable(type: TypeToken, mediaType: MediaType): boolean {
    return type === User && mediaType.essence === 'application/xml';
  }
  writeTo(user: User): string {
    return `<user id="${user.id}"/>`;
  }
}

describe('a declared media type nothing writes (was a 500 on every request, after the method ran)', () => {
  @Path('/users')
  class XmlUsers {
    calls = 0;
    @GET() @Produces('application/xml') get(): User {
      this.calls++;
      return new User();
    }
  }

  it('build() refuses @Produces(application/xml) returning a class no writer writes as XML: PIPELINE_NO_WRITER', () => {
    expect(problemsOf([XmlUsers])).toEqual([
      [
        'PIPELINE_NO_WRITER',
        'XmlUsers.get produces application/xml and returns User, which no registered MessageBodyWriter writes as application/xml, ' +
          'so every such response would be a 500 after the method ran: register a writer for it, remove application/xml from @Produces, ' +
          'or declare the return type unknown if a filter or interceptor converts the entity',
      ],
    ]);
  });

  it('one problem per media type nothing writes, none for the one a writer writes', () => {
    @Path('/u')
    class Several {
      @GET() @Produces('application/json', 'text/plain', 'application/octet-stream') get(): User {
        return new User();
      }
    }
    expect(problemsOf([Several]).map(([c, m]) => [c, m.slice(0, m.indexOf(' and returns'))])).toEqual([
      ['PIPELINE_NO_WRITER', 'Several.get produces text/plain'],
      ['PIPELINE_NO_WRITER', 'Several.get produces application/octet-stream'],
    ]);
  });

  it('with the writer registered it builds and answers; unknown, Response and wildcard @Produces are not checked', async () => {
    const app = new Application({ resources: [XmlUsers], providers: [new UserXmlWriter()], logger: quiet });
    const res = await app.inject({ url: '/users', headers: { accept: 'application/xml' } });
    expect([res.status, res.text()]).toEqual([200, '<user id="1"/>']);

    @Path('/free')
    class Free {
      @GET('unknown') @Produces('application/xml') a(): unknown {
        return '<x/>';
      }
      @GET('response') @Produces('application/xml') b(): Response {
        return Response.ok('<x/>').build();
      }
      @GET('any') c(): User {
        return new User();
      }
    }
    expect(() => new Application({ resources: [Free], logger: quiet }).build()).not.toThrow();
  });
});

describe('a declared media type nothing reads (was a 415 to every correct client)', () => {
  @Path('/users')
  class XmlIn {
    @POST() @Consumes('application/xml') create(@Entity() user: User): string {
      return String(user.id);
    }
  }

  it('build() refuses @Consumes(application/xml) with an entity no reader reads as XML: PIPELINE_NO_READER', () => {
    expect(problemsOf([XmlIn])).toEqual([
      [
        'PIPELINE_NO_READER',
        'XmlIn.create consumes application/xml, but no registered MessageBodyReader reads its entity (argument 0, User) as application/xml, ' +
          'so every such request would be answered 415: register a reader for it, or remove application/xml from @Consumes',
      ],
    ]);
  });

  it('@FormParam under a @Consumes no form reader reads is refused too; the form type and a JSON entity build', () => {
    @Path('/f')
    class Forms {
      @POST('xml') @Consumes('application/xml') xml(@FormParam('a') a: string): string {
        return a;
      }
      @POST('form') @Consumes('application/x-www-form-urlencoded') form(@FormParam('a') a: string): string {
        return a;
      }
      @POST('json') @Consumes('application/json') json(@Entity() user: User): string {
        return String(user.id);
      }
    }
    expect(problemsOf([Forms])).toEqual([
      ['PIPELINE_NO_READER', expect.stringMatching(/^Forms\.xml consumes application\/xml, .* its @FormParam values/)],
    ]);
  });
});

describe('@RolesAllowed / @DenyAll with nothing enforcing them (every caller was served the method)', () => {
  @Path('/admin')
  class Admin {
    @GET() @RolesAllowed('ADMIN') secret(): string {
      return 'secret';
    }
  }

  @Path('/closed')
  @DenyAll()
  class Closed {
    @GET() a(): string {
      return 'a';
    }
    @GET('b') b(): string {
      return 'b';
    }
  }

  it('build() refuses them without RolesAllowedFeature, also when another DynamicFeature is registered', () => {
    expect(problemsOf([Admin, Closed])).toEqual([
      [
        'PIPELINE_FEATURE_NOT_REGISTERED',
        '@RolesAllowed is on Admin.secret, but no registered provider acts on it (RolesAllowedFeature), so every caller would reach the method ' +
          'unchecked: register new RolesAllowedFeature() in providers (after the authentication filter that sets the security context)',
      ],
      [
        'PIPELINE_FEATURE_NOT_REGISTERED',
        expect.stringMatching(/^@DenyAll is on Closed\.a, Closed\.b, but .* reach these methods unchecked/),
      ],
    ]);
    expect(problemsOf([Admin], [new RateLimitFeature({ key: () => 'k' })]).map(([c]) => c)).toEqual(['PIPELINE_FEATURE_NOT_REGISTERED']);
  });

  it('with RolesAllowedFeature the method is guarded (401 without a caller, 403 for @DenyAll)', async () => {
    const app = new Application({ resources: [Admin, Closed], providers: [new RolesAllowedFeature()], logger: quiet });
    expect((await app.inject('/admin')).status).toBe(401);
    expect((await app.inject('/closed/b')).status).toBe(403);
  });

  it('a filter of your own bound to @RolesAllowed counts; @PermitAll alone needs nothing', async () => {
    @RolesAllowed()
    class OwnRoles implements ContainerRequestFilter {
      filterRequest(ctx: ContainerRequestContext): void {
        ctx.abortWith(Response.status(418).build());
      }
    }
    const app = new Application({ resources: [Admin], providers: [OwnRoles], logger: quiet });
    expect((await app.inject('/admin')).status).toBe(418);

    @Path('/open')
    class Open {
      @GET() @PermitAll() a(): string {
        return 'a';
      }
    }
    expect(() => new Application({ resources: [Open], logger: quiet, onWarning: quiet }).build()).not.toThrow();
  });
});

describe('a parameter type nothing converts from text', () => {
  class Money {
    constructor(readonly cents: number) {}
  }
  class Filter {
    @QueryParam('min') min?: Money;
  }

  it('is one problem per parameter, collected with the others, naming the class, the method, the argument and the fix', () => {
    @Path('/pay')
    class Pay {
      @GET() one(@QueryParam('amount') amount: Money, @HeaderParam('x-tags') tags: Map<string, string>): string {
        return `${amount.cents} ${tags.size}`;
      }
      @GET('bean') two(@BeanParam() f: Filter): string {
        return String(f.min?.cents);
      }
    }
    expect(problemsOf([Pay])).toEqual([
      [
        'PIPELINE_PARAM_UNCONVERTIBLE',
        "Pay.one, argument 0: query parameter 'amount' is a Money, which nothing converts from text: give Money a static fromString(text), " +
          'register a ParamConverterProvider for it, or declare it as a string, number, boolean, bigint or Date',
      ],
      ['PIPELINE_PARAM_UNCONVERTIBLE', expect.stringMatching(/^Pay\.one, argument 1: header parameter 'x-tags' is a Map, /)],
      ['PIPELINE_PARAM_UNCONVERTIBLE', expect.stringMatching(/^Filter\.min.*: query parameter 'min' is a Money, /)],
    ]);
  });
});

describe('a per-request resource whose dependency nothing registered (was a 500 on every request)', () => {
  interface Repo {
    all(): string[];
  }
  @injectable()
  class Service {
    constructor(@inject('Repo') readonly repo: Repo) {}
  }
  @injectable()
  @Path('/direct')
  class Direct {
    constructor(@inject('Repo') private readonly repo: Repo) {}
    @GET() @Produces('application/json') list(): string[] {
      return this.repo.all();
    }
  }
  @injectable()
  @Path('/nested')
  class Nested {
    constructor(private readonly service: Service) {}
    @GET() @Produces('application/json') list(): string[] {
      return this.service.repo.all();
    }
  }

  const app = (register: boolean): Application => {
    const container = rootContainer.createChildContainer();
    if (register) container.register('Repo', { useValue: { all: () => ['a'] } });
    return new Application({ resources: [Direct, Nested], resourceScope: 'request', container, logger: quiet });
  };

  it('build() names the token, the class and the argument, without building the resource', () => {
    let problems: Array<[string, string]> = [];
    try {
      app(false).build();
    } catch (e) {
      problems = (e as ModelValidationError).problems.map((p) => [p.code, p.message]);
    }
    expect(problems).toEqual([
      [
        'PIPELINE_DI_FAILED',
        expect.stringMatching(
          /^Direct \(registered as a per-request resource\) could not be built by the container: the token Repo \(constructor argument 0 of Direct\) is not registered/,
        ),
      ],
      [
        'PIPELINE_DI_FAILED',
        expect.stringMatching(
          /^Nested \(registered as a per-request resource\) .*the token Repo \(constructor argument 0 of Service\) is not registered/,
        ),
      ],
    ]);
  });

  it('with the token registered, each request gets its instance', async () => {
    const a = app(true);
    expect((await a.inject('/direct')).text()).toBe('["a"]');
    expect((await a.inject('/nested')).text()).toBe('["a"]');
  });
});

describe('a sub-resource locator declared to return a primitive (was a 500 on every request through it)', () => {
  it('build() refuses it, naming the class, the method and the fix', () => {
    @Path('/l')
    class Loc {
      @Path('sub') sub(): string {
        return 'x';
      }
    }
    expect(problemsOf([Loc])).toEqual([
      [
        'PIPELINE_NOT_A_SUB_RESOURCE',
        'Loc.sub is a sub-resource locator (@Path without an HTTP method) but returns string: a locator returns the object (or class) ' +
          'whose methods handle the request; add @GET() (or another HTTP method) if it answers itself',
      ],
    ]);
  });
});

describe('an OpenAPI docs page without the document it shows (was a 404 on every request to it)', () => {
  @Path('/ping')
  class Ping {
    @GET() ping(): string {
      return 'pong';
    }
  }
  const info = { title: 'Ping', version: '1' };

  it('an explicit docsPath with path: false is refused when the feature is made, naming both options', () => {
    expect(() => new OpenApiFeature({ info, path: false, docsPath: '/ui' })).toThrow(
      'OpenApiFeature: docsPath /ui shows the document served at path, but path is false: serve the document (leave path out or give one), or set docsPath: false',
    );
  });

  it('with path: false the default docs path is not served at all (404 PIPE_NO_MATCH, as any unknown path)', async () => {
    const app = new Application({ resources: [Ping], providers: [new OpenApiFeature({ info, path: false })], logger: quiet });
    const res = await app.inject('/docs');
    expect([res.status, (res.json() as { code: string }).code]).toEqual([404, 'PIPE_NO_MATCH']);
  });
});

describe('@RateLimit without RateLimitFeature (limits nothing)', () => {
  it('is a warning naming the method and the fix, also when another DynamicFeature is registered', () => {
    @Path('/rl')
    class Limited {
      @GET() @RateLimit({ limit: 1, windowMs: 1000 }) get(): string {
        return 'x';
      }
    }
    for (const providers of [[], [new RolesAllowedFeature()]]) {
      const warnings: Array<{ code: string; message: string }> = [];
      new Application({ resources: [Limited], providers, logger: quiet, onWarning: (w) => warnings.push(w) }).build();
      expect(warnings).toEqual([
        {
          code: 'PIPELINE_BINDING_WITHOUT_PROVIDER',
          severity: 'warning',
          message:
            '@RateLimit is on Limited.get, but no registered provider acts on it (RateLimitFeature): it has no effect on the method; ' +
            'register new RateLimitFeature({ key: RateLimitKeys.principal }) in providers to enforce it, or remove the decorator',
        },
      ]);
    }
  });
});

describe('a path template that does not compile', () => {
  it('is one problem per method, naming the class and the method, reported with the others', () => {
    @Path('/a')
    class BadRegex {
      @GET('{id: [}') get(): string {
        return 'x';
      }
      @GET('fine') fine(): string {
        return 'ok';
      }
    }
    @Path('/b/{x')
    class BadBrace {
      @GET() get(): string {
        return 'x';
      }
    }
    expect(problemsOf([BadRegex, BadBrace])).toEqual([
      [
        'PIPELINE_INVALID_PATH',
        expect.stringMatching(/^BadRegex\.get: Invalid path template "\/a\/\{id: \[\}": Invalid regular expression.*; fix the @Path/),
      ],
      ['PIPELINE_INVALID_PATH', expect.stringMatching(/^BadBrace\.get: Invalid path template "\/b\/\{x": unbalanced '\{'; fix the @Path/)],
    ]);
  });
});
