/**
 * Deadlines and disconnects: `@Deadline(ms)` (and the application's `deadline`) answers 503 with
 * Retry-After through the response chain once the method's result is late, drops the late result
 * and fires the request's signal (a TimeoutError); `onTimeout` may answer instead; the signal
 * also fires when the client goes away. Over both transports, and a real socket for the disconnect.
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  Application,
  Context,
  ContainerRequestContext,
  Deadline,
  GET,
  Path,
  Response,
  type ContainerResponseContext,
  type ContainerResponseFilter,
} from '../../src/index.js';
import { deferred } from '../helpers/deferred.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

let lastSignal: AbortSignal | undefined;
let lateResolved = deferred<void>();

@Path('/slow')
class Slow {
  @GET('deadline') @Deadline(50) wait(@Context() signal: AbortSignal): Promise<string> {
    lastSignal = signal;
    return new Promise<string>((resolve) => {
      signal.addEventListener('abort', () => {
        resolve('too late'); // resolves after the deadline: must be dropped
        lateResolved.resolve();
      });
    });
  }
  @GET('fast') @Deadline(5_000) async fast(): Promise<string> {
    return 'in time';
  }
  @GET('custom')
  @Deadline(30, { onTimeout: () => Response.status(202).entity({ queued: true }).build() })
  custom(): Promise<string> {
    return new Promise(() => undefined);
  }
  @GET('app') appLevel(): Promise<string> {
    return new Promise(() => undefined);
  }
}

class Stamp implements ContainerResponseFilter {
  filterResponse(_req: ContainerRequestContext, res: ContainerResponseContext): void {
    res.headers['x-stamped'] = '1';
  }
}

describe.each(TRANSPORTS)('@Deadline (%s)', (transport) => {
  const send = serveForSuite(
    transport,
    () => new Application({ resources: [Slow], providers: [new Stamp()], deadline: 40, logger: () => undefined }),
  );

  it('past the deadline: 503 + Retry-After through the response filters, the signal fired, the late result dropped', async () => {
    lateResolved = deferred();
    const r = await send('/slow/deadline');
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('1');
    expect(r.headers['x-stamped']).toBe('1');
    expect(r.json()).toMatchObject({ status: 503, code: 'PIPE_DEADLINE' });
    await lateResolved.promise;
    expect(lastSignal?.aborted).toBe(true);
    expect((lastSignal!.reason as DOMException).name).toBe('TimeoutError');
  });

  it('an answer in time is untouched', async () => {
    expect((await send('/slow/fast')).text).toBe('in time');
  });

  it('onTimeout supplies the answer instead', async () => {
    const r = await send('/slow/custom');
    expect([r.status, r.json()]).toEqual([202, { queued: true }]);
  });

  it("the application's deadline applies to methods without their own", async () => {
    expect((await send('/slow/app')).status).toBe(503);
  });
});

describe('the request signal when the client goes away', () => {
  it('fires with an AbortError', async () => {
    const entered = deferred<AbortSignal>();
    @Path('/hang')
    class Hang {
      @GET() hang(@Context() ctx: ContainerRequestContext): Promise<string> {
        entered.resolve(ctx.signal);
        return new Promise(() => undefined);
      }
    }
    const app = new Application({ resources: [Hang], logger: () => undefined });
    const { port } = await app.listen(0);
    try {
      const socket = connect(port, '127.0.0.1');
      await once(socket, 'connect');
      socket.write('GET /hang HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      const signal = await entered.promise;
      expect(signal.aborted).toBe(false);
      socket.destroy();
      if (!signal.aborted) await once(signal, 'abort');
      expect((signal.reason as DOMException).name).toBe('AbortError');
    } finally {
      await app.close(100);
    }
  });

  it('a method that fails because the signal fired (the client left) is not logged as a bug; other failures are', async () => {
    const entered = deferred<AbortSignal>();
    const settled = deferred<void>();
    @Path('/task')
    class Work {
      @GET() async work(@Context() signal: AbortSignal): Promise<string> {
        entered.resolve(signal);
        try {
          await new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('stopped', { cause: signal.reason }))));
          return 'never';
        } finally {
          setImmediate(() => settled.resolve());
        }
      }
      @GET('broken') broken(): string {
        throw new Error('a real bug');
      }
    }
    const logged: unknown[] = [];
    const app = new Application({ resources: [Work], logger: (e) => void logged.push(e) });
    const { port } = await app.listen(0);
    try {
      const socket = connect(port, '127.0.0.1');
      await once(socket, 'connect');
      socket.write('GET /task HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await entered.promise;
      socket.destroy();
      await settled.promise;
      expect((await app.inject({ url: '/task/broken' })).status).toBe(500);
      expect(logged.map((e) => (e as Error).message)).toEqual(['a real bug']);
    } finally {
      await app.close(100);
    }
  });

  it('@Deadline refuses a non-positive time at once', () => {
    expect(() => Deadline(0)).toThrow(/positive integer/);
  });
});
