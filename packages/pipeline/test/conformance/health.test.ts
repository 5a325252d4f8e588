// HealthFeature (issue 24): liveness, readiness, start-up and all-checks probes in MicroProfile
// Health 4.0's shape, checks with timeouts run concurrently, readiness DOWN while close() drains
// and liveness still UP, over a real socket and in-process.
import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { Application, HealthFeature, OpenApiFeature, type HealthCheck, type HealthReport } from '../../src/index.js';
import { deferred } from '../helpers/deferred.js';
import { rawConnect, type RawConnection } from '../helpers/raw-socket.js';
import { slowAndFast } from '../helpers/slow-resources.js';

const quiet = (): void => undefined;
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

const { Slow, Fast, gate: slowGate } = slowAndFast();

const up = (name: string, kind: HealthCheck['kind']): HealthCheck => ({ name, kind, check: () => undefined });
const body = (text: string): HealthReport => JSON.parse(text) as HealthReport;
const get = (path: string): string => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;

describe('HealthFeature probes (in-process)', () => {
  it('serves /health, /health/live, /health/ready and /health/started in MicroProfile Health shape, 200 with no-store', async () => {
    const health = new HealthFeature({
      checks: [
        { name: 'memory', kind: 'liveness', check: () => ({ status: 'UP', data: { heapUsed: 12, unit: 'MiB', ok: true } }) },
        up('database', 'readiness'),
        up('migrations', 'startup'),
      ],
    });
    const app = new Application({ resources: [Fast], providers: [health], logger: quiet });
    const live = await app.inject('/health/live');
    expect(live.status).toBe(200);
    expect(live.headers['content-type']).toMatch(/^application\/json/);
    expect(live.headers['cache-control']).toBe('no-store');
    expect(live.json()).toEqual({
      status: 'UP',
      checks: [{ name: 'memory', status: 'UP', data: { heapUsed: 12, unit: 'MiB', ok: true } }],
    });
    expect((await app.inject('/health/ready')).json()).toEqual({ status: 'UP', checks: [{ name: 'database', status: 'UP' }] });
    expect((await app.inject('/health/started')).json()).toEqual({ status: 'UP', checks: [{ name: 'migrations', status: 'UP' }] });
    expect((await app.inject('/health')).json()).toEqual({
      status: 'UP',
      checks: [
        { name: 'memory', status: 'UP', data: { heapUsed: 12, unit: 'MiB', ok: true } },
        { name: 'database', status: 'UP' },
        { name: 'migrations', status: 'UP' },
      ],
    });
    const head = await app.inject({ method: 'HEAD', url: '/health/ready' });
    expect(head.status).toBe(200);
  });

  it('answers 503 DOWN naming the check: false, a DOWN result, a throw (message, no stack), a rejection, a wrong answer', async () => {
    const health = new HealthFeature({
      checks: [
        { name: 'flag', kind: 'readiness', check: () => false },
        { name: 'disk', kind: 'readiness', check: () => ({ status: 'DOWN', data: { reason: 'ENOSPC' } }) },
        {
          name: 'thrower',
          kind: 'readiness',
          check: () => {
            throw new Error('connection refused');
          },
        },
        { name: 'rejecter', kind: 'readiness', check: () => Promise.reject(new Error('etcd unavailable')) },
        { name: 'odd', kind: 'readiness', check: () => ({ status: 'ok' }) as never },
        {
          name: 'odd-data',
          kind: 'readiness',
          check: () => ({ status: 'UP', data: { big: 10n, nested: { a: 1 }, nan: Number.NaN, gone: undefined, ok: 'yes' } }) as never,
        },
        up('fine', 'readiness'),
      ],
    });
    const app = new Application({ providers: [health], logger: quiet });
    const res = await app.inject('/health/ready');
    expect(res.status).toBe(503);
    expect(res.headers['cache-control']).toBe('no-store');
    const report = res.json() as HealthReport;
    expect(report.status).toBe('DOWN');
    expect(report.checks).toEqual([
      { name: 'flag', status: 'DOWN' },
      { name: 'disk', status: 'DOWN', data: { reason: 'ENOSPC' } },
      { name: 'thrower', status: 'DOWN', data: { reason: 'connection refused' } },
      { name: 'rejecter', status: 'DOWN', data: { reason: 'etcd unavailable' } },
      {
        name: 'odd',
        status: 'DOWN',
        data: { reason: expect.stringContaining("expected nothing, true, false or { status: 'UP' | 'DOWN'") },
      },
      { name: 'odd-data', status: 'UP', data: { big: '10', nested: '[object Object]', nan: 'NaN', ok: 'yes' } },
      { name: 'fine', status: 'UP' },
    ]);
    expect(res.text()).not.toMatch(/at .*\.ts:\d+/);
    // Liveness does not run readiness checks.
    expect((await app.inject('/health/live')).json()).toEqual({ status: 'UP', checks: [] });
  });

  it('runs checks concurrently, each against its own timeout, DOWN with a reason and its signal aborted', async () => {
    const started: string[] = [];
    let hangSignal: AbortSignal | undefined;
    const release = deferred();
    const health = new HealthFeature({
      timeoutMs: 50,
      checks: [
        {
          name: 'hangs',
          kind: 'readiness',
          check: (signal) => {
            started.push('hangs');
            hangSignal = signal;
            return new Promise<undefined>(() => undefined);
          },
        },
        {
          name: 'waits',
          kind: 'readiness',
          timeoutMs: 5000,
          check: async () => {
            started.push('waits');
            await release.promise;
            return true;
          },
        },
      ],
    });
    const app = new Application({ providers: [health], logger: quiet });
    const pending = app.inject('/health/ready');
    // Both checks were started before either answered: they run concurrently.
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(started).toEqual(['hangs', 'waits']);
    const hung = hangSignal!;
    await new Promise<void>((resolve) => hung.addEventListener('abort', () => resolve(), { once: true }));
    expect((hung.reason as Error).name).toBe('TimeoutError');
    release.resolve();
    const res = await pending;
    expect(res.status).toBe(503);
    expect(res.json()).toEqual({
      status: 'DOWN',
      checks: [
        { name: 'hangs', status: 'DOWN', data: { reason: 'no answer within 50 ms' } },
        { name: 'waits', status: 'UP' },
      ],
    });
  });

  it("with startup: 'manual', start-up and readiness carry a DOWN 'started' check until markStarted()", async () => {
    const health = new HealthFeature({ startup: 'manual', probes: ['live', 'ready', 'started'] });
    const app = new Application({ providers: [health], logger: quiet });
    const notYet = { name: 'started', status: 'DOWN', data: { reason: 'the application has not started yet' } };
    expect((await app.inject('/health/started')).json()).toEqual({ status: 'DOWN', checks: [notYet] });
    expect((await app.inject('/health/ready')).status).toBe(503);
    expect((await app.inject('/health/live')).status).toBe(200);
    expect((await app.inject('/health')).status).toBe(404); // 'all' not among the probes
    health.markStarted();
    expect((await app.inject('/health/started')).json()).toEqual({ status: 'UP', checks: [] });
    expect((await app.inject('/health/ready')).status).toBe(200);
  });

  it('adds checks after start-up; serves under the base path and a custom path; stays out of OpenAPI unless asked', async () => {
    const health = new HealthFeature({ path: '/q/health' });
    const app = new Application({
      basePath: '/api',
      providers: [health, new OpenApiFeature({ info: { title: 't', version: '1' } })],
      logger: quiet,
    });
    expect((await app.inject('/api/q/health/ready')).json()).toEqual({ status: 'UP', checks: [] });
    health.addCheck({ name: 'late', kind: ['readiness', 'liveness'], check: () => false });
    expect((await app.inject('/api/q/health/ready')).status).toBe(503);
    expect((await app.inject('/api/q/health/live')).status).toBe(503);
    const doc = (await app.inject('/api/openapi.json')).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.includes('health'))).toEqual([]);

    const shown = new Application({
      providers: [
        new HealthFeature({ openApi: true, probes: ['live', 'ready'] }),
        new OpenApiFeature({ info: { title: 't', version: '1' } }),
      ],
      logger: quiet,
    });
    const shownDoc = (await shown.inject('/openapi.json')).json() as {
      paths: Record<string, { get: { tags: string[]; responses: Record<string, unknown> } }>;
    };
    expect(Object.keys(shownDoc.paths).sort()).toEqual(['/health/live', '/health/ready']);
    expect(shownDoc.paths['/health/ready']!.get.tags).toEqual(['health']);
    expect(Object.keys(shownDoc.paths['/health/ready']!.get.responses)).toEqual(expect.arrayContaining(['200', '503']));
  });

  it('refuses bad options and checks with a TypeError naming the fix', () => {
    expect(() => new HealthFeature({ path: 'health' })).toThrow(/path must be a literal path that starts with '\/'/);
    expect(() => new HealthFeature({ path: '/health/{id}' })).toThrow(/literal path/);
    expect(() => new HealthFeature({ timeoutMs: 0 })).toThrow(/timeoutMs must be an integer of milliseconds from 1/);
    expect(() => new HealthFeature({ probes: ['alive' as never] })).toThrow(/probes must be a non-empty list/);
    expect(() => new HealthFeature({ paths: '/x' } as never)).toThrow(/unknown option 'paths'/);
    expect(() => new HealthFeature({ checks: [up('a', 'readiness'), up('a', 'liveness')] })).toThrow(
      /check "a": the name is already taken/,
    );
    expect(() => new HealthFeature({ checks: [up('draining', 'readiness')] })).toThrow(/already taken/);
    expect(() => new HealthFeature({ checks: [up('x', 'ready' as never)] })).toThrow(/kind must be 'liveness', 'readiness', 'startup'/);
    expect(() => new HealthFeature({ checks: [{ name: 'x', kind: 'readiness' } as never] })).toThrow(/check must be a function/);
    expect(() => new HealthFeature({ checks: [{ ...up('x', 'readiness'), timeoutMs: 1.5 }] })).toThrow(/check "x" timeoutMs/);
  });
});

describe('HealthFeature while the application closes (real socket)', () => {
  let app: Application | undefined;
  let other: Server | undefined;
  const clients: RawConnection[] = [];
  afterEach(async () => {
    slowGate.release.resolve();
    for (const c of clients.splice(0)) c.socket.destroy();
    await app?.close(100);
    await new Promise<void>((resolve) => (other === undefined ? resolve() : other.close(() => resolve())));
    app = undefined;
    other = undefined;
    slowGate.reset();
  });

  // Node 26's server.close() also closes connections that have not sent a request yet, the ones
  // this test probes on; there the app.handler test below and the shutdown delay
  // (shutdown-delay.test.ts, fresh connections) show the same behaviour.
  it.skipIf(NODE_MAJOR >= 26)(
    'keeps liveness UP and answers readiness 503 draining while a slow request is in flight; other requests get the closing 503',
    async () => {
      app = new Application({
        resources: [Slow, Fast],
        providers: [new HealthFeature({ checks: [up('db', 'readiness')] })],
        logger: quiet,
      });
      const { port } = await app.listen(0);
      // A connection the kernel completed but the server has not accepted yet is reset when close()
      // stops listening: wait until the server has taken all four.
      const accepted = new Promise<void>((resolve) => {
        let n = 0;
        app!.server!.on('connection', () => {
          if (++n === 4) resolve();
        });
      });
      const busy = await rawConnect(port);
      // Connections opened before close() and with no request yet are not reaped: the probes come on them.
      const [liveConn, readyConn, otherConn] = [await rawConnect(port), await rawConnect(port), await rawConnect(port)];
      clients.push(busy, liveConn, readyConn, otherConn);
      await accepted;
      busy.socket.write(get('/slow'));
      await slowGate.entered.promise;

      const closing = app.close(5000);
      liveConn.socket.write(get('/health/live'));
      readyConn.socket.write(get('/health/ready'));
      otherConn.socket.write(get('/fast'));
      const [live] = await liveConn.responses(1);
      const [ready] = await readyConn.responses(1);
      const [rejected] = await otherConn.responses(1);
      expect(live!.status).toBe(200);
      expect(body(live!.body)).toEqual({ status: 'UP', checks: [] });
      expect(ready!.status).toBe(503);
      expect(body(ready!.body)).toEqual({
        status: 'DOWN',
        checks: [
          { name: 'db', status: 'UP' },
          { name: 'draining', status: 'DOWN', data: { reason: 'the application is closing' } },
        ],
      });
      expect(rejected!.status).toBe(503);
      expect(JSON.parse(rejected!.body)).toMatchObject({ code: 'PIPE_SHUTTING_DOWN' });

      // The slow request still finishes, and the close drains.
      slowGate.release.resolve();
      const [slow] = await busy.responses(1);
      expect(slow!.status).toBe(200);
      expect(await closing).toEqual({ drained: true, cutConnections: 0 });
    },
  );

  it('through Application.handler on a server the application does not close: new connections probe during the drain (undici)', async () => {
    app = new Application({ resources: [Slow, Fast], providers: [new HealthFeature()], logger: quiet });
    other = createServer(app.handler);
    await new Promise<void>((resolve) => other!.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const slow = request(`${base}/slow`).then((r) => r.body.json());
    await slowGate.entered.promise;
    const closing = app.close(5000);

    const live = await request(`${base}/health/live`);
    expect(live.statusCode).toBe(200);
    expect(await live.body.json()).toEqual({ status: 'UP', checks: [] });
    const ready = await request(`${base}/health/ready`);
    expect(ready.statusCode).toBe(503);
    expect(((await ready.body.json()) as HealthReport).checks.map((c) => c.name)).toEqual(['draining']);
    const all = await request(`${base}/health`);
    expect(all.statusCode).toBe(503);
    await all.body.dump();
    const started = await request(`${base}/health/started`);
    expect(started.statusCode).toBe(200); // the start-up probe is not about draining
    await started.body.dump();
    // Only GET and HEAD of the probe paths pass; a query string does not change the path.
    const post = await request(`${base}/health/live`, { method: 'POST' });
    expect(post.statusCode).toBe(503);
    await post.body.dump();
    const query = await request(`${base}/health/live?verbose=1`);
    expect(query.statusCode).toBe(200);
    await query.body.dump();

    slowGate.release.resolve();
    expect(await slow).toEqual({ done: true });
    expect((await closing).drained).toBe(true);
  });
});
