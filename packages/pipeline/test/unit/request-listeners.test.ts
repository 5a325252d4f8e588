/**
 * The observation seam (issue 24): `RequestListener` providers are told when the pipeline takes a
 * request and how it ended (status, duration, body sizes, error, the matched route), and
 * `RequestScope` providers run the rest of the request inside their scope. Both in-process and
 * over a real socket; a listener or scope that misbehaves is reported, never leaves a request
 * unanswered.
 */
import 'reflect-metadata';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Application,
  Context,
  ContainerRequestContext,
  Entity,
  GET,
  NotFoundError,
  Path,
  PathParam,
  POST,
  type RequestListener,
  type RequestOutcome,
  type RequestScope,
} from '../../src/index.js';

interface Seen {
  method: string;
  route: string | undefined;
  outcome: RequestOutcome;
}

class Recorder implements RequestListener {
  readonly seen: Seen[] = [];
  onRequest(ctx: ContainerRequestContext): (o: RequestOutcome) => void {
    return (outcome) => this.seen.push({ method: ctx.method, route: ctx.resourceInfo?.path, outcome });
  }
}

const storage = new AsyncLocalStorage<{ id: string }>();
class IdScope implements RequestScope {
  runInScope(ctx: ContainerRequestContext, next: () => void): void {
    storage.run({ id: ctx.headers['x-id'] as string }, next);
  }
}

@Path('/items')
class Items {
  @GET()
  @Path('/{id}')
  get(@PathParam('id') id: string): { id: string; scoped: string | undefined } {
    if (id === 'missing') throw new NotFoundError('no such item');
    return { id, scoped: storage.getStore()?.id };
  }

  @GET()
  @Path('/later/{id}')
  async later(@PathParam('id') id: string): Promise<{ scoped: string | undefined }> {
    await new Promise((r) => setImmediate(r));
    return { scoped: storage.getStore()?.id ?? `none:${id}` };
  }

  @GET()
  @Path('/stream')
  stream(): Readable {
    return Readable.from([Buffer.from('abc'), Buffer.from('defg')]);
  }

  @POST()
  create(@Entity() body: { name: string }, @Context() _ctx: ContainerRequestContext): { name: string } {
    return body;
  }
}

const apps: Application[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close(1000)));
});

function app(...providers: object[]): Application {
  const a = new Application({ resources: [Items], providers, logger: () => undefined });
  apps.push(a);
  return a;
}

describe('RequestListener', () => {
  it('is told the route template, status, duration and body sizes of each request, in-process', async () => {
    const rec = new Recorder();
    const a = app(rec);
    const ok = await a.inject('/items/7');
    expect(ok.status).toBe(200);
    await a.inject({ method: 'POST', url: '/items', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' });
    await a.inject('/items/missing');
    await a.inject('/nowhere');
    await a.inject({ method: 'HEAD', url: '/items/7' });
    expect(rec.seen.map((s) => [s.method, s.route, s.outcome.status])).toEqual([
      ['GET', '/items/{id}', 200],
      ['POST', '/items', 200],
      ['GET', '/items/{id}', 404],
      ['GET', undefined, 404],
      ['HEAD', '/items/{id}', 200],
    ]);
    const [get, post, missing, , head] = rec.seen.map((s) => s.outcome);
    expect(get!.responseBodySize).toBe(Buffer.byteLength(ok.body));
    expect(get!.requestBodySize).toBeUndefined();
    expect(get!.durationMs).toBeGreaterThanOrEqual(0);
    expect(get!.error).toBeUndefined();
    expect(post!.requestBodySize).toBe(12);
    expect(missing!.error).toBeInstanceOf(NotFoundError);
    expect(head!.responseBodySize).toBe(0);
  });

  it('counts a streamed body over a real socket', async () => {
    const rec = new Recorder();
    const a = app(rec);
    const { port } = await a.listen(0);
    const res = await fetch(`http://127.0.0.1:${port}/items/stream`);
    expect(await res.text()).toBe('abcdefg');
    await expect.poll(() => rec.seen.length).toBe(1);
    expect(rec.seen[0]!.outcome.responseBodySize).toBe(7);
    expect(rec.seen[0]!.route).toBe('/items/stream');
  });

  it('reports a listener that throws and still answers and tells the others', async () => {
    const errors: unknown[] = [];
    const rec = new Recorder();
    const broken: RequestListener = {
      onRequest: () => {
        throw new Error('listener broke');
      },
    };
    const brokenEnd: RequestListener = {
      onRequest: () => () => {
        throw new Error('end broke');
      },
    };
    const a = new Application({ resources: [Items], providers: [broken, brokenEnd, rec], logger: (e) => errors.push(e) });
    apps.push(a);
    const res = await a.inject('/items/1');
    expect(res.status).toBe(200);
    expect(rec.seen).toHaveLength(1);
    expect(errors.map((e) => (e as Error).message)).toEqual(['listener broke', 'end broke']);
  });

  it('costs nothing when absent: no clock is read', async () => {
    const a = app();
    let start = 0;
    const probe: RequestScope = {
      runInScope(ctx, next) {
        start = (ctx as unknown as { startTime: number }).startTime;
        next();
      },
    };
    expect((await a.inject('/items/1')).status).toBe(200);
    const b = app(probe);
    await b.inject('/items/1');
    expect(start).toBe(-1);
  });
});

describe('RequestScope', () => {
  it('runs the method (sync and after an await) inside the scope, over a real socket', async () => {
    const a = app(new IdScope());
    const { port } = await a.listen(0);
    const r1 = await fetch(`http://127.0.0.1:${port}/items/1`, { headers: { 'x-id': 'abc' } });
    expect(await r1.json()).toEqual({ id: '1', scoped: 'abc' });
    const r2 = await fetch(`http://127.0.0.1:${port}/items/later/2`, { headers: { 'x-id': 'def' } });
    expect(await r2.json()).toEqual({ scoped: 'def' });
  });

  it('nests scopes in priority order, outermost first', async () => {
    const order: string[] = [];
    const scope = (name: string): RequestScope => ({
      runInScope(_ctx, next) {
        order.push(`${name}>`);
        next();
        order.push(`<${name}`);
      },
    });
    const a = new Application({ resources: [Items], logger: () => undefined });
    a.register(scope('b'), { priority: 200 }).register(scope('a'), { priority: 100 });
    apps.push(a);
    await a.inject('/items/1');
    expect(order).toEqual(['a>', 'b>', '<b', '<a']);
  });

  it('a scope that forgets next() or throws is reported and the request is still answered', async () => {
    const errors: string[] = [];
    const forgetful: RequestScope = { runInScope: () => undefined };
    const a = new Application({ resources: [Items], providers: [forgetful], logger: (e) => errors.push((e as Error).message) });
    apps.push(a);
    expect((await a.inject('/items/1')).status).toBe(200);
    expect(errors[0]).toMatch(/runInScope returned without calling next\(\)/);
    const throwing: RequestScope = {
      runInScope: () => {
        throw new Error('scope broke');
      },
    };
    const b = new Application({ resources: [Items], providers: [throwing], logger: (e) => errors.push((e as Error).message) });
    apps.push(b);
    expect((await b.inject('/items/1')).status).toBe(200);
    expect(errors).toContain('scope broke');
  });
});

describe('an HTTP method decorator without parentheses', () => {
  it('is refused as the class is defined, naming the class and the fix', () => {
    const GETx = GET as unknown as MethodDecorator;
    expect(() => {
      class Bare {
        @GETx
        list(): string {
          return 'x';
        }
      }
      return Bare;
    }).toThrow('@GET is used without parentheses on Bare: write @GET()');
  });
});
