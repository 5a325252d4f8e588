/**
 * Every documented path works or is refused by build() (issue 22): `@Context()` types nothing can
 * inject (a class imported with `import type` emits `Object`), multipart methods without
 * `MultipartFeature`, `text/event-stream` methods nothing can write, sink methods that return a
 * value, and root resources without `@Path` or with nothing to serve. Each refusal names the
 * class and the member; the paths that were broken before now work end to end.
 */
import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import {
  Application,
  BeanParam,
  Consumes,
  Context,
  ContainerRequestContext,
  Entity,
  FormParam,
  GET,
  Path,
  POST,
  Produces,
  QueryParam,
  Response,
  Sse,
  SseEventSink,
  UriInfo,
  type Feature,
  type FeatureContext,
  type MessageBodyWriter,
  type ModelProblem,
} from '../../src/index.js';
import { EntityPart, MultipartBody, MultipartFeature, MultipartReader, MultipartWriter } from '../../src/features/multipart/index.js';
import type { UriInfo as TypeOnlyUriInfo } from '../../src/index.js';
import { fieldPart, filePart, multipart, BOUNDARY } from '../helpers/multipart-bodies.js';
import { sseConnect } from '../helpers/sse-client.js';
import { problemsOf } from '../helpers/model-problems.js';

const quiet = (): void => undefined;

/** Builds `app` (it must pass) and answers the warnings it reported. */
function warningsOf(options: ConstructorParameters<typeof Application>[0]): ModelProblem[] {
  const warnings: ModelProblem[] = [];
  new Application({ logger: quiet, ...options, onWarning: (w) => warnings.push(w) }).build();
  return warnings;
}

describe('@Context() types', () => {
  it('refuses a type imported with `import type` (Object in the metadata), naming class, method, argument and the fix', () => {
    @Path('/where')
    class Where {
      @GET() get(@QueryParam('q') q: string, @Context() uri: TypeOnlyUriInfo): string {
        return `${q} ${uri.baseUri}`;
      }
    }
    expect(Reflect.getMetadata('design:paramtypes', Where.prototype, 'get')).toEqual([String, Object]); // as tsc emits it
    const problems = problemsOf(new Application({ resources: [Where], logger: quiet }));
    expect(problems).toHaveLength(1);
    const [code, message] = problems[0]!;
    expect(code).toBe('PIPELINE_CONTEXT_TYPE_UNKNOWN');
    expect(message).toContain('Where.get, argument 1: @Context() has type Object');
    expect(message).toContain('import it as a value, not with `import type`');
    expect(message).toMatch(
      /Injectable types: ContainerRequestContext, UriInfo, HttpHeaders, SecurityContext, ResourceInfo, .*SseEventSink/,
    );
  });

  it('refuses a class that is not injectable, on a method, a @BeanParam field and a locator', () => {
    class Clock {}
    class Query {
      @QueryParam('q') q!: string;
      @Context() clock!: Clock;
    }
    class Item {
      @GET() get(): string {
        return 'item';
      }
    }
    @Path('/c')
    class Uses {
      @GET() get(@Context() clock: Clock): string {
        return clock.constructor.name;
      }
      @GET('bean') bean(@BeanParam() query: Query): string {
        return query.q;
      }
      @Path('item') item(@Context() clock: Clock): Item {
        void clock;
        return new Item();
      }
    }
    const problems = problemsOf(new Application({ resources: [Uses], logger: quiet }));
    expect(problems.map(([c]) => c)).toEqual([
      'PIPELINE_CONTEXT_TYPE_UNKNOWN',
      'PIPELINE_CONTEXT_TYPE_UNKNOWN',
      'PIPELINE_CONTEXT_TYPE_UNKNOWN',
    ]);
    const messages = problems.map(([, m]) => m).join('\n');
    expect(messages).toContain(
      'Uses.get, argument 0: @Context() has type Clock, which the pipeline cannot inject: use one of the injectable types',
    );
    expect(messages).toContain('Query.clock (@BeanParam of Uses.bean): @Context() has type Clock');
    expect(messages).toContain('Uses.item, argument 0: @Context() has type Clock');
  });

  it('keeps every injectable type, an explicit type over Object, and fields of a @BeanParam', async () => {
    class Info {
      @QueryParam('q') q!: string;
      @Context() uri!: UriInfo;
    }
    @Path('/ok')
    class Ok {
      @GET() get(
        @Context() ctx: ContainerRequestContext,
        @Context(UriInfo) uri: TypeOnlyUriInfo,
        @Context() sse: Sse,
        @Context() signal: AbortSignal,
        @BeanParam() info: Info,
      ): object {
        return {
          path: ctx.path,
          base: uri.baseUri,
          sse: typeof sse.newEventBuilder,
          aborted: signal.aborted,
          q: info.q,
          bean: info.uri.path,
        };
      }
    }
    const app = new Application({ resources: [Ok], logger: quiet });
    const res = await app.inject({ url: '/ok?q=1', headers: { host: 'example.test' } });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ path: '/ok', base: 'http://example.test', sse: 'function', aborted: false, q: '1', bean: '/ok' });
  });
});

describe('server-sent events', () => {
  it('refuses a sink imported with `import type` (it used to answer 500: sse.newEventBuilder is not a function)', () => {
    // What `import type { SseEventSink }` leaves in the metadata: Object.
    @Path('/feed')
    class Feed {
      @GET() @Produces('text/event-stream') get(@Context(Object) sink: { close(): void }): void {
        sink.close();
      }
    }
    const problems = problemsOf(new Application({ resources: [Feed], logger: quiet }));
    expect(problems.map(([c]) => c)).toEqual(['PIPELINE_CONTEXT_TYPE_UNKNOWN']);
    expect(problems[0]![1]).toMatch(/^Feed\.get, argument 0: @Context\(\) has type Object.*import it as a value/);
  });

  it('refuses a sink without @Produces(text/event-stream) with its code', () => {
    @Path('/bad')
    class Bad {
      @GET() get(@Context() sink: SseEventSink): void {
        sink.close();
      }
    }
    expect(problemsOf(new Application({ resources: [Bad], logger: quiet }))).toEqual([
      [
        'PIPELINE_SINK_WITHOUT_EVENT_STREAM',
        "Bad.get takes an SseEventSink but does not produce text/event-stream: add @Produces('text/event-stream') to the method (Jakarta REST 3.1 §9.3)",
      ],
    ]);
  });

  it('refuses a method without a sink whose declared type no writer writes as text/event-stream', () => {
    class Price {
      constructor(readonly value = 1) {}
    }
    @Path('/prices')
    class Prices {
      @GET() @Produces('text/event-stream') latest(): Price {
        return new Price();
      }
    }
    const problems = problemsOf(new Application({ resources: [Prices], logger: quiet }));
    expect(problems).toHaveLength(1);
    expect(problems[0]![0]).toBe('PIPELINE_NO_EVENT_STREAM_WRITER');
    expect(problems[0]![1]).toMatch(/^Prices\.latest produces text\/event-stream and returns Price, which no registered writer writes/);
    expect(problems[0]![1]).toContain('take @Context() sink: SseEventSink');
  });

  it('accepts what a writer streams, a registered writer for the type, and the types TypeScript cannot name', async () => {
    class Tick {}
    const tickWriter: MessageBodyWriter<Tick> = {
      isWriteable: (type, mediaType) => type === Tick && mediaType.essence === 'text/event-stream',
      writeTo: () => 'data: tick\n\n',
    };
    @Path('/s')
    class Streams {
      @GET('text') @Produces('text/event-stream') text(): string {
        return 'data: one\n\n';
      }
      @GET('tick') @Produces('text/event-stream') tick(): Tick {
        return new Tick();
      }
      @GET('async') @Produces('text/event-stream') async later(): Promise<string> {
        return 'data: later\n\n';
      }
      @GET('union') @Produces('text/event-stream') union(): string | Tick {
        return 'data: union\n\n';
      }
      @GET('response') @Produces('text/event-stream') response(): Response {
        return Response.status(204).build();
      }
    }
    const app = new Application({ resources: [Streams], providers: [tickWriter], logger: quiet });
    expect((await app.inject({ url: '/s/text' })).text()).toBe('data: one\n\n');
    expect((await app.inject({ url: '/s/tick' })).text()).toBe('data: tick\n\n');
    expect((await app.inject({ url: '/s/async' })).text()).toBe('data: later\n\n');
    expect((await app.inject({ url: '/s/response' })).status).toBe(204);
  });

  it('warns when a sink method declares a return value; void, Promise and Response are not warned about', () => {
    @Path('/w')
    class Warned {
      @GET() @Produces('text/event-stream') get(@Context() sink: SseEventSink): string {
        sink.close();
        return 'dropped';
      }
      @GET('v') @Produces('text/event-stream') v(@Context() sink: SseEventSink): void {
        sink.close();
      }
      @GET('p') @Produces('text/event-stream') p(@Context() sink: SseEventSink): Promise<void> {
        sink.close();
        return Promise.resolve();
      }
      @GET('r') @Produces('text/event-stream') r(@Context() sink: SseEventSink): Response {
        void sink;
        return Response.status(404).build();
      }
    }
    const warnings = warningsOf({ resources: [Warned] });
    expect(warnings.map((w) => [w.code, w.severity])).toEqual([['PIPELINE_SINK_RESULT_IGNORED', 'warning']]);
    expect(warnings[0]!.message).toMatch(
      /^Warned\.get takes a SseEventSink \(its stream is the response\) but declares a return value \(String\)/,
    );
  });

  it('streams from a sink imported as a value over a real socket', async () => {
    @Path('/live')
    class Live {
      @GET() @Produces('text/event-stream') async get(@Context() sink: SseEventSink, @Context() sse: Sse): Promise<void> {
        await sink.send(sse.newEventBuilder().id('7').name('hello').data('world').build());
        sink.close();
      }
    }
    const app = new Application({ resources: [Live], logger: quiet });
    const { port } = await app.listen(0, '127.0.0.1');
    try {
      const client = await sseConnect(port, '/live');
      const head = await client.head;
      expect(head.status).toBe(200);
      expect(head.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(await client.ended).toBe('end');
      expect(client.frames.map((f) => [f.id, f.event, f.data])).toEqual([['7', 'hello', 'world']]);
    } finally {
      await app.close(2000);
    }
  });
});

describe('multipart without MultipartFeature', () => {
  @Path('/up')
  class Uploads {
    @POST('stream') @Consumes('multipart/form-data') async stream(body: MultipartBody): Promise<string[]> {
      const names: string[] = [];
      for await (const part of body) {
        names.push(part.name);
        await part.skip();
      }
      return names;
    }
    @POST('file') file(@FormParam('title') title: string, @FormParam('file') file: EntityPart): string {
      return `${title}:${file.filename ?? ''}`;
    }
    @POST('fields') @Consumes('multipart/form-data') fields(@FormParam('title') title: string): string {
      return title;
    }
    @POST('urlencoded') urlencoded(@FormParam('title') title: string): string {
      return title;
    }
  }

  it('refuses a MultipartBody entity, an EntityPart form part and @FormParams under multipart @Consumes, naming the feature', () => {
    const problems = problemsOf(new Application({ resources: [Uploads], logger: quiet }));
    expect(problems.map(([c]) => c)).toEqual([
      'PIPELINE_FEATURE_NOT_REGISTERED',
      'PIPELINE_FEATURE_NOT_REGISTERED',
      'PIPELINE_FEATURE_NOT_REGISTERED',
    ]);
    const messages = problems.map(([, m]) => m);
    expect(messages[0]).toMatch(/^Uploads\.stream reads multipart\/form-data \(it takes a MultipartBody \(argument 0\)\)/);
    expect(messages[1]).toMatch(/^Uploads\.file reads multipart\/form-data \(its @FormParam\('file'\) is a form part\)/);
    expect(messages[2]).toMatch(/^Uploads\.fields reads multipart\/form-data \(its @FormParam values come from a @Consumes/);
    for (const m of messages) expect(m).toContain('would be answered 415: register new MultipartFeature()');
  });

  it('refuses a method that produces multipart without a writer for it, and accepts a MultipartWriter alone', () => {
    @Path('/down')
    class Downloads {
      @GET() @Produces('multipart/mixed') async parts(): Promise<EntityPart[]> {
        return [await Promise.resolve(EntityPart.of('a', 'text'))];
      }
    }
    const problems = problemsOf(new Application({ resources: [Downloads], logger: quiet }));
    expect(problems.map(([c]) => c)).toEqual(['PIPELINE_FEATURE_NOT_REGISTERED']);
    expect(problems[0]![1]).toMatch(
      /^Downloads\.parts produces multipart\/mixed, but no registered writer writes it.*register new MultipartFeature\(\)/,
    );
    expect(() => new Application({ resources: [Downloads], providers: [new MultipartWriter()], logger: quiet }).build()).not.toThrow();
  });

  it('accepts the feature as an instance, as a class, through another Feature, or a MultipartReader alone', () => {
    class Bundle implements Feature {
      setup(context: FeatureContext): void {
        context.register(MultipartFeature);
      }
    }
    for (const provider of [new MultipartFeature(), MultipartFeature, new Bundle(), new MultipartReader()]) {
      expect(() => new Application({ resources: [Uploads], providers: [provider], logger: quiet }).build()).not.toThrow();
    }
  });

  it('works end to end once registered (as a class), over a real socket and in-process', async () => {
    const app = new Application({ resources: [Uploads], providers: [MultipartFeature], logger: quiet });
    const body = multipart([fieldPart('title', 'T'), filePart('file', 'bytes', 'a.txt')]);
    const headers = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
    const local = await app.inject({ method: 'POST', url: '/up/file', headers, body });
    expect([local.status, local.text()]).toEqual([200, 'T:a.txt']);
    const { port } = await app.listen(0, '127.0.0.1');
    try {
      const res = await fetch(`http://127.0.0.1:${port}/up/stream`, { method: 'POST', headers, body, signal: AbortSignal.timeout(5000) });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(['title', 'file']);
    } finally {
      await app.close(2000);
    }
  });
});

describe('root resources', () => {
  it('refuses resource methods without a class @Path, with the fix', () => {
    class Pathless {
      @GET() get(): string {
        return 'x';
      }
      @POST() post(@Entity() body: string): string {
        return body;
      }
    }
    expect(problemsOf(new Application({ resources: [Pathless], logger: quiet }))).toEqual([
      [
        'PIPELINE_RESOURCE_WITHOUT_PATH',
        "Pathless is registered as a root resource (resource methods: get, post) but has no class-level @Path: add @Path('/') to mount it at the root " +
          "(or @Path('/...') elsewhere); if it is a sub-resource, remove it from resources and return it from a sub-resource locator",
      ],
    ]);
  });

  it('accepts @Path on an extended contract class, @Path("/") at the root, and path-less sub-resources', async () => {
    @Path('/contract')
    abstract class Contract {
      @GET() get(): string {
        return this.name();
      }
      protected abstract name(): string;
    }
    class Implementation extends Contract {
      protected name(): string {
        return 'implemented';
      }
    }
    class Sub {
      @GET() get(): string {
        return 'sub';
      }
    }
    @Path('/')
    class Root {
      @GET() get(): string {
        return 'root';
      }
      @Path('sub') sub(): Sub {
        return new Sub();
      }
    }
    const warnings: ModelProblem[] = [];
    const app = new Application({ resources: [Implementation, Root], logger: quiet, onWarning: (w) => warnings.push(w) });
    expect((await app.inject({ url: '/contract' })).text()).toBe('implemented');
    expect((await app.inject({ url: '/' })).text()).toBe('root');
    expect((await app.inject({ url: '/sub' })).text()).toBe('sub');
    expect(warnings).toEqual([]);
  });

  it('warns about a class with @Path and nothing to serve', () => {
    @Path('/empty')
    class Empty {
      helper(): string {
        return 'not a resource method';
      }
    }
    @Path('/ok')
    class Ok {
      @GET() get(): string {
        return 'ok';
      }
    }
    const warnings = warningsOf({ resources: [Empty, Ok] });
    expect(warnings.map((w) => [w.code, w.severity])).toEqual([['PIPELINE_EMPTY_RESOURCE', 'warning']]);
    expect(warnings[0]!.message).toMatch(/^Empty has @Path\('\/empty'\) but no resource method and no sub-resource locator/);
  });
});
