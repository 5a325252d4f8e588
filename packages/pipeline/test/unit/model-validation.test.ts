/**
 * build() refuses every misconfiguration a newcomer makes, all at once, each with a stable code and
 * a message naming the class, the member and the fix (Jersey's ModelValidationException); the
 * rest are warnings, reported once, fatal with `strict: true`. Every code is in the table of docs/errors.md.
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { injectable } from 'tsyringe';
import { describe, expect, it } from 'vitest';
import {
  Application,
  BeanParam,
  Consumes,
  GET,
  NameBinding,
  Path,
  PathParam,
  POST,
  Produces,
  QueryParam,
  type ContainerRequestContext,
  type ModelProblem,
} from '../../src/index.js';
import { NoMetadataResource } from '../fixtures/no-metadata/resources.js';
import { problemsOf } from '../helpers/model-problems.js';

const quiet = (): void => undefined;

@Path('/ok')
class Ok {
  @GET() get(): string {
    return 'ok';
  }
}

describe('build() refuses', () => {
  it('a resource method compiled without decorator metadata, naming the setting', () => {
    expect(Reflect.getMetadata('design:paramtypes', NoMetadataResource.prototype, 'get')).toBeUndefined(); // really without
    const problems = problemsOf(new Application({ resources: [NoMetadataResource], logger: quiet }));
    expect(problems).toHaveLength(2);
    for (const [code, message] of problems) {
      expect(code).toBe('PIPELINE_NO_DESIGN_TYPES');
      expect(message).toMatch(/NoMetadataResource\.(get|create) has parameters but no decorator metadata/);
      expect(message).toContain('"emitDecoratorMetadata": true');
    }
  });

  it('two methods answering the same method, path and media types, in one class or in two', () => {
    @Path('/a')
    class One {
      @GET('{id}') first(@PathParam('id') id: string): string {
        return id;
      }
      @GET('{key}') second(@PathParam('key') key: string): string {
        return key;
      }
    }
    @Path('/a')
    class Two {
      @GET('{x}') third(@PathParam('x') x: string): string {
        return x;
      }
    }
    const problems = problemsOf(new Application({ resources: [One, Two], logger: quiet }));
    expect(problems.map(([c]) => c)).toEqual(['PIPELINE_AMBIGUOUS_ROUTE', 'PIPELINE_AMBIGUOUS_ROUTE', 'PIPELINE_AMBIGUOUS_ROUTE']);
    expect(problems[0]![1]).toMatch(/One\.first and One\.second both answer GET \/a\/\{key\}/);
    expect(problems.map(([, m]) => m).join('\n')).toContain('Two.third');
  });

  it('but not methods told apart by @Consumes or @Produces', () => {
    @Path('/b')
    class Negotiated {
      @POST() @Consumes('application/json') json(): string {
        return 'j';
      }
      @POST() @Consumes('text/plain') text(): string {
        return 't';
      }
      @GET() @Produces('application/json') asJson(): string {
        return 'j';
      }
      @GET() @Produces('text/plain') asText(): string {
        return 't';
      }
    }
    expect(() => new Application({ resources: [Negotiated], logger: quiet, onWarning: quiet }).build()).not.toThrow();
  });

  it('a resources entry without @Path or resource method, and an instance where a class is expected', () => {
    class Plain {
      hello(): string {
        return 'hi';
      }
    }
    const problems = problemsOf(new Application({ resources: [Plain, new Ok() as unknown as typeof Ok], logger: quiet }));
    expect(problems).toEqual([
      [
        'PIPELINE_NOT_A_RESOURCE',
        expect.stringMatching(/^Plain is listed in resources but has no @Path and no resource method: add @Path/),
      ],
      ['PIPELINE_RESOURCE_NOT_A_CLASS', expect.stringMatching(/an instance of Ok was given where a class is expected: pass Ok itself/)],
    ]);
  });

  it('a provider that implements no contract (a misspelt filterRequest), listing the recognised methods', () => {
    class ApiKeyCheck {
      filter(ctx: ContainerRequestContext): void {
        if (ctx.getHeader('x-api-key') !== 'secret') throw new Error('no');
      }
    }
    const problems = problemsOf(new Application({ resources: [Ok], providers: [ApiKeyCheck], logger: quiet }));
    expect(problems).toHaveLength(1);
    expect(problems[0]![0]).toBe('PIPELINE_NOT_A_PROVIDER');
    expect(problems[0]![1]).toMatch(/^ApiKeyCheck is registered as a provider but implements no provider contract \(it has filter\)/);
    expect(problems[0]![1]).toContain('filterRequest (ContainerRequestFilter)');
  });

  it('a @PathParam naming no variable of the template', () => {
    @Path('/c')
    class Typo {
      @GET('{userId}') get(@PathParam('userid') id: string): string {
        return id;
      }
    }
    expect(problemsOf(new Application({ resources: [Typo], logger: quiet }))).toEqual([
      [
        'PIPELINE_UNKNOWN_PATH_PARAM',
        expect.stringMatching(/Typo\.get: @PathParam\('userid'\) names no variable of its path '\/c\/\{userId\}' \(variables: userId\)/),
      ],
    ]);
  });

  it('a class the container cannot build, saying which, from which registration, and the likely fixes', () => {
    interface Clock {
      now(): number;
    }
    @injectable()
    @Path('/d')
    class NeedsClock {
      constructor(readonly clock: Clock) {}
      @GET() get(): number {
        return this.clock.now();
      }
    }
    const problems = problemsOf(new Application({ resources: [NeedsClock], logger: quiet }));
    expect(problems).toHaveLength(1);
    expect(problems[0]![0]).toBe('PIPELINE_DI_FAILED');
    expect(problems[0]![1]).toMatch(
      /^NeedsClock \(registered as a resource\) could not be built by the container: Cannot inject the dependency "clock" .*TypeInfo not known/,
    );
    expect(problems[0]![1]).toContain('@injectable()');
    expect(problems[0]![1]).toContain('@inject(TOKEN)');
  });

  it('reports every problem at once, not the first only', () => {
    class Nothing {}
    @Path('/e')
    class Typo {
      @GET('{id}') get(@PathParam('ID') id: string): string {
        return id;
      }
    }
    const codes = problemsOf(new Application({ resources: [Nothing, Typo], providers: [Nothing], logger: quiet })).map(([c]) => c);
    expect(codes.sort()).toEqual(['PIPELINE_NOT_A_PROVIDER', 'PIPELINE_NOT_A_RESOURCE', 'PIPELINE_UNKNOWN_PATH_PARAM']);
  });
});

describe('build() refuses a @BeanParam it cannot fill', () => {
  it('a class without decorated fields, an interface type, a class containing itself, a constructor taking arguments', () => {
    class Empty {
      page = 1;
    }
    interface Shape {
      page: number;
    }
    class Loop {
      @QueryParam('q') q?: string;
      @BeanParam() self!: Loop;
    }
    class NeedsArgs {
      @QueryParam('q') q?: string;
      constructor(readonly base: string) {}
    }
    @Path('/beans')
    class Beans {
      @GET('empty') empty(@BeanParam() b: Empty): string {
        return typeof b;
      }
      @GET('shape') shape(@BeanParam() b: Shape): string {
        return typeof b;
      }
      @GET('loop') loop(@BeanParam() b: Loop): string {
        return typeof b;
      }
      @GET('args') args(@BeanParam() b: NeedsArgs): string {
        return typeof b;
      }
    }
    const problems = problemsOf(new Application({ resources: [Beans], logger: quiet }));
    expect(problems.map(([c]) => c)).toEqual([
      'PIPELINE_BEAN_PARAM_INVALID',
      'PIPELINE_BEAN_PARAM_INVALID',
      'PIPELINE_BEAN_PARAM_INVALID',
      'PIPELINE_BEAN_PARAM_INVALID',
    ]);
    const [empty, shape, loop, args] = problems.map(([, m]) => m);
    expect(empty).toMatch(/^Empty, the @BeanParam of Beans\.empty \(argument 0\), has no field with @QueryParam/);
    expect(shape).toMatch(/^Beans\.shape \(argument 0\) is declared as Object, not a @BeanParam class: .*@BeanParam\(Type\)/);
    expect(loop).toMatch(/nests Loop inside itself \(Loop → Loop\)/);
    expect(args).toMatch(
      /^NeedsArgs, the @BeanParam of Beans\.args \(argument 0\), has a constructor taking 1 parameter\(s\).*new NeedsArgs\(\)/,
    );
  });

  it('a field naming no path variable, and a field without a type (no emitted metadata)', () => {
    class ByPath {
      @PathParam('userid') id!: string;
    }
    class Untyped {
      q?: string;
    }
    // As tsx or esbuild compile it: the decorator runs, but no `design:type` is recorded.
    QueryParam('q')(Untyped.prototype, 'q');
    @Path('/users/{userId}')
    class Users {
      @GET() get(@BeanParam() p: ByPath): string {
        return p.id;
      }
      @GET('search') search(@BeanParam() u: Untyped): string {
        return String(u.q);
      }
    }
    expect(problemsOf(new Application({ resources: [Users], logger: quiet }))).toEqual([
      [
        'PIPELINE_UNKNOWN_PATH_PARAM',
        expect.stringMatching(
          /^ByPath\.id \(@BeanParam of Users\.get\): @PathParam\('userid'\) names no variable of its path '\/users\/\{userId\}' \(variables: userId\)/,
        ),
      ],
      [
        'PIPELINE_BEAN_FIELD_UNTYPED',
        expect.stringMatching(/^Untyped\.q \(@BeanParam of Users\.search\) has no declared type.*emitDecoratorMetadata/),
      ],
    ]);
  });
});

describe('build() warns, once, and strict makes it fatal', () => {
  const Audited = NameBinding('Audited');
  const Forgotten = NameBinding('Forgotten');

  @Path('/w')
  class Warned {
    @GET() withBody(body: { x: number }): string {
      return String(body?.x);
    }
    @Forgotten() @POST() post(): string {
      return 'p';
    }
  }
  @Audited()
  class AuditFilter {
    filterRequest(): void {}
  }

  it('an entity on GET, a provider bound to a binding no resource carries, a resource binding without provider', () => {
    const warnings: ModelProblem[] = [];
    new Application({ resources: [Warned], providers: [AuditFilter], logger: quiet, onWarning: (w) => warnings.push(w) }).build();
    expect(warnings.map((w) => w.code).sort()).toEqual([
      'PIPELINE_BINDING_UNUSED',
      'PIPELINE_BINDING_WITHOUT_PROVIDER',
      'PIPELINE_ENTITY_ON_GET',
    ]);
    expect(warnings.find((w) => w.code === 'PIPELINE_ENTITY_ON_GET')!.message).toMatch(/^Warned\.withBody \(GET\) has an entity parameter/);
    expect(warnings.find((w) => w.code === 'PIPELINE_BINDING_UNUSED')!.message).toMatch(
      /^AuditFilter is bound to @Audited, which no resource/,
    );
    expect(warnings.find((w) => w.code === 'PIPELINE_BINDING_WITHOUT_PROVIDER')!.message).toMatch(/^@Forgotten is on a resource/);
  });

  it('strict: true turns the warnings into errors', () => {
    const codes = problemsOf(new Application({ resources: [Warned], providers: [AuditFilter], logger: quiet, strict: true })).map(
      ([c]) => c,
    );
    expect(codes.sort()).toEqual(['PIPELINE_BINDING_UNUSED', 'PIPELINE_BINDING_WITHOUT_PROVIDER', 'PIPELINE_ENTITY_ON_GET']);
  });
});

describe('the docs document every code', () => {
  it('lists each code of ModelProblemCode in the start-up table of docs/errors.md', () => {
    const readme = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    const source = readFileSync(new URL('../../src/core/model/model-problems.ts', import.meta.url), 'utf8');
    const codes = [...source.matchAll(/\| '(PIPELINE_[A-Z_]+)'/g)].map((m) => m[1]!);
    expect(codes.length).toBeGreaterThanOrEqual(11);
    for (const code of codes) expect(readme, code).toMatch(new RegExp(`\\| \`${code}\` \\|`));
  });
});
