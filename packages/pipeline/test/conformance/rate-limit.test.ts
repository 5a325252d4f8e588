/**
 * RateLimitFeature (RFC 6585 §4; draft-ietf-httpapi-ratelimit-headers-09) over both transports:
 * the default windows shared by the routes they cover, a route's own windows (several), per-key
 * quotas, 429 with Retry-After and the draft's two fields in their exact syntax, the legacy
 * names, @NoRateLimit and `binding`, an asynchronous store, the start-up refusals; the in-memory
 * store's bound; and FailedAuthLimiter's lockout, also through a Basic scheme over a socket.
 */
import { describe, expect, it } from 'vitest';
import {
  Application,
  Context,
  ContainerRequestContext,
  FailedAuthLimiter,
  GET,
  MemoryRateLimitStore,
  NameBinding,
  NoRateLimit,
  NotAuthorizedError,
  Path,
  Priorities,
  Priority,
  Produces,
  RateLimit,
  RateLimitConfigurationError,
  RateLimitFeature,
  RateLimitKeys,
  SecurityContext,
  SlidingWindowLimiter,
  type ContainerRequestFilter,
  type RateLimitDecision,
  type RateLimitPolicy,
  type RateLimitStore,
} from '../../src/index.js';
import { serveForSuite, start, TRANSPORTS } from '../helpers/transports.js';

const Limited = NameBinding('Limited');

/** `X-User: name` authenticates as `name` (a stand-in for a real scheme). */
@Priority(Priorities.AUTHENTICATION)
class HeaderAuth implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    const user = ctx.getHeader('x-user');
    if (user !== undefined) ctx.securityContext = SecurityContext.of({ name: user }, ['USER']);
  }
}

@Path('/r')
class Routes {
  @GET() @Path('/a') @Produces('text/plain') a(): string {
    return 'a';
  }
  @GET() @Path('/b') @Produces('text/plain') b(): string {
    return 'b';
  }
  @GET() @Path('/free') @NoRateLimit() @Produces('text/plain') free(): string {
    return 'free';
  }
  // Two windows: the second is the tighter one. Long windows, so no boundary passes mid-test.
  @GET()
  @Path('/two')
  @RateLimit({ limit: 4, windowMs: 3_600_000, name: 'hourly' })
  @RateLimit({ limit: 2, windowMs: 86_400_000, name: 'daily' })
  @Produces('text/plain')
  two(): string {
    return 'two';
  }
  @GET() @Path('/me') @Produces('text/plain') me(@Context() ctx: ContainerRequestContext): string {
    return ctx.securityContext.principal?.name ?? 'anonymous';
  }
}

const policy = '"default";q=3;w=60';

describe.each(TRANSPORTS)('RateLimitFeature (%s)', (transport) => {
  const send = serveForSuite(
    transport,
    () =>
      new Application({
        resources: [Routes],
        providers: [HeaderAuth, new RateLimitFeature({ key: RateLimitKeys.principal, default: { limit: 3, windowMs: 60_000 } })],
      }),
  );

  it('counts the default window across the routes it covers, then answers 429 with Retry-After and the draft fields', async () => {
    const user = { 'x-user': 'ann' };
    const seen: Array<string | undefined> = [];
    for (const url of ['/r/a', '/r/b', '/r/a']) {
      const res = await send({ url, headers: user });
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-policy']).toBe(policy);
      seen.push(res.headers.ratelimit as string);
    }
    expect(seen.map((v) => v?.replace(/;t=\d+$/, ''))).toEqual(['"default";r=2', '"default";r=1', '"default";r=0']);
    for (const v of seen) expect(v).toMatch(/^"default";r=\d;t=([1-9]|[1-5]\d|60)$/);

    const refused = await send({ url: '/r/b', headers: user });
    expect(refused.status).toBe(429);
    const retry = Number(refused.headers['retry-after']);
    expect(Number.isInteger(retry) && retry >= 1 && retry <= 120).toBe(true);
    expect(refused.headers['ratelimit-policy']).toBe(policy);
    const t = Number(/^"default";r=0;t=(\d+)$/.exec(refused.headers.ratelimit as string)?.[1]);
    expect(t).toBeGreaterThanOrEqual(retry);
    expect(refused.json()).toMatchObject({ status: 429, code: 'PIPE_RATE_LIMITED', message: 'Rate limit exceeded, retry later' });
    // The method did not run, and the refusal was not counted: still refused, still r=0.
    expect((await send({ url: '/r/a', headers: user })).status).toBe(429);
  });

  it('keeps one quota per key: another principal, and the anonymous address, are not limited by ann', async () => {
    for (let i = 0; i < 3; i++) expect((await send({ url: '/r/me', headers: { 'x-user': 'bob' } })).text).toBe('bob');
    expect((await send({ url: '/r/me', headers: { 'x-user': 'bob' } })).status).toBe(429);
    const anonymous = await send('/r/me');
    expect(anonymous.status).toBe(200);
    expect(anonymous.text).toBe('anonymous');
  });

  it('leaves a @NoRateLimit route without filter or headers', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await send({ url: '/r/free', headers: { 'x-user': 'ann' } });
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-policy']).toBeUndefined();
      expect(res.headers.ratelimit).toBeUndefined();
    }
  });

  it("gives a route's own windows, several, counted for it alone; the tightest refuses without using up the other", async () => {
    const user = { 'x-user': 'cy' };
    const first = await send({ url: '/r/two', headers: user });
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-policy']).toBe('"hourly";q=4;w=3600, "daily";q=2;w=86400');
    expect(first.headers.ratelimit).toMatch(/^"hourly";r=3;t=\d+, "daily";r=1;t=\d+$/);
    expect((await send({ url: '/r/two', headers: user })).headers.ratelimit).toMatch(/^"hourly";r=2;t=\d+, "daily";r=0;t=\d+$/);
    const refused = await send({ url: '/r/two', headers: user });
    expect(refused.status).toBe(429);
    // The hourly window was asked but not charged for the refused request: still r=2 after it.
    expect(refused.headers.ratelimit).toMatch(/^"hourly";r=2;t=\d+, "daily";r=0;t=\d+$/);
    expect((await send({ url: '/r/two', headers: user })).headers.ratelimit).toMatch(/^"hourly";r=2;t=\d+, "daily";r=0;t=\d+$/);
    // The default window of cy is untouched by /r/two.
    expect((await send({ url: '/r/a', headers: user })).headers.ratelimit).toMatch(/^"default";r=2;t=\d+$/);
  });
});

describe('RateLimitFeature options', () => {
  @Path('/o')
  class Bound {
    @GET() @Path('/limited') @Limited() @Produces('text/plain') limited(): string {
      return 'l';
    }
    @GET() @Path('/open') @Produces('text/plain') open(): string {
      return 'o';
    }
  }

  it('with binding, limits only the routes carrying it; legacy names beside the draft, or alone', async () => {
    const app = new Application({
      resources: [Bound],
      providers: [
        new RateLimitFeature({
          key: RateLimitKeys.address,
          default: { limit: 2, windowMs: 60_000 },
          binding: Limited,
          headers: { legacy: 'X-Rate-Limit' },
        }),
      ],
    });
    const open = await app.inject('/o/open');
    expect(open.headers['ratelimit-policy']).toBeUndefined();
    expect(open.headers['x-rate-limit-limit']).toBeUndefined();
    const res = await app.inject('/o/limited');
    expect(res.headers).toMatchObject({
      'x-rate-limit-limit': '2',
      'x-rate-limit-remaining': '1',
      'ratelimit-policy': '"default";q=2;w=60',
    });
    expect(Number(res.headers['x-rate-limit-reset'])).toBeGreaterThanOrEqual(1);
    await app.inject('/o/limited');
    const refused = await app.inject('/o/limited');
    expect(refused.status).toBe(429);
    expect(refused.headers['x-rate-limit-remaining']).toBe('0');
    expect(Number(refused.headers['x-rate-limit-reset'])).toBeGreaterThanOrEqual(Number(refused.headers['retry-after']));
    // Another address has its own quota.
    expect((await app.inject({ url: '/o/limited', remoteAddress: '10.0.0.2' })).status).toBe(200);

    const legacyOnly = new Application({
      resources: [Bound],
      providers: [
        new RateLimitFeature({
          key: RateLimitKeys.address,
          default: { limit: 2, windowMs: 1000 },
          headers: { draft: false, legacy: 'X-RateLimit' },
        }),
      ],
    });
    const only = await legacyOnly.inject('/o/open');
    expect(only.headers['x-ratelimit-limit']).toBe('2');
    expect(only.headers['ratelimit-policy']).toBeUndefined();
    expect(only.headers.ratelimit).toBeUndefined();
  });

  it("a class's @RateLimit covers its methods, each counted apart; a method's own replaces it", async () => {
    @Path('/c')
    @RateLimit({ limit: 1, windowMs: 60_000 })
    class Limited1 {
      @GET() @Path('/x') x(): string {
        return 'x';
      }
      @GET() @Path('/y') y(): string {
        return 'y';
      }
      @GET() @Path('/z') @RateLimit({ limit: 3, windowMs: 60_000 }) z(): string {
        return 'z';
      }
    }
    const app = new Application({ resources: [Limited1], providers: [new RateLimitFeature({ key: RateLimitKeys.address })] });
    expect((await app.inject('/c/x')).status).toBe(200);
    expect((await app.inject('/c/x')).status).toBe(429);
    expect((await app.inject('/c/y')).status).toBe(200);
    expect((await app.inject('/c/z')).headers['ratelimit-policy']).toBe('"w60";q=3;w=60');
  });

  it('RateLimitKeys.apiKey keys on the header only once the request is authenticated', () => {
    const key = RateLimitKeys.apiKey('X-Api-Key');
    const authenticated = { securityContext: SecurityContext.of({ name: 'x' }), getHeader: () => 'k1', remoteAddress: '10.0.0.1' };
    expect(key(authenticated as unknown as ContainerRequestContext)).toBe('k:k1');
    const unauthenticated = { ...authenticated, securityContext: { authenticated: false } };
    expect(key(unauthenticated as unknown as ContainerRequestContext)).toBe('a:10.0.0.1');
  });

  it('awaits a store that answers with Promises', async () => {
    const inner = new MemoryRateLimitStore();
    const calls: string[] = [];
    const store: RateLimitStore = {
      take: async (key: string, p: RateLimitPolicy): Promise<RateLimitDecision> => {
        calls.push(`${p.id} ${key}`);
        return inner.take(key, p);
      },
      peek: async (key: string, p: RateLimitPolicy): Promise<RateLimitDecision> => inner.peek(key, p),
    };
    const app = new Application({
      resources: [Bound],
      providers: [new RateLimitFeature({ key: RateLimitKeys.address, default: { limit: 1, windowMs: 60_000 }, store })],
    });
    expect((await app.inject('/o/open')).status).toBe(200);
    expect((await app.inject('/o/limited')).status).toBe(429);
    expect(calls).toEqual(['default#default a:127.0.0.1', 'default#default a:127.0.0.1']);
  });

  it('refuses at build() a window that is not positive, repeated names, and a limited route without a key', () => {
    @Path('/bad')
    class BadLimit {
      @GET() @RateLimit({ limit: 0, windowMs: 1000 }) get(): string {
        return '';
      }
    }
    @Path('/bad')
    class BadWindow {
      @GET() @RateLimit({ limit: 1, windowMs: -5 }) get(): string {
        return '';
      }
    }
    @Path('/bad')
    class Twice {
      @GET() @RateLimit({ limit: 1, windowMs: 1000 }, { limit: 2, windowMs: 1000 }) get(): string {
        return '';
      }
    }
    @Path('/ok')
    class Ok {
      @GET() @RateLimit({ limit: 1, windowMs: 1000 }) get(): string {
        return '';
      }
    }
    const build = (resource: Function, feature: RateLimitFeature) => () =>
      new Application({ resources: [resource as new () => object], providers: [feature] }).build();
    const withKey = () => new RateLimitFeature({ key: RateLimitKeys.address });
    const failure = (fn: () => unknown): RateLimitConfigurationError => {
      try {
        fn();
      } catch (e) {
        expect(e).toBeInstanceOf(RateLimitConfigurationError);
        return e as RateLimitConfigurationError;
      }
      throw new Error('expected a RateLimitConfigurationError');
    };
    expect(failure(build(BadLimit, withKey()))).toMatchObject({
      code: 'PIPE_RATE_LIMIT_INVALID',
      message: expect.stringContaining('BadLimit.get'),
    });
    expect(failure(build(BadWindow, withKey())).message).toMatch(/windowMs -5: it must be an integer >= 1/);
    expect(failure(build(Twice, withKey())).message).toMatch(/repeats the name "w1"/);
    @Path('/none')
    class NoWindow {
      @GET() @RateLimit() get(): string {
        return '';
      }
    }
    expect(failure(build(NoWindow, withKey())).message).toMatch(/@RateLimit on NoWindow.get has no window/);
    expect(failure(build(Ok, new RateLimitFeature()))).toMatchObject({
      code: 'PIPE_RATE_LIMIT_NO_KEY',
      message: expect.stringContaining('Ok.get'),
    });
    expect(failure(() => new RateLimitFeature({ key: RateLimitKeys.address, default: { limit: 1.5, windowMs: 1000 } })).code).toBe(
      'PIPE_RATE_LIMIT_INVALID',
    );
    expect(() => new RateLimitFeature({ limits: 3 } as never)).toThrow(/unknown option limits/);
  });
});

describe('MemoryRateLimitStore and SlidingWindowLimiter', () => {
  it('stays within maxKeys per policy however many keys come', () => {
    const store = new MemoryRateLimitStore({ maxKeys: 1000 });
    const p: RateLimitPolicy = { id: 'p', name: 'p', limit: 5, windowMs: 60_000 };
    for (let i = 0; i < 50_000; i++) store.take(`k${i}`, p, { now: 1_000_000 });
    expect(store.size(p)).toBeLessThanOrEqual(1000);
    expect(store.size(p)).toBeGreaterThan(0);
    // A recent key is still counted.
    const recent = store.peek('k49999', p, { now: 1_000_000 });
    expect(recent.remaining).toBe(3);
  });

  it('weighs the previous window by its overlap (sliding window) and says when a request is next admitted', () => {
    const l = new SlidingWindowLimiter({ limit: 10, windowMs: 10_000 });
    for (let i = 0; i < 10; i++) expect(l.take('k', 0).allowed).toBe(true);
    expect(l.take('k', 5_000)).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 6 });
    // At 12.5 s the previous window still weighs 10 * 0.75 = 7.5: two more fit, not ten.
    expect(l.take('k', 12_500).remaining).toBe(1);
    expect(l.take('k', 12_500).remaining).toBe(0);
    expect(l.take('k', 12_500).allowed).toBe(false);
  });
});

describe('FailedAuthLimiter', () => {
  it('refuses before checking once a key used up its failures; success and other errors are not counted', async () => {
    const failures = new FailedAuthLimiter({ limit: 2, windowMs: 60_000 });
    const keys = failures.keys('10.0.0.1', 'admin');
    expect(keys).toEqual(['client:10.0.0.1', 'account:admin']);
    let checks = 0;
    const wrong = async () => {
      checks++;
      throw new NotAuthorizedError('Basic realm="api"');
    };
    await expect(failures.attempt(keys, () => 'ok')).resolves.toBe('ok');
    await expect(failures.attempt(keys, async () => Promise.reject(new Error('busy')))).rejects.toThrow('busy');
    await expect(failures.attempt(keys, wrong)).rejects.toBeInstanceOf(NotAuthorizedError);
    await expect(failures.attempt(keys, wrong)).rejects.toBeInstanceOf(NotAuthorizedError);
    await expect(failures.attempt(keys, wrong)).rejects.toMatchObject({ status: 429, code: 'PIPE_AUTH_FAILURES_LIMITED' });
    expect(checks).toBe(2);
    // The account is locked from any address, the address for any account.
    await expect(failures.check(failures.keys('10.0.0.9', 'admin'))).rejects.toMatchObject({ status: 429 });
    await expect(failures.check(failures.keys('10.0.0.1', 'other'))).rejects.toMatchObject({ status: 429 });
    await expect(failures.check(failures.keys('10.0.0.9', 'other'))).resolves.toBeUndefined();
    // failed() past the limit rejects with the 429 the scheme answers instead of its 401.
    await expect(failures.failed(keys)).rejects.toMatchObject({ status: 429 });
    expect(() => new FailedAuthLimiter({ limit: 0 })).toThrow(RateLimitConfigurationError);
  });

  /** A Basic scheme (`user:secret` only) charging wrong guesses to the limiter. */
  const failures = new FailedAuthLimiter({ limit: 3 });
  @Priority(Priorities.AUTHENTICATION)
  class Basic implements ContainerRequestFilter {
    async filterRequest(ctx: ContainerRequestContext): Promise<void> {
      const header = ctx.getHeader('authorization') ?? '';
      const [user = '', password = ''] = Buffer.from(header.replace(/^Basic /, ''), 'base64')
        .toString()
        .split(':');
      const principal = await failures.attempt(failures.keys(ctx.remoteAddress, user), () => {
        if (user !== 'user' || password !== 'secret') throw new NotAuthorizedError('Basic realm="api"', 'Bad credentials');
        return { name: user };
      });
      ctx.securityContext = SecurityContext.of(principal);
    }
  }
  @Path('/secret')
  class Secret {
    @GET() @Produces('text/plain') get(): string {
      return 'in';
    }
  }

  it('locks a guesser out over a socket with 429 + Retry-After in the error body, even for the right password', async () => {
    const { send, stop } = await start(new Application({ resources: [Secret], providers: [Basic] }), 'socket');
    try {
      const basic = (u: string, p: string) => ({
        url: '/secret',
        headers: { authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` },
      });
      expect((await send(basic('user', 'secret'))).status).toBe(200);
      for (let i = 0; i < 3; i++) expect((await send(basic('user', `guess${i}`))).status).toBe(401);
      const locked = await send(basic('user', 'secret'));
      expect(locked.status).toBe(429);
      expect(Number(locked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(locked.json()).toMatchObject({ status: 429, code: 'PIPE_AUTH_FAILURES_LIMITED' });
    } finally {
      await stop();
    }
  });
});
