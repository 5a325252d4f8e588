/**
 * Issue 24, logging: the JSON-lines logger, request ids (accepted when safe, else generated, echoed
 * on every response), the per-request logger (id, method, route template), the access line, header
 * redaction, and the library's own warnings and errors through the application's `log`.
 * In-process and over a real socket.
 */
import 'reflect-metadata';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Application,
  Context,
  ContainerRequestContext,
  Entity,
  GET,
  jsonLogger,
  LoggingFeature,
  Path,
  PathParam,
  POST,
  PreMatching,
  RequestIdFeature,
  requestId,
  requestLogger,
  type ContainerRequestFilter,
  type Logger,
} from '../../src/index.js';

/** A destination keeping the lines written to it, parsed. */
class Lines extends Writable {
  readonly lines: Record<string, unknown>[] = [];
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    for (const l of chunk.toString('utf8').split('\n')) if (l !== '') this.lines.push(JSON.parse(l) as Record<string, unknown>);
    cb();
  }
  /** Resolves once the stream processed every write so far. */
  flushed(): Promise<void> {
    return new Promise((resolve) => this.write('', () => resolve()));
  }
}

@Path('/users')
class Users {
  @GET()
  @Path('/{id}')
  get(@PathParam('id') id: string, @Context() ctx: ContainerRequestContext): { id: string; reqId: string | undefined } {
    requestLogger(ctx)?.info({ user: id }, 'looked up');
    if (id === 'boom') throw new Error('database on fire');
    return { id, reqId: requestId(ctx) };
  }

  @POST()
  create(@Entity() body: { name: string }): { name: string } {
    return body;
  }
}

const apps: Application[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close(1000)));
});

function setup(providers: object[], options: { basePath?: string; log?: Logger } = {}): Application {
  const a = new Application({ resources: [Users], providers, ...options });
  apps.push(a);
  return a;
}

describe('jsonLogger', () => {
  it('writes one JSON line per call with pino numeric levels, time, bindings and msg; below the level nothing', async () => {
    const out = new Lines();
    const log = jsonLogger({ level: 'info', destination: out, base: { service: 'users' } });
    log.debug({ hidden: true }, 'not written');
    log.info({ a: 1 }, 'hello');
    log
      .child({ reqId: 'r1' })
      .child({ route: '/x' })
      .error({ err: new Error('bad') }, 'failed');
    log.warn({});
    await out.flushed();
    expect(out.lines).toHaveLength(3);
    expect(out.lines[0]).toMatchObject({ level: 30, service: 'users', a: 1, msg: 'hello' });
    expect(typeof out.lines[0]!.time).toBe('number');
    expect(out.lines[1]).toMatchObject({ level: 50, reqId: 'r1', route: '/x', msg: 'failed', err: { type: 'Error', message: 'bad' } });
    expect((out.lines[1]!.err as { stack: string }).stack).toContain('logging.test');
    expect(out.lines[2]).toEqual({ level: 40, time: expect.any(Number), service: 'users' });
  });

  it('writes ISO times when asked, and refuses an unknown level or time format at construction', async () => {
    const out = new Lines();
    jsonLogger({ destination: out, time: 'iso' }).info({}, 'x');
    await out.flushed();
    expect(Number.isNaN(Date.parse(out.lines[0]!.time as string))).toBe(false);
    expect(() => jsonLogger({ level: 'loud' as 'info' })).toThrow(/level must be one of trace, debug, info, warn, error, fatal, silent/);
    expect(() => jsonLogger({ time: 'unix' as 'iso' })).toThrow(/time must be 'epoch' or 'iso'/);
  });

  it('silent writes nothing', async () => {
    const out = new Lines();
    const log = jsonLogger({ level: 'silent', destination: out });
    log.fatal({}, 'x');
    await out.flushed();
    expect(out.lines).toEqual([]);
  });
});

describe('RequestIdFeature', () => {
  it('keeps a safe incoming id, replaces a bad one (never echoed), generates one without, on every response', async () => {
    const a = setup([new RequestIdFeature()], { log: jsonLogger({ level: 'silent' }) });
    const safe = await a.inject({ url: '/users/1', headers: { 'x-request-id': 'req-123.abc:9_Z' } });
    expect(safe.headers['x-request-id']).toBe('req-123.abc:9_Z');
    expect(safe.json()).toEqual({ id: '1', reqId: 'req-123.abc:9_Z' });
    for (const bad of ['a b', 'x"y', 'a'.repeat(129), '', 'é', 'a\\b']) {
      const r = await a.inject({ url: '/users/1', headers: { 'x-request-id': bad } });
      expect(r.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(r.json<{ reqId: string }>().reqId).toBe(r.headers['x-request-id']);
    }
    const twice = await a.inject({ url: '/users/1', headers: { 'x-request-id': ['one', 'two'] } });
    expect(twice.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    // Errors, 404 and 405 carry it too.
    expect((await a.inject({ url: '/nowhere', headers: { 'x-request-id': 'nf-1' } })).headers['x-request-id']).toBe('nf-1');
    expect((await a.inject({ url: '/users/boom', headers: { 'x-request-id': 'err-1' } })).headers['x-request-id']).toBe('err-1');
    expect((await a.inject({ method: 'DELETE', url: '/users/1', headers: { 'x-request-id': 'na-1' } })).headers['x-request-id']).toBe(
      'na-1',
    );
  });

  it('echoed over a socket on a 400 for a bad body and on the 503 of a closing application; header and generator configurable', async () => {
    let n = 0;
    const a = setup([new RequestIdFeature({ header: 'X-Correlation-Id', generate: () => `gen-${++n}` })], {
      log: jsonLogger({ level: 'silent' }),
    });
    const { port } = await a.listen(0);
    const base = `http://127.0.0.1:${port}`;
    const given = await fetch(`${base}/users/1`, { headers: { 'x-correlation-id': 'c-1' } });
    expect(given.headers.get('x-correlation-id')).toBe('c-1');
    expect(given.headers.get('x-request-id')).toBeNull();
    const bad = await fetch(`${base}/users`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-correlation-id')).toBe('gen-1');
    // Once closing, the 503 carries it too.
    await a.close(100);
    const late = await a.inject({ url: '/users/1', headers: { 'x-correlation-id': 'late-1' } });
    expect(late.status).toBe(503);
    expect(late.headers['x-correlation-id']).toBe('late-1');
  });

  it('echoed on the 400 for an HTTP/1.1 request without Host (raw socket)', async () => {
    const a = setup([new RequestIdFeature()], { log: jsonLogger({ level: 'silent' }) });
    const { port } = await a.listen(0);
    const head = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET /users/1 HTTP/1.1\r\nX-Request-Id: no-host-1\r\n\r\n'));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (text += d));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.setTimeout(5000, () => socket.destroy(new Error('no answer')));
    });
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head.toLowerCase()).toContain('x-request-id: no-host-1\r\n');
  });

  it('refuses a header that is not a token and a generator that is not a function', () => {
    expect(() => new RequestIdFeature({ header: 'x request' })).toThrow(/header must be a header name/);
    expect(() => new RequestIdFeature({ generate: 'uuid' as unknown as () => string })).toThrow(/generate must be a function/);
  });
});

describe('LoggingFeature', () => {
  it('a request logger with reqId, method and the route template (base path included), and one access line', async () => {
    const out = new Lines();
    const log = jsonLogger({ destination: out });
    const a = setup([new RequestIdFeature(), new LoggingFeature({ logger: log })], { basePath: '/api', log });
    const { port } = await a.listen(0);
    const res = await fetch(`http://127.0.0.1:${port}/api/users/42?secret=1`, {
      headers: { 'x-request-id': 'r-42', 'user-agent': 'test-agent' },
    });
    expect(res.status).toBe(200);
    await res.text();
    await new Promise((r) => setImmediate(r));
    await out.flushed();
    const [own, access] = out.lines;
    expect(own).toMatchObject({ level: 30, reqId: 'r-42', method: 'GET', route: '/api/users/{id}', user: '42', msg: 'looked up' });
    expect(access).toMatchObject({
      level: 30,
      reqId: 'r-42',
      method: 'GET',
      route: '/api/users/{id}',
      path: '/api/users/42',
      status: 200,
      responseBytes: Number(res.headers.get('content-length')),
      remoteAddress: '127.0.0.1',
      userAgent: 'test-agent',
      msg: 'request completed',
    });
    expect(access!.durationMs).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(out.lines)).not.toContain('secret');
    expect(out.lines).toHaveLength(2);
  });

  it('an unmatched request logs no route (never the raw path as a binding); body bytes in', async () => {
    const out = new Lines();
    const a = setup([new RequestIdFeature(), new LoggingFeature({ logger: jsonLogger({ destination: out }) })]);
    await a.inject({ url: '/no/such/thing', headers: { 'x-request-id': 'nf' } });
    await a.inject({
      method: 'POST',
      url: '/users',
      headers: { 'content-type': 'application/json', 'x-request-id': 'p' },
      body: '{"name":"abc"}',
    });
    await out.flushed();
    expect(out.lines[0]).toMatchObject({ reqId: 'nf', status: 404, path: '/no/such/thing' });
    expect(out.lines[0]).not.toHaveProperty('route');
    expect(out.lines[1]).toMatchObject({ reqId: 'p', status: 200, route: '/users', requestBytes: 14, responseBytes: 14 });
  });

  it('an unexpected error goes through the request logger: the line carries the id and route', async () => {
    const out = new Lines();
    const log = jsonLogger({ destination: out });
    const a = setup([new RequestIdFeature(), new LoggingFeature({ logger: log, accessLog: { level: 'debug' } })], { log });
    expect((await a.inject({ url: '/users/boom', headers: { 'x-request-id': 'b-1' } })).status).toBe(500);
    await out.flushed();
    const errors = out.lines.filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ reqId: 'b-1', route: '/users/{id}', method: 'GET', msg: 'database on fire', err: { type: 'Error' } });
    // The access line is at debug, below the logger's info: not written.
    expect(out.lines.filter((l) => l.msg === 'request completed')).toEqual([]);
  });

  it('a pre-matching filter logs without a route; the same request logs with it once matched', async () => {
    @PreMatching()
    class Early implements ContainerRequestFilter {
      filterRequest(ctx: ContainerRequestContext): void {
        requestLogger(ctx)!.debug({}, 'early');
      }
    }
    const out = new Lines();
    const a = setup([Early, new LoggingFeature({ logger: jsonLogger({ destination: out, level: 'debug' }), accessLog: false })]);
    await a.inject('/users/7');
    await out.flushed();
    expect(out.lines.map((l) => [l.msg, l.route])).toEqual([
      ['early', undefined],
      ['looked up', '/users/{id}'],
    ]);
  });

  it('headers are not logged by default; with headers: true they are, credentials redacted', async () => {
    const out = new Lines();
    const plain = setup([new LoggingFeature({ logger: jsonLogger({ destination: out }) })]);
    await plain.inject({ url: '/users/1', headers: { authorization: 'Bearer s3cr3t' } });
    const withHeaders = setup([
      new LoggingFeature({ logger: jsonLogger({ destination: out }), headers: true, redact: ['X-Tenant-Secret'] }),
    ]);
    await withHeaders.inject({
      url: '/users/1',
      headers: {
        authorization: 'Bearer s3cr3t',
        cookie: 'sid=s3cr3t',
        'x-api-key': 's3cr3t',
        'api-key': 's3cr3t',
        'proxy-authorization': 'Basic s3cr3t',
        'x-tenant-secret': 's3cr3t',
        accept: 'application/json',
      },
    });
    await out.flushed();
    const access = out.lines.filter((l) => l.msg === 'request completed');
    expect(access[0]).not.toHaveProperty('reqHeaders');
    expect(access[1]!.reqHeaders).toMatchObject({
      authorization: '[REDACTED]',
      cookie: '[REDACTED]',
      'x-api-key': '[REDACTED]',
      'api-key': '[REDACTED]',
      'proxy-authorization': '[REDACTED]',
      'x-tenant-secret': '[REDACTED]',
      accept: 'application/json',
    });
    expect(JSON.stringify(out.lines)).not.toContain('s3cr3t');
  });

  it('refuses unknown options, a bad level and a logger without the methods, at construction', () => {
    expect(() => new LoggingFeature({ acessLog: false } as never)).toThrow(/unknown option acessLog/);
    expect(() => new LoggingFeature({ accessLog: { level: 'loud' as 'info' } })).toThrow(/accessLog.level must be one of/);
    expect(() => new LoggingFeature({ logger: { info() {} } as unknown as Logger })).toThrow(/logger has no error\(\) method/);
  });
});

describe('ApplicationOptions.log', () => {
  it('start-up warnings and unexpected errors without a request logger go through it', async () => {
    const out = new Lines();
    @Path('/w')
    class Warned {}
    const a = new Application({ resources: [Warned, Users], log: jsonLogger({ destination: out }) });
    apps.push(a);
    a.build();
    expect((await a.inject('/users/boom')).status).toBe(500);
    await out.flushed();
    const warn = out.lines.find((l) => l.level === 40);
    const error = out.lines.find((l) => l.level === 50);
    expect(warn).toMatchObject({ code: 'PIPELINE_EMPTY_RESOURCE', msg: expect.stringContaining('Warned') });
    expect(error).toMatchObject({ method: 'GET', path: '/users/boom', msg: 'database on fire' });
  });
});

describe('ApplicationOptions.log validation', () => {
  it('refuses a log without the level methods at construction', () => {
    expect(() => new Application({ log: console.log as unknown as Logger })).toThrow(/log must be a Logger/);
    expect(() => new Application({ log: {} as Logger })).toThrow(/log must be a Logger/);
  });
});
