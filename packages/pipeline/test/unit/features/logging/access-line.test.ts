/**
 * Issue 24, the access line's cost: with `jsonLogger()` LoggingFeature renders the line as one
 * string (no fields object, no `JSON.stringify` of it); the text must be exactly what the fields
 * object gives through the logger, which a subclass of JsonLogger (not rendered) still receives.
 * In-process and over a real socket.
 */
import 'reflect-metadata';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Application,
  Entity,
  GET,
  JsonLogger,
  jsonLogger,
  LoggingFeature,
  Path,
  PathParam,
  POST,
  RequestIdFeature,
} from '../../../../src/index.js';
import { millisJson } from '../../../../src/features/logging/access-line.js';

/** Keeps the raw lines written to it. */
class RawLines extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    for (const l of chunk.toString('utf8').split('\n')) if (l !== '') this.lines.push(l);
    cb();
  }
  flushed(): Promise<void> {
    return new Promise((resolve) => this.write('', () => resolve()));
  }
}

/** Not exactly a JsonLogger: LoggingFeature gives it the fields object, as it gives pino. */
class ObjectLogger extends JsonLogger {}

@Path('/users')
class Users {
  @GET()
  @Path('/{id}')
  get(@PathParam('id') id: string): { id: string } {
    if (id === 'boom') throw new Error('down');
    return { id };
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

/** The same application twice: its access lines through jsonLogger() and through the object path. */
function pair(options: { generate?: () => () => string; headers?: boolean; requestIdKey?: string }): {
  apps: Application[];
  outs: RawLines[];
} {
  const outs = [new RawLines(), new RawLines()];
  const loggers = [
    new JsonLogger({ destination: outs[0], base: { svc: 'u' } }),
    new ObjectLogger({ destination: outs[1], base: { svc: 'u' } }),
  ];
  const made = loggers.map((logger) => {
    const feature = new LoggingFeature({ logger, headers: options.headers ?? false, requestIdKey: options.requestIdKey ?? 'reqId' });
    const a = new Application({
      basePath: '/api',
      resources: [Users],
      log: jsonLogger({ level: 'silent' }),
      providers: [new RequestIdFeature({ generate: options.generate?.() }), feature],
    });
    apps.push(a);
    return a;
  });
  return { apps: made, outs };
}

/** The lines with the clock's values (time, durationMs) masked. */
async function masked(out: RawLines): Promise<string[]> {
  await out.flushed();
  return out.lines
    .filter((l) => l.includes('"msg":"request completed"'))
    .map((l) => l.replace(/"time":\d+/, '"time":0').replace(/"durationMs":[0-9.]+/, '"durationMs":0'));
}

describe('the rendered access line', () => {
  it('millisJson writes what JSON.stringify writes of the duration rounded to the microsecond', () => {
    const values = [0, -0, 0.0004, 0.0005, 0.0015, 1.0005, 2.675, 0.05, 0.25, 0.1, 1e-9, 7, 123456.789, 99999999.9999, NaN, Infinity, -1];
    let seed = 42;
    for (let i = 0; i < 20_000; i++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      values.push((seed / 2147483648) * 10 ** ((i % 9) - 3));
    }
    for (const v of values) expect(millisJson(v), String(v)).toBe(JSON.stringify(Math.round(v * 1000) / 1000));
  });

  it('is the text the fields object gives: ids, routes, 404, bodies, odd characters, headers, a non-string id', async () => {
    const counter = (): (() => string) => {
      let n = 0;
      return () => `gen-${++n}`;
    };
    const cases = [
      pair({ generate: counter }),
      pair({ generate: () => () => 'quote" back\\slash \u0001 é', headers: true }),
      pair({ generate: () => () => 7 as unknown as string, requestIdKey: 'requestId' }),
      pair({ requestIdKey: 'path' }),
    ];
    for (const { apps: both, outs } of cases) {
      for (const a of both) {
        await a.inject({ url: '/api/users/1', headers: { 'x-request-id': 'given-1', 'user-agent': 'agent "x" ü' } });
        await a.inject({ url: '/api/users/1', headers: { 'x-request-id': 'bad id', authorization: 'Bearer s3cr3t' } });
        await a.inject({ url: '/api/users/boom' });
        await a.inject({ url: '/api/nowhere/%22q%22?secret=1' });
        await a.inject({ method: 'POST', url: '/api/users', headers: { 'content-type': 'application/json' }, body: '{"name":"abc"}' });
        await a.inject({ method: 'HEAD', url: '/api/users/2' });
      }
      const [rendered, object] = [await masked(outs[0]!), await masked(outs[1]!)];
      expect(rendered).toHaveLength(6);
      expect(rendered).toEqual(object);
      expect(rendered.join('\n')).not.toContain('s3cr3t');
      expect(rendered.join('\n')).not.toContain('secret=1');
    }
    expect(JSON.parse((await masked(cases[0]!.outs[0]!))[0]!)).toEqual({
      level: 30,
      time: 0,
      svc: 'u',
      reqId: 'given-1',
      method: 'GET',
      route: '/api/users/{id}',
      path: '/api/users/1',
      status: 200,
      durationMs: 0,
      responseBytes: 10,
      remoteAddress: '127.0.0.1',
      userAgent: 'agent "x" ü',
      msg: 'request completed',
    });
  });

  it('over a real socket: the same line as the object path, the remote address included', async () => {
    const { apps: both, outs } = pair({});
    for (const a of both) {
      const { port } = await a.listen(0, '127.0.0.1');
      const res = await fetch(`http://127.0.0.1:${port}/api/users/9`, { headers: { 'x-request-id': 'sock-1', 'user-agent': 'ua' } });
      expect(res.status).toBe(200);
      await res.text();
      await a.close(1000);
    }
    const [rendered, object] = [await masked(outs[0]!), await masked(outs[1]!)];
    expect(rendered).toEqual(object);
    expect(JSON.parse(rendered[0]!)).toMatchObject({ reqId: 'sock-1', remoteAddress: '127.0.0.1', userAgent: 'ua', status: 200 });
  });
});
