/**
 * RFC 9457 problem details as the error format (README "Problem details"): `errorFormat: 'problem'`
 * answers every error the pipeline maps itself as `application/problem+json`; `'negotiate'` does so
 * only when Accept prefers it to `application/json`, and keeps the error body otherwise (with
 * `Vary: Accept`). In-process, over undici and over curl.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Application,
  GET,
  Int,
  Max,
  Min,
  parseAccept,
  Path,
  PathParam,
  prefersProblemDetails,
  problemDetailsErrorBody,
  Produces,
  QueryParam,
  type ErrorFormat,
} from '../../src/index.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

const run = promisify(execFile);

@Path('/things')
class Things {
  @GET() @Produces('application/json') list(
    @QueryParam('page', { type: Int }) @Min(0) page?: number,
    @QueryParam('size', { type: Int }) @Min(1) @Max(100) size?: number,
  ): unknown {
    return { page: page ?? 0, size: size ?? 20 };
  }

  @GET('{id}') @Produces('text/csv') csv(@PathParam('id', { type: Int }) id: number): string {
    if (id === 13) throw new Error('secret cause');
    return `id\n${id}\n`;
  }
}

const app =
  (errorFormat: ErrorFormat, extra: Partial<ConstructorParameters<typeof Application>[0]> = {}) =>
  (): Application =>
    new Application({ resources: [Things], errorFormat, logger: () => undefined, ...extra });

const PROBLEM = 'application/problem+json';

describe.each(TRANSPORTS)("errorFormat: 'problem' (%s)", (transport) => {
  const send = serveForSuite(transport, app('problem'));

  it('a 404 is problem details: type, title, status, detail, instance, code', async () => {
    const r = await send('/nope?token=secret');
    expect(r.status).toBe(404);
    expect(r.headers['content-type']).toBe(PROBLEM);
    expect(r.json()).toEqual({
      type: 'about:blank',
      title: 'Not Found',
      status: 404,
      detail: 'No resource matches GET /nope',
      instance: '/nope',
      code: 'PIPE_NO_MATCH',
    });
  });

  it('the combined 400 lists every item under errors; a 405 keeps Allow', async () => {
    const r = await send('/things?page=-1&size=abc');
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toBe(PROBLEM);
    expect(r.json()).toMatchObject({
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      instance: '/things',
      code: 'PIPE_VALIDATION',
      errors: [
        { field: 'query.size', message: "'abc' is not an integer", value: 'abc' },
        { field: 'query.page', message: 'must be greater than or equal to 0', value: -1 },
      ],
    });
    const notAllowed = await send({ method: 'DELETE', url: '/things' });
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.headers['content-type']).toBe(PROBLEM);
    expect(notAllowed.headers.allow).toContain('GET');
  });

  it('on a text/csv route too; a 500 has no detail (5xx messages are never shown)', async () => {
    const bad = await send('/things/x');
    expect([bad.status, bad.headers['content-type'], bad.json().code]).toEqual([400, PROBLEM, 'PIPE_PARAM_CONVERSION']);
    const failed = await send('/things/13');
    expect(failed.status).toBe(500);
    expect(failed.headers['content-type']).toBe(PROBLEM);
    expect(failed.json()).toEqual({
      type: 'about:blank',
      title: 'Internal Server Error',
      status: 500,
      instance: '/things/13',
      code: 'HTTP_500',
    });
    expect(failed.text).not.toContain('secret');
  });
});

describe.each(TRANSPORTS)("errorFormat: 'negotiate' (%s)", (transport) => {
  const send = serveForSuite(transport, app('negotiate'));

  it.each([
    ['application/problem+json', true],
    ['application/problem+json, */*;q=0.1', true],
    ['application/problem+json, */*', true],
    ['application/json;q=0.5, application/problem+json', true],
    ['application/json', false],
    ['application/json, application/problem+json', false],
    ['application/problem+json;q=0.5, application/json', false],
    ['*/*', false],
    ['', false],
  ])('Accept %j: problem details %s', async (accept, problem) => {
    const r = await send({ url: '/nope', headers: accept === '' ? {} : { accept } });
    expect(r.status).toBe(404);
    expect(r.headers.vary).toBe('Accept');
    if (problem) {
      expect(r.headers['content-type']).toBe(PROBLEM);
      expect(r.json()).toMatchObject({ type: 'about:blank', title: 'Not Found', status: 404, code: 'PIPE_NO_MATCH' });
    } else {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.json()).toEqual({ status: 404, error: 'Not Found', code: 'PIPE_NO_MATCH', message: 'No resource matches GET /nope' });
    }
  });

  it('successful answers are untouched', async () => {
    const r = await send({ url: '/things', headers: { accept: 'application/problem+json, application/json;q=0.9' } });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers.vary).toBeUndefined();
  });
});

describe.each(TRANSPORTS)('problemBody (%s)', (transport) => {
  const send = serveForSuite(
    transport,
    app('problem', {
      problemBody: (error, request) => ({
        ...(problemDetailsErrorBody(error, request) as object),
        type: `https://errors.example.com/${error.code.toLowerCase()}`,
      }),
    }),
  );

  it('replaces the problem details the format uses', async () => {
    const r = await send('/nope');
    expect(r.headers['content-type']).toBe(PROBLEM);
    expect(r.json()).toMatchObject({ type: 'https://errors.example.com/pipe_no_match', title: 'Not Found', status: 404 });
  });
});

describe('problem details over curl', () => {
  let base = '';
  const application = app('negotiate')();
  beforeAll(async () => {
    base = `http://127.0.0.1:${(await application.listen(0, '127.0.0.1')).port}`;
  });
  afterAll(async () => {
    await application.close(2000);
  });

  it('Accept preferring application/problem+json gets application/problem+json; a plain curl gets the JSON error body', async () => {
    const curl = async (...args: string[]): Promise<{ type: string; body: Record<string, unknown> }> => {
      const { stdout } = await run('curl', ['-s', '--max-time', '5', '-w', '\n%{content_type}', ...args, `${base}/things?size=abc`]);
      const i = stdout.lastIndexOf('\n');
      return { type: stdout.slice(i + 1), body: JSON.parse(stdout.slice(0, i)) as Record<string, unknown> };
    };
    // The route produces application/json: a client naming only problem+json would get a 406 (as problem details).
    const only = await curl('-H', 'Accept: application/problem+json');
    expect([only.type, only.body.status, only.body.code]).toEqual([PROBLEM, 406, 'PIPE_NOT_ACCEPTABLE']);
    const problem = await curl('-H', 'Accept: application/problem+json, application/json;q=0.9');
    expect(problem.type).toBe(PROBLEM);
    expect(problem.body).toMatchObject({
      status: 400,
      title: 'Bad Request',
      code: 'PIPE_PARAM_CONVERSION',
      errors: [{ field: 'query.size' }],
    });
    const plain = await curl();
    expect(plain.type).toBe('application/json');
    expect(plain.body).toMatchObject({ status: 400, error: 'Bad Request', code: 'PIPE_PARAM_CONVERSION' });
  });
});

describe('errorFormat option and prefersProblemDetails', () => {
  it('an unknown errorFormat fails when the application is made, naming the accepted values', () => {
    expect(() => new Application({ errorFormat: 'xml' as ErrorFormat })).toThrow(
      "errorFormat must be one of 'json', 'problem', 'negotiate', got xml",
    );
  });

  it('prefers problem+json only when Accept gives it more weight than application/json', () => {
    const prefers = (accept: string | undefined): boolean => prefersProblemDetails(parseAccept(accept));
    expect(prefers('application/problem+json')).toBe(true);
    expect(prefers('application/*;q=0.5, application/problem+json;q=0.6')).toBe(true);
    expect(prefers('application/problem+json;q=0, application/json;q=0')).toBe(false);
    expect(prefers('application/*')).toBe(false);
    expect(prefers(undefined)).toBe(false);
  });
});
