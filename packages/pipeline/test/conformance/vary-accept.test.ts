/**
 * `Vary: Accept` on responses whose representation the Accept header chose: several methods for
 * one path and HTTP method told apart by `@Produces`, or one method producing several types.
 * A route with one fixed type (or none) does not vary. Other features' Vary values are kept.
 */
import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import {
  Application,
  GET,
  Consumes,
  Path,
  POST,
  Produces,
  type ContainerRequestContext,
  type ContainerResponseContext,
  type ContainerResponseFilter,
  type WriterInterceptor,
  type WriterInterceptorContext,
} from '../../src/index.js';
import { createRequestContext, runWriterInterceptors } from '../../src/testing/index.js';
import { appendVary } from '../../src/core/http/vary.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

@Path('/doc')
class Doc {
  @GET()
  @Produces('application/json')
  json(): { format: string } {
    return { format: 'json' };
  }

  @GET()
  @Produces('text/plain')
  text(): string {
    return 'format: text';
  }
}

@Path('/both')
class Both {
  @GET()
  @Produces('application/json', 'text/plain')
  get(): string {
    return 'either';
  }
}

@Path('/fixed')
class Fixed {
  @GET()
  @Produces('application/json')
  get(): { fixed: true } {
    return { fixed: true };
  }

  @GET('/plain')
  plain(): { plain: true } {
    return { plain: true };
  }

  /** No @Produces, a string: the writers offer text/plain and JSON, so Accept decides. */
  @GET('/string')
  string(): string {
    return 'hello';
  }
}

@Path('/text')
class AnyText {
  @GET()
  @Produces('text/*')
  get(): string {
    return 'some text';
  }
}

/** Two POSTs told apart by @Consumes alone: Accept chooses nothing here. */
@Path('/ingest')
class Ingest {
  @POST()
  @Consumes('application/json')
  @Produces('application/json')
  json(): { from: string } {
    return { from: 'json' };
  }

  @POST()
  @Consumes('text/plain')
  @Produces('application/json')
  text(): { from: string } {
    return { from: 'text' };
  }
}

/** A response filter that already set a Vary value (as CORS does with Origin). */
class VaryOrigin implements ContainerResponseFilter {
  filterResponse(_req: ContainerRequestContext, res: ContainerResponseContext): void {
    appendVary(res.headers, 'Origin');
  }
}

describe.each(TRANSPORTS)('Vary: Accept (%s)', (transport) => {
  const send = serveForSuite(transport, () => new Application({ resources: [Doc, Both, Fixed, AnyText, Ingest], providers: [VaryOrigin] }));

  it('two methods told apart by @Produces: each answer varies on Accept', async () => {
    const json = await send({ url: '/doc', headers: { accept: 'application/json' } });
    const text = await send({ url: '/doc', headers: { accept: 'text/plain' } });
    expect(json.json()).toEqual({ format: 'json' });
    expect(text.text).toBe('format: text');
    expect(json.headers.vary).toBe('Origin, Accept');
    expect(text.headers.vary).toBe('Origin, Accept');
  });

  it('one method producing two types varies on Accept', async () => {
    const r = await send({ url: '/both', headers: { accept: 'text/plain' } });
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.headers.vary).toBe('Origin, Accept');
  });

  it('a wildcard @Produces (text/*) varies on Accept', async () => {
    const r = await send({ url: '/text', headers: { accept: 'text/html' } });
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(r.headers.vary).toBe('Origin, Accept');
  });

  it('methods told apart by @Consumes alone (same @Produces) do not vary on Accept', async () => {
    const r = await send({ method: 'POST', url: '/ingest', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(r.json()).toEqual({ from: 'text' });
    expect(r.headers.vary).toBe('Origin');
  });

  it('no @Produces, but the writers offer several types for the entity (a string): varies on Accept', async () => {
    const text = await send('/fixed/string');
    const json = await send({ url: '/fixed/string', headers: { accept: 'application/json' } });
    expect([text.headers['content-type'], text.text]).toEqual(['text/plain; charset=utf-8', 'hello']);
    expect([json.headers['content-type'], json.text]).toEqual(['application/json', '"hello"']);
    expect(text.headers.vary).toBe('Origin, Accept');
    expect(json.headers.vary).toBe('Origin, Accept');
  });

  it('a route with one type, or none, does not vary on Accept', async () => {
    expect((await send('/fixed')).headers.vary).toBe('Origin');
    expect((await send('/fixed/plain')).headers.vary).toBe('Origin');
  });

  it('no route chosen (a 406 from matching, a 404): no Vary: Accept', async () => {
    const notAcceptable = await send({ url: '/doc', headers: { accept: 'image/png' } });
    expect(notAcceptable.status).toBe(406);
    expect(notAcceptable.headers.vary).toBe('Origin');
    expect((await send('/nowhere')).headers.vary).toBe('Origin');
  });
});

/** Passes the body through: routes take the writer-interceptor path instead of the cached plan. */
class PassThrough implements WriterInterceptor {
  aroundWriteTo(ctx: WriterInterceptorContext): Promise<void> {
    return ctx.proceed();
  }
}

describe.each(TRANSPORTS)('Vary: Accept with a writer interceptor (%s)', (transport) => {
  const send = serveForSuite(transport, () => new Application({ resources: [Fixed], providers: [PassThrough] }));

  it('writer negotiation varies on Accept on the interceptor path too; one writer does not', async () => {
    const json = await send({ url: '/fixed/string', headers: { accept: 'application/json' } });
    expect([json.text, json.headers.vary]).toEqual(['"hello"', 'Accept']);
    expect((await send('/fixed/plain')).headers.vary).toBeUndefined();
  });
});

describe('Vary: Accept in the testing helpers (parity with the application)', () => {
  it('runWriterInterceptors negotiating a string against Accept adds it', async () => {
    const request = createRequestContext({ headers: { accept: 'application/json' } });
    const out = await runWriterInterceptors([], { entity: 'hello', mediaType: '*/*', request });
    expect([out.body.toString(), out.response.headers.vary]).toEqual(['"hello"', 'Accept']);
  });
});
