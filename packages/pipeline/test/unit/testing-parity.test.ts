// README "Testing support": `runWriterInterceptors` / `runReaderInterceptors` run the pipeline's
// own reader and writer selection, so a unit test of an interceptor, reader or writer sees what
// `app.inject()` sees: the same chosen writer or reader, the same Content-Type, the same error
// (class, status, code, message) when none fits.
import diagnostics_channel from 'node:diagnostics_channel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultProviders } from '../../src/providers/index.js';
import {
  Application,
  CHANNEL_NAMES,
  Entity,
  GET,
  InternalServerError,
  NotAcceptableError,
  NotSupportedError,
  parseMediaType,
  PayloadTooLargeError,
  Path,
  POST,
  Produces,
  QueryParam,
  Response,
  WebApplicationError,
  type MessageBodyReader,
  type MessageBodyWriter,
  type OutgoingHeaders,
  type WriterInterceptor,
  type WriterInterceptorContext,
} from '../../src/index.js';
import { createRequestContext, runReaderInterceptors, runWriterInterceptors } from '../../src/testing/index.js';

/** One response a resource method returns; `headers` are the request's. */
interface WriteCase {
  route: 'json' | 'csv' | 'any';
  status: number;
  entity: unknown;
  responseHeaders?: OutgoingHeaders;
  headers?: Record<string, string>;
}

/** The media type each route declares, as `runWriterInterceptors` takes it (`*\/*`: no `@Produces`). */
const PRODUCES = { json: 'application/json', csv: 'text/csv', any: '*/*' } as const;

const writeCases: Record<string, WriteCase> = {
  object: { route: 'json', status: 200, entity: { a: 1 } },
  bytes: { route: 'json', status: 200, entity: Buffer.from('raw') },
  explicitType: { route: 'json', status: 200, entity: 'hi', responseHeaders: { 'content-type': 'text/plain' } },
  switched: { route: 'json', status: 200, entity: 'hi', headers: { 'x-media-type': 'text/plain' } },
  negotiated: { route: 'any', status: 200, entity: 'hi', headers: { accept: 'text/plain' } },
  errorFallback: { route: 'csv', status: 404, entity: { error: 'gone' } },
  noWriter: { route: 'csv', status: 200, entity: { a: 1 } },
  notAcceptable: { route: 'any', status: 200, entity: { a: 1 }, headers: { accept: 'text/csv' } },
  switchedToNoWriter: { route: 'json', status: 200, entity: { a: 1 }, headers: { 'x-media-type': 'text/csv' } },
};

const respond = (name: string): Response => {
  const c = writeCases[name]!;
  return new Response(c.status, c.entity, { ...c.responseHeaders });
};

@Path('/w')
class WriteResource {
  @GET('json') @Produces('application/json') json(@QueryParam('case') name: string): Response {
    return respond(name);
  }
  @GET('csv') @Produces('text/csv') csv(@QueryParam('case') name: string): Response {
    return respond(name);
  }
  @GET('any') any(@QueryParam('case') name: string): Response {
    return respond(name);
  }
}

@Path('/r')
class ReadResource {
  @POST('object') object(@Entity(Object) body: unknown): unknown {
    return describeValue(body);
  }
  @POST('bytes') bytes(@Entity(Buffer) body: Buffer): unknown {
    return describeValue(body);
  }
}

function describeValue(value: unknown): unknown {
  return Buffer.isBuffer(value) ? { buffer: value.toString('utf8') } : { [typeof value]: value };
}

/**
 * A writer interceptor that switches the media type of a successful response to the request's
 * `X-Media-Type`, when sent (error bodies are left alone, so a failed switch is mapped normally).
 */
class MediaTypeSwitch implements WriterInterceptor {
  async aroundWriteTo(ctx: WriterInterceptorContext): Promise<void> {
    const wanted = ctx.request.getHeader('x-media-type');
    if (wanted !== undefined && ctx.response.status < 400) ctx.mediaType = parseMediaType(wanted)!;
    await ctx.proceed();
  }
}

/** Which providers wrote or read, by name, in order. */
let used: string[] = [];
// The built-in providers, noting their name when used; given to the app and to the helpers alike.
const providers = defaultProviders().map((p) => {
  const named = p as unknown as { name: string; writeTo?: (...a: unknown[]) => unknown; readFrom?: (...a: unknown[]) => unknown };
  for (const m of ['writeTo', 'readFrom'] as const) {
    const original = named[m];
    if (original !== undefined)
      named[m] = (...a: unknown[]) => {
        used.push(named.name);
        return original.apply(p, a);
      };
  }
  return p;
});
const writers = providers.filter((p): p is MessageBodyWriter => 'writeTo' in p);
const readers = providers.filter((p): p is MessageBodyReader => 'readFrom' in p);
const BODY_LIMIT = 16;
const app = new Application({
  resources: [WriteResource, ReadResource],
  providers: [...providers, new MediaTypeSwitch()],
  builtinProviders: false,
  limits: { bodyLimit: BODY_LIMIT },
  logger: () => undefined,
});

/** Errors the pipeline raised (the `jaxrs-node:error` channel), to compare with the helper's rejection. */
let pipelineErrors: unknown[] = [];
const onError = (message: unknown): void => {
  pipelineErrors.push((message as { error: unknown }).error);
};
beforeEach(() => {
  used = [];
  pipelineErrors = [];
  diagnostics_channel.subscribe(CHANNEL_NAMES.error, onError);
});
afterEach(() => diagnostics_channel.unsubscribe(CHANNEL_NAMES.error, onError));

/** The helper's error and the pipeline's are the same: class, status, code, message; inject's body says so too. */
async function expectSameError(
  helper: Promise<unknown>,
  injected: Promise<{ status: number; json<T>(): T }>,
  expected: abstract new (...args: never[]) => WebApplicationError,
  code: string,
): Promise<void> {
  const error = await helper.then(
    () => undefined,
    (e: unknown) => e,
  );
  const response = await injected;
  expect(error).toBeInstanceOf(expected);
  expect(pipelineErrors).toHaveLength(1);
  const pipelineError = pipelineErrors[0] as WebApplicationError;
  const helperError = error as WebApplicationError;
  expect(helperError.constructor).toBe(pipelineError.constructor);
  expect([helperError.status, helperError.code, helperError.message]).toEqual([
    pipelineError.status,
    pipelineError.code,
    pipelineError.message,
  ]);
  expect([response.status, response.json<{ code: string }>().code]).toEqual([helperError.status, code]);
}

describe('runWriterInterceptors and app.inject() choose the same writer and Content-Type', () => {
  const runHelper = (name: string) => {
    const c = writeCases[name]!;
    return runWriterInterceptors([new MediaTypeSwitch()], {
      entity: c.entity,
      response: new Response(c.status, c.entity, { ...c.responseHeaders }),
      mediaType: PRODUCES[c.route],
      request: createRequestContext({ url: `/w/${c.route}?case=${name}`, headers: c.headers }),
      writers,
    });
  };
  const inject = (name: string) => {
    const c = writeCases[name]!;
    return app.inject({ url: `/w/${c.route}?case=${name}`, headers: c.headers });
  };

  it.each([
    ['object', 'JsonWriter', 'application/json', '{"a":1}'],
    ['bytes', 'BytesWriter', 'application/json', 'raw'],
    ['explicitType', 'TextWriter', 'text/plain; charset=utf-8', 'hi'],
    ['switched', 'TextWriter', 'text/plain; charset=utf-8', 'hi'],
    ['negotiated', 'TextWriter', 'text/plain; charset=utf-8', 'hi'],
    ['errorFallback', 'JsonWriter', 'application/json', '{"error":"gone"}'],
  ])('%s: %s writes %s', async (name, writer, contentType, body) => {
    const helper = await runHelper(name);
    const helperUsed = used;
    used = [];
    const injected = await inject(name);
    expect(helperUsed).toEqual([writer]);
    expect(used).toEqual([writer]);
    expect([helper.response.headers['content-type'], helper.body.toString()]).toEqual([contentType, body]);
    expect([injected.headers['content-type'], injected.text()]).toEqual([contentType, body]);
    expect(injected.status).toBe(helper.response.status);
  });

  it('no writer for the route media type: InternalServerError, 500, PIPE_NO_WRITER in both', async () => {
    await expectSameError(runHelper('noWriter'), inject('noWriter'), InternalServerError, 'PIPE_NO_WRITER');
  });

  it('no writer for the media type an interceptor switched to: the same 500 in both', async () => {
    await expectSameError(runHelper('switchedToNoWriter'), inject('switchedToNoWriter'), InternalServerError, 'PIPE_NO_WRITER');
  });

  it('mediaType */* negotiates like a method without @Produces: 406 PIPE_NOT_ACCEPTABLE in both', async () => {
    await expectSameError(runHelper('notAcceptable'), inject('notAcceptable'), NotAcceptableError, 'PIPE_NOT_ACCEPTABLE');
  });
});

describe('runReaderInterceptors and app.inject() choose the same reader', () => {
  const runHelper = (type: 'object' | 'bytes', body: string, contentType: string) =>
    runReaderInterceptors([], {
      body,
      headers: { 'content-type': contentType },
      type: type === 'bytes' ? Buffer : Object,
      readers,
      limit: BODY_LIMIT,
    });
  const inject = (type: 'object' | 'bytes', body: string, contentType: string) =>
    app.inject({ method: 'POST', url: `/r/${type}`, headers: { 'content-type': contentType }, body });

  it.each([
    ['object', '{"a":1}', 'application/json', 'JsonReader'],
    ['object', 'hi', 'text/plain', 'TextReader'],
    ['bytes', '{"a":1}', 'application/json', 'BytesReader'],
  ] as const)('%s from %s (%s): %s', async (type, body, contentType, reader) => {
    const value = await runHelper(type, body, contentType);
    const helperUsed = used;
    used = [];
    const injected = await inject(type, body, contentType);
    expect(helperUsed).toEqual([reader]);
    expect(used).toEqual([reader, 'JsonWriter']); // then the resource's answer is written
    expect(injected.status).toBe(200);
    expect(injected.json()).toEqual(describeValue(value));
  });

  it('no reader for the Content-Type: NotSupportedError, 415, PIPE_NO_READER in both', async () => {
    await expectSameError(
      runHelper('object', '{}', 'application/x-thing'),
      inject('object', '{}', 'application/x-thing'),
      NotSupportedError,
      'PIPE_NO_READER',
    );
  });

  it('a body over the limit: the same 413 in both', async () => {
    const big = `"${'x'.repeat(BODY_LIMIT)}"`;
    await expectSameError(
      runHelper('object', big, 'application/json'),
      inject('object', big, 'application/json'),
      PayloadTooLargeError,
      'PIPE_BODY_TOO_LARGE',
    );
  });
});
