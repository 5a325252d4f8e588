/**
 * The testing entry gives a post-matching filter the matched method and its binding values
 * without casts (`createRequestContext({ matched })`), read from the decorators as the pipeline
 * reads them; the main entry's `collectBody(body, limit)` gives production interceptors the bytes,
 * bounded (checked over a socket in a writer interceptor).
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  Application,
  collectBody,
  ForbiddenError,
  GET,
  NameBinding,
  Path,
  Produces,
  type ContainerRequestContext,
  type ContainerRequestFilter,
  type WriterInterceptor,
  type WriterInterceptorContext,
} from '../../src/index.js';
import { createRequestContext, runRequestFilter } from '../../src/testing/index.js';

const Roles = NameBinding<string[]>('Roles');

@Roles()
class RolesFilter implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    const needed = ctx.resourceInfo?.getBinding(Roles) ?? [];
    if (!needed.every((r) => ctx.getHeader('x-role') === r)) throw new ForbiddenError(`needs ${needed.join(',')}`);
  }
}

@Path('/admin')
@Roles('USER')
class Admin {
  @GET() @Roles('ADMIN') list(): string {
    return 'all';
  }
  @GET('me') me(): string {
    return 'me';
  }
}

describe('createRequestContext({ matched })', () => {
  it('gives the filter the method, its path and its binding values (method over class)', async () => {
    const ctx = createRequestContext({ url: '/admin', headers: { 'x-role': 'ADMIN' }, matched: { resource: Admin, method: 'list' } });
    expect(ctx.resourceInfo).toMatchObject({ resourceClass: Admin, methodName: 'list', httpMethod: 'GET', path: '/admin' });
    expect(ctx.resourceInfo?.getBinding(Roles)).toEqual(['ADMIN']);
    expect(await runRequestFilter(new RolesFilter(), ctx)).toBeUndefined();
    const user = createRequestContext({ url: '/admin/me', headers: { 'x-role': 'ADMIN' }, matched: { resource: Admin, method: 'me' } });
    expect(user.resourceInfo?.path).toBe('/admin/me');
    await expect(runRequestFilter(new RolesFilter(), user)).rejects.toThrow('needs USER');
  });

  it('refuses a method that is not a resource method', () => {
    expect(() => createRequestContext({ matched: { resource: Admin, method: 'nope' } })).toThrow(/Admin\.nope is not a resource method/);
  });
});

class DigestInterceptor implements WriterInterceptor {
  async aroundWriteTo(ctx: WriterInterceptorContext): Promise<void> {
    await ctx.proceed();
    const bytes = await collectBody(ctx.body, 1024);
    ctx.headers['repr-digest'] = `sha-256=:${createHash('sha256').update(bytes).digest('base64')}:`;
    ctx.body = bytes;
  }
}

@Path('/digest')
class Digested {
  @GET() @Produces('text/plain') small(): string {
    return 'hello';
  }
}

describe('collectBody(body, limit) from the main entry', () => {
  it('lets a writer interceptor digest the written bytes, over a socket', async () => {
    const app = new Application({ resources: [Digested], providers: [new DigestInterceptor()] });
    const { port } = await app.listen(0);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/digest`);
      expect(await r.text()).toBe('hello');
      expect(r.headers.get('repr-digest')).toBe(`sha-256=:${createHash('sha256').update('hello').digest('base64')}:`);
    } finally {
      await app.close(100);
    }
  });

  it('is bounded: a stream past the limit is destroyed and the promise rejects', async () => {
    const endless = Readable.from(
      (function* () {
        for (;;) yield Buffer.alloc(100);
      })(),
    );
    await expect(collectBody(endless, 1000)).rejects.toThrow(/exceeds the limit of 1000 bytes/);
    expect(endless.destroyed).toBe(true);
    await expect(collectBody('x'.repeat(11), 10)).rejects.toThrow(RangeError);
    expect((await collectBody(new Uint8Array([1, 2]), 2)).length).toBe(2);
  });
});
