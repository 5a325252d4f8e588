/**
 * `app.inject()` returns a promise, so it reports a misconfigured application (a start-up refusal
 * of `build()`, which it runs on first use) by rejecting with the error `build()` throws, never by
 * throwing synchronously: `await app.inject(...)`, `.catch()` and `expect(...).rejects` all see it
 * (docs/testing.md).
 */
import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import {
  Application,
  ContentEncodingFeature,
  GET,
  GzipFeature,
  ModelValidationError,
  Path,
  Produces,
  type InjectRequest,
  type InjectResponse,
} from '../../src/index.js';

@Path('/items')
class Items {
  @GET() @Produces('application/json') list(): unknown {
    return [{ id: 1 }];
  }
}

class User {
  id = 1;
}

/** `@Produces(application/xml)` with no writer for it: refused at start-up with PIPELINE_NO_WRITER. */
@Path('/users')
class XmlUsers {
  @GET() @Produces('application/xml') get(): User {
    return new User();
  }
}

const quiet = (): void => undefined;

/** Two content-coding features: refused at start-up with PIPELINE_PROVIDER_CONFLICT. */
const twoCodings = (): Application =>
  new Application({ resources: [Items], providers: [new ContentEncodingFeature(), new GzipFeature()], logger: quiet });

/** What `build()` throws for `app`, to compare the rejection with. */
function buildError(app: Application): unknown {
  try {
    app.build();
  } catch (e) {
    return e;
  }
  throw new Error('build() accepted the application');
}

/** Calls `inject()`, failing the test if the call itself throws; returns its promise. */
function injectWithoutThrowing(app: Application, request: InjectRequest | string): Promise<InjectResponse> {
  let pending: Promise<InjectResponse> | undefined;
  expect(() => {
    pending = app.inject(request);
  }).not.toThrow();
  expect(pending).toBeInstanceOf(Promise);
  return pending!;
}

describe('inject() on a misconfigured application', () => {
  it('two coding features: does not throw, rejects with the ModelValidationError build() throws (code, problems, message)', async () => {
    const pending = injectWithoutThrowing(twoCodings(), '/items');
    await expect(pending).rejects.toBeInstanceOf(ModelValidationError);
    await expect(pending).rejects.toMatchObject({
      code: 'PIPELINE_MODEL_INVALID',
      message: (buildError(twoCodings()) as Error).message,
      problems: [expect.objectContaining({ code: 'PIPELINE_PROVIDER_CONFLICT' })],
    });
  });

  it('a declared media type nothing writes: rejects with PIPELINE_NO_WRITER among the problems', async () => {
    const app = new Application({ resources: [XmlUsers], logger: quiet });
    await expect(injectWithoutThrowing(app, '/users')).rejects.toMatchObject({
      code: 'PIPELINE_MODEL_INVALID',
      problems: [expect.objectContaining({ code: 'PIPELINE_NO_WRITER' })],
    });
  });

  it('an invalid option (deadline): rejects with the TypeError build() throws, unwrapped', async () => {
    const app = new Application({ resources: [Items], deadline: -1, logger: quiet });
    const rejection = await injectWithoutThrowing(app, '/items').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(rejection).toBeInstanceOf(TypeError);
    expect((rejection as TypeError).message).toBe('deadline must be a positive integer (ms), got -1');
  });

  it('rejects with the very object build() throws, and again on every call (a failed build is not kept)', async () => {
    const refusal = Object.assign(new Error('refused'), { code: 'SOME_CODE' });
    let builds = 0;
    class Refusing extends Application {
      override build(): this {
        builds++;
        throw refusal;
      }
    }
    const app = new Refusing({ resources: [Items], logger: quiet });
    await expect(injectWithoutThrowing(app, '/items')).rejects.toBe(refusal);
    await expect(injectWithoutThrowing(app, { url: '/items' })).rejects.toBe(refusal);
    expect(builds).toBe(2);
  });

  it('.catch() sees it, as an awaiting caller does', async () => {
    const caught = await twoCodings()
      .inject('/items')
      .catch((e: unknown) => (e as ModelValidationError).code);
    expect(caught).toBe('PIPELINE_MODEL_INVALID');
  });
});

describe('inject() on a well-configured application', () => {
  it('answers as before', async () => {
    const res = await new Application({ resources: [Items], logger: quiet }).inject('/items');
    expect([res.status, res.json()]).toEqual([200, [{ id: 1 }]]);
  });

  it('a body JSON cannot represent (a BigInt) rejects with the TypeError instead of throwing', async () => {
    const app = new Application({ resources: [Items], logger: quiet });
    let pending: Promise<InjectResponse> | undefined;
    expect(() => {
      pending = app.inject({ method: 'POST', url: '/items', body: { n: 1n } });
    }).not.toThrow();
    await expect(pending).rejects.toBeInstanceOf(TypeError);
  });
});
