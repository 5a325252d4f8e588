// @ServedWhileClosing() (issue 24): a literal GET route keeps answering while close() drains, when
// every other request gets the closing 503; build() refuses it where a string comparison of the
// path could not find the route.
import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { Application, GET, ModelValidationError, Path, POST, ServedWhileClosing } from '../../src/index.js';
import { slowAndFast } from '../helpers/slow-resources.js';

const quiet = (): void => undefined;
const { Slow, Fast, gate } = slowAndFast();

describe('@ServedWhileClosing()', () => {
  it('is refused by build() on a template path, another HTTP method, naming the class, the method and the fix', () => {
    @Path('/items')
    class Items {
      @GET('{id}') @ServedWhileClosing() one(): string {
        return 'x';
      }
      @POST() @ServedWhileClosing() add(): string {
        return 'x';
      }
    }
    const app = new Application({ resources: [Items], logger: quiet });
    let err: unknown;
    try {
      app.build();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ModelValidationError);
    const problems = (err as ModelValidationError).problems.map((p) => [p.code, p.message]);
    expect(problems).toEqual([
      [
        'PIPELINE_CLOSING_ROUTE_INVALID',
        expect.stringMatching(
          /^@ServedWhileClosing\(\) on Items\.one cannot apply: its path \/items\/\{id\} has a template variable\. Put it on a GET/,
        ),
      ],
      ['PIPELINE_CLOSING_ROUTE_INVALID', expect.stringMatching(/^@ServedWhileClosing\(\) on Items\.add cannot apply: it answers POST/)],
    ]);
  });

  it('serves an application route of its own while closing (in-process), the base path included', async () => {
    @Path('/status')
    class Status {
      @GET() @ServedWhileClosing() get(): unknown {
        return { ok: true };
      }
    }
    @Path('/')
    class Root {
      @GET() @ServedWhileClosing() get(): unknown {
        return { root: true };
      }
    }
    const own = new Application({ basePath: '/api', resources: [Status, Root, Slow, Fast], logger: quiet });
    const slow = own.inject('/api/slow');
    await gate.entered.promise;
    const closing = own.close(5000);
    expect((await own.inject('/api/status')).json()).toEqual({ ok: true });
    expect((await own.inject('/api')).json()).toEqual({ root: true });
    expect((await own.inject('/api/')).json()).toEqual({ root: true });
    expect((await own.inject('/api/fast')).status).toBe(503);
    expect((await own.inject('/status')).status).toBe(503);
    gate.release.resolve();
    expect((await slow).status).toBe(200);
    expect((await closing).drained).toBe(true);
  });
});
